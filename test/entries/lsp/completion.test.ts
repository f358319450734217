import { describe, expect, it } from "vitest";
import { loadSourceText } from "../../../src/core/format/source.js";
import { CONTEXT_VARIABLES } from "../../../src/core/format/vocabulary.js";
import { stepKind } from "../../../src/core/steps/registry.js";
import { STEP_KINDS } from "../../../src/core/format/schema.js";
import {
  completionsAt,
  stepOutputs,
  type PlaybookSummary,
} from "../../../src/core/editor/completion.js";
import { outlineAt } from "../../../src/core/editor/cursor.js";
import { branchDescriptions, type SchemaNode } from "../../../src/core/editor/schema-docs.js";
import { withCursor } from "./cursor-helpers.js";

const PLAYBOOK = `apiVersion: playbook-bot/v1
id: main
inputs:
  package: { type: string, description: The package to bump. }
  level: { type: enum, values: [patch, minor] }
  bare: 3
steps:
  - id: ask
    type: checkpoint
    name: Approve the plan
    message: Go?
    response_schema: { type: object, properties: { reason: { type: string } } }
  - id: look
    type: investigate
    description: Look around.
    expected_findings: [pods_down]
    suggested_calls: [{ tool: k8s/list, outputs: { pods: items } }, "junk"]
  - id: judge
    type: decide
    rules: [{ id: r1, all: [pods_down, disk_full], any: [x], conclusion: c }, "junk"]
  - id: child
    type: playbook
    playbook: helper
    mode: delegate
  - id: each
    type: comment
    for_each: "{{ inputs.level }}"
    body: x
  - id: done
    type: end
`;

const PLAYBOOKS: PlaybookSummary[] = [
  { id: "main", file: "/w/main.yaml", inputs: [], outputs: [] },
  {
    id: "helper",
    file: "/w/helper.yaml",
    name: "Helps",
    description: "A helper.",
    inputs: ["question", "depth"],
    outputs: ["answer"],
  },
  { id: "helper", file: "/lib/helper.yaml", inputs: [], outputs: [] },
  { id: "library-one", file: "/lib/one.yaml", inputs: [], outputs: [] },
];

const value = (() => {
  const loaded = loadSourceText("main.yaml", PLAYBOOK);
  if (!loaded.ok) throw new Error("fixture does not parse");
  return loaded.document.value;
})();

/** Completions with the cursor (`§`) placed in an edited copy of the playbook. */
function complete(
  edit: (text: string) => string,
  parsed: { document: unknown } = { document: value },
) {
  const { lines, line, character } = withCursor(edit(PLAYBOOK));
  const outline = outlineAt(lines, line, character);
  if (!outline) throw new Error("no outline");
  return completionsAt({ outline, document: parsed.document, playbooks: PLAYBOOKS, kindOutputs });
}

/** What the language server tells completion each kind outputs: the registry's word. */
const kindOutputs = (kind: string) => stepKind(kind)?.outputs;

/** What the server has when the text never parsed. */
const NOTHING = { document: undefined };

const labels = (c: { candidates: { label: string }[] }) => c.candidates.map((x) => x.label);

const inStep = (id: string, line: string) => (t: string) =>
  t.replace(`  - id: ${id}\n`, `  - id: ${id}\n    ${line}\n`);

describe("completion", () => {
  it("offers step kinds after a step's type:", () => {
    const c = complete((t) => t.replace("type: end", "type: §"));
    expect(labels(c)).toEqual([...STEP_KINDS]);
    expect(c.from).toBe(10);
    expect(c.candidates.every((x) => x.kind === "value")).toBe(true);
  });

  it("offers an input's types, not step kinds, under inputs:", () => {
    const c = complete((t) => t.replace("bare: 3", "bare: { type: § }"));
    expect(labels(c)).toEqual(["string", "number", "boolean", "enum", "list", "object"]);
  });

  it("offers the other steps after goto:, next:, needs and on_error: goto:", () => {
    const others = ["ask", "look", "judge", "child", "each"];
    expect(labels(complete(inStep("done", "next: §")))).toEqual(others);
    const goto = complete(inStep("ask", "next: [{ condition: x, goto: § }]"));
    expect(labels(goto)).toEqual(["look", "judge", "child", "each", "done"]);
    expect(goto.candidates[0]).toMatchObject({
      kind: "step",
      detail: "investigate",
      documentation: "Look around.",
    });
    expect(labels(complete(inStep("look", "needs: [ask, §]")))).toContain("judge");
    expect(labels(complete(inStep("look", "on_error: goto:§")))).toContain("goto:ask");
    expect(
      complete(inStep("look", "on_reject: §")).candidates.find((c) => c.label === "ask"),
    ).toMatchObject({ detail: "checkpoint: Approve the plan" });
  });

  it("offers the set's and the library's playbooks in delegates and handoffs, each once", () => {
    const c = complete((t) => t.replace("playbook: helper", "playbook: §"));
    expect(labels(c)).toEqual(["helper", "library-one"]);
    expect(c.candidates[0]).toMatchObject({
      kind: "playbook",
      detail: "Helps",
      documentation: "A helper.",
    });
    expect(labels(complete((t) => t.replace("type: end", "type: end\n    handoff: [§]")))).toEqual([
      "helper",
      "library-one",
    ]);
    expect(
      complete((t) => t.replace("type: end", "type: end\n    handoff:\n      - §"))
        .candidates.map((c) => c.label)
        .slice(0, 2),
    ).toEqual(["helper", "library-one"]);
  });

  it("offers a value's allowed values with the schema's descriptions", () => {
    const c = complete((t) => t.replace("mode: delegate", "mode: §"));
    expect(labels(c)).toEqual(["delegate", "handoff"]);
    expect(c.candidates[0]?.documentation).toMatch(/\S/);
    expect(labels(complete(inStep("ask", "nowhere: §")))).toEqual([]);
  });

  it("documents a value with the definition it selects, where the schema has one", () => {
    const schema: SchemaNode = {
      properties: {
        thing: {
          properties: { kind: { enum: ["a", "b"], description: "the kind" } },
          anyOf: [{ properties: { kind: { const: "a" } }, description: "An A." }],
        },
      },
    };
    const c = completionsAt({
      outline: { path: ["thing", "kind"], mode: "value", partial: "", partialStart: 7 },
      document: {},
      playbooks: [],
      schema,
    });
    expect(c.candidates).toEqual([
      { label: "a", kind: "value", documentation: "An A." },
      { label: "b", kind: "value", documentation: "the kind" },
    ]);
    expect(branchDescriptions([{ properties: { kind: { enum: ["a"] } } }], "kind", "a")).toEqual(
      [],
    );
  });

  it("writes numbers and booleans as YAML does, and offers no structured values", () => {
    const c = completionsAt({
      outline: { path: ["x"], mode: "value", partial: "", partialStart: 3 },
      document: {},
      playbooks: [],
      schema: { properties: { x: { enum: [1, true, { a: 1 }, null] } } },
    });
    expect(c.candidates.map((x) => x.label)).toEqual(["1", "true"]);
  });

  it("offers the fields a step of its kind may still have", () => {
    const c = complete(inStep("child", "§"));
    expect(labels(c)).toContain("with");
    expect(labels(c)).not.toContain("mode");
    expect(labels(c)).not.toContain("body");
    const item = complete((t) => t.replace("steps:\n", "steps:\n  - §\n"), NOTHING);
    expect(labels(item)).toContain("id");
  });

  it("offers a called playbook's inputs under its step's with:, those not given yet", () => {
    const c = complete(inStep("child", "with:\n      §"));
    expect(labels(c)).toEqual(["question", "depth"]);
    expect(c.candidates[0]).toMatchObject({ kind: "variable", detail: "input of helper" });
    const withQuestion = loadSourceText(
      "main.yaml",
      inStep("child", "with:\n      question: why")(PLAYBOOK),
    );
    if (!withQuestion.ok) throw new Error("the edited fixture does not parse");
    const given = complete(inStep("child", "with:\n      question: why\n      §"), {
      document: withQuestion.document.value,
    });
    expect(labels(given)).toEqual(["depth"]);
    // A step that calls nothing known offers no inputs.
    expect(labels(complete(inStep("each", "with:\n      §")))).toEqual([]);
  });

  it("completes template references segment by segment", () => {
    const at = (ref: string) => complete(inStep("done", `advice: "{{ ${ref}§ }}"`));
    const roots = at("");
    expect(labels(roots)).toEqual([
      "inputs",
      "steps",
      "findings",
      ...Object.keys(CONTEXT_VARIABLES),
    ]);
    const inputs = at("inputs.pa");
    expect(labels(inputs)).toEqual(["package", "level", "bare"]);
    expect(inputs.from).toBe(23);
    expect(inputs.candidates[0]).toMatchObject({
      detail: "input (string)",
      documentation: "The package to bump.",
    });
    expect(labels(at("steps."))).toEqual(["ask", "look", "judge", "child", "each", "done"]);
    expect(labels(at("steps.ask."))).toEqual(["outputs"]);
    expect(labels(at("steps.ask.outputs."))).toEqual(["approved_by", "note", "reason"]);
    expect(labels(at("steps.look.outputs."))).toEqual([
      ...(stepKind("investigate")?.outputs ?? []),
      "pods",
    ]);
    expect(labels(at("steps.child.outputs."))).toEqual(["answer"]);
    expect(labels(at("steps.each.outputs."))).toEqual(["id", "url"]);
    expect(labels(at("steps.nope.outputs."))).toEqual([]);
    expect(labels(at("findings."))).toEqual(["pods_down", "disk_full", "x"]);
    expect(labels(at("run."))).toEqual([...(CONTEXT_VARIABLES.run ?? [])]);
    expect(labels(at("alert.labels."))).toEqual([]);
    expect(labels(at("nothing."))).toEqual([]);
  });

  it("offers a for_each step its item", () => {
    const c = complete((t) => t.replace("body: x", 'body: "{{ §'));
    expect(labels(c)).toEqual(expect.arrayContaining(["item", "item_index"]));
  });

  it("reads outputs whatever a step declares", () => {
    expect(stepOutputs({ type: "checkpoint" }, [])).toEqual(["approved_by", "note"]);
    expect(stepOutputs({ type: "investigate", suggested_calls: "x" }, [], kindOutputs)).toEqual(
      stepKind("investigate")?.outputs,
    );
    // Without the registry's word, only what the step itself declares.
    expect(stepOutputs({ type: "investigate" }, [])).toEqual([]);
    expect(stepOutputs({ type: "branch" }, [], kindOutputs)).toEqual(stepKind("branch")?.outputs);
    expect(stepOutputs({ type: "playbook", playbook: "gone" }, [])).toEqual([]);
    expect(stepOutputs({ type: "unknown" }, [])).toEqual([]);
    expect(stepOutputs({}, [])).toEqual([]);
  });

  it("works from the last value that parsed, or from nothing", () => {
    expect(labels(complete((t) => t.replace("type: end", "type: §"), NOTHING))).toEqual([
      ...STEP_KINDS,
    ]);
    expect(labels(complete(inStep("done", "next: §"), NOTHING))).toEqual([]);
    expect(labels(complete(inStep("done", 'advice: "{{ inputs.§'), { document: "text" }))).toEqual(
      [],
    );
  });
});
