import { describe, expect, it } from "vitest";
import { PlaybookGraph } from "../../../src/core/format/graph.js";
import { LOCAL_CONTEXT } from "../../../src/core/format/vocabulary.js";
import {
  contextReferences,
  textContextReferences,
} from "../../../src/core/rules/analysis/references.js";
import { unprovidedContext } from "../../../src/core/rules/templates/template-unresolved.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { yaml } from "./helpers.js";

function gateContext(text: string) {
  const r = validateSource("pb.yaml", text);
  if (!r.doc || !r.playbook) throw new Error(JSON.stringify(r.diagnostics));
  return { doc: r.doc, playbook: r.playbook, graph: new PlaybookGraph(r.playbook) };
}

const PB = yaml`
  apiVersion: playbook-bot/v1
  id: refs
  inputs:
    a: { type: string, default: x }
  steps:
    - id: note
      type: comment
      if: issue.number > 0
      body: "For #{{ issue.number }} in {{ repo.name }} ({{ inputs.a }})"
    - id: long
      type: comment
      body: |
        Run {{ run.id }}
        for {{ alert.labels.service }}
  outputs:
    where: "{{ issue.url }}"
`;

describe("context references", () => {
  it("lists issue.*, repo.*, run.* and alert.* in templates, each where it is written", () => {
    const refs = contextReferences(gateContext(PB));
    expect(refs.map((r) => [r.ref.join("."), r.path, r.span.line, r.span.column])).toEqual([
      ["issue.number", "steps[0].body", 9, 17],
      ["repo.name", "steps[0].body", 9, 39],
      // a block scalar: the whole value, from its first line
      ["run.id", "steps[1].body", 13, 1],
      ["alert.labels.service", "steps[1].body", 13, 1],
      ["issue.url", "outputs.where", 16, 11],
    ]);
    // the underline covers the reference where it can
    expect(refs[0]?.span.endColumn).toBe(17 + "{{ issue.number }}".length);
    // expressions are left out: a value missing there is false, not an error
    expect(refs.some((r) => r.path.endsWith(".if"))).toBe(false);
  });

  it("lists them in a file a step reads, at their line and column", () => {
    const refs = textContextReferences(
      "# Bump\n\nFor #{{ issue.number }}, {{ inputs.x }} {{run.id}}\n",
    );
    expect(refs.map((r) => [r.raw, r.path, r.span])).toEqual([
      ["{{ issue.number }}", "(document)", { line: 3, column: 6, endLine: 3, endColumn: 24 }],
      ["{{run.id}}", "(document)", { line: 3, column: 41, endLine: 3, endColumn: 51 }],
    ]);
  });

  it("reports what a run lacks with the guidance for its kind of context", () => {
    const refs = contextReferences(gateContext(PB));
    const has = new Set(["repo.name", "run.id"]);
    const out = unprovidedContext(refs, (r) => has.has(r.join(".")), LOCAL_CONTEXT, "a local run");
    expect(out.map((d) => [d.rule, d.message, d.hint])).toEqual([
      [
        "template-unresolved",
        "steps[0].body: '{{ issue.number }}' has no value in a local run",
        LOCAL_CONTEXT.issue,
      ],
      [
        "template-unresolved",
        "steps[1].body: '{{ alert.labels.service }}' has no value in a local run",
        LOCAL_CONTEXT.alert,
      ],
      [
        "template-unresolved",
        "outputs.where: '{{ issue.url }}' has no value in a local run",
        LOCAL_CONTEXT.issue,
      ],
    ]);
    expect(LOCAL_CONTEXT.issue).toContain("--issue <n>");
    expect(LOCAL_CONTEXT.alert).toContain("--alert <file>");
    const inFile = unprovidedContext(
      textContextReferences("{{ issue.title }}"),
      () => false,
      {},
      "x",
    );
    expect(inFile[0]?.message).toBe("'{{ issue.title }}' has no value in x");
    expect(inFile[0]?.hint).toBe("x does not have issue.title");
  });

  it("changes nothing the reference gate reports", () => {
    const r = validateSource("pb.yaml", PB);
    expect(r.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const bad = validateSource("pb.yaml", PB.replace("{{ repo.name }}", "{{ repo.nam }}"));
    expect(bad.diagnostics.map((d) => [d.rule, d.line])).toContainEqual(["template-unresolved", 9]);
  });
});
