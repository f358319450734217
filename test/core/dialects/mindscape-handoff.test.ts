import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dialectOf } from "../../../src/core/dialects/index.js";
import { isPlaybookFile } from "../../../src/core/dialects/files.js";
import type { PlaybookDocument } from "../../../src/core/format/types.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { runCli } from "../../helpers/cli.js";
import { Driver } from "../engine/helpers.js";

const ROOT = join(import.meta.dirname, "../../..");
const DIR = "test/fixtures/dialect-simulations/mindscape-handoff";
const PLAN = `${DIR}/weekly_report.handoff.json`;
const read = (rel: string) => readFileSync(join(ROOT, rel), "utf8");
const errors = (r: ReturnType<typeof validateSource>) =>
  r.diagnostics.filter((d) => d.severity === "error");
const messages = (r: ReturnType<typeof validateSource>) =>
  r.diagnostics.map((d) => `${d.rule}: ${d.message}`);

/** Line and column (1-based) of the first `needle` in `text`, after `from` when given. */
function where(text: string, needle: string, from = ""): { line: number; column: number } {
  const start = from ? text.indexOf(from) : 0;
  const at = text.indexOf(needle, start);
  if (at < 0) throw new Error(`'${needle}' not in text`);
  const before = text.slice(0, at).split("\n");
  return { line: before.length, column: (before.at(-1) ?? "").length + 1 };
}

const step = (code: string, more: Record<string, unknown> = {}) => ({
  playbook_code: code,
  kind: "system_tool",
  inputs: {},
  ...more,
});
const convert = (plan: unknown, file = "plans/p.handoff.json") => {
  const text = JSON.stringify(plan, null, 2);
  return { text, r: validateSource(file, text) };
};

describe("a Mindscape HandoffPlan is one playbook that delegates to each step's playbook", () => {
  it("is recognised by its name, never as an execution spec, and found in a playbook folder", () => {
    const text = read(PLAN);
    expect(dialectOf(PLAN, text)?.id).toBe("mindscape");
    expect(isPlaybookFile(PLAN, () => text)).toBe(true);
    expect(dialectOf("x.handoff.md", "prose")?.id).toBe("mindscape");
  });

  it("converts the fixture: steps in Mindscape's start order, references as v1 templates", () => {
    const r = validateSource(PLAN, read(PLAN));
    expect(r.dialect).toBe("mindscape");
    expect(errors(r)).toEqual([]);
    expect(r.playbook).toMatchObject({
      id: "weekly_report",
      description:
        "A Mindscape HandoffPlan, estimated to take 120 seconds: runs pdf_extract, fetch_metrics, write_report.",
      inputs: {
        uploaded_file: { type: "string", default: "uploads/week-12.pdf" },
        week: { type: "string", default: "2025-W12" },
        publish: { type: "boolean", default: true },
      },
    });
    const [pdf, metrics, report] = r.playbook?.steps ?? [];
    expect(pdf).toEqual({
      id: "pdf_extract",
      type: "playbook",
      playbook: "pdf_extract",
      mode: "delegate",
      description: "Runs the Mindscape playbook pdf_extract (system_tool).",
      with: { pdf_file: "{{ inputs.uploaded_file }}", dpi: 300 },
      on_error: "retry:2",
    });
    // stop_workflow with no retries: v1's own default, fail.
    expect(metrics).not.toHaveProperty("on_error");
    expect(report).toMatchObject({
      id: "write_report",
      with: {
        tone: "brief",
        text: "{{ steps.pdf_extract.outputs.text }}",
        metrics: "{{ steps.fetch_metrics.outputs.summary }}",
      },
      if: "steps.pdf_extract.outputs.text != null and steps.fetch_metrics.outputs.summary != null and (inputs.publish)",
      on_error: "continue",
    });
    expect(r.playbook?.steps?.some((s) => s.needs !== undefined)).toBe(false);
    // The two independent steps are said to run one after another, at the plan's steps.
    const text = read(PLAN);
    expect(
      r.diagnostics.find((d) => d.message.includes("side by side (pdf_extract, fetch_metrics)")),
    ).toMatchObject({ rule: "dialect-drift", file: PLAN, ...where(text, "steps") });
  });

  it("locates the converted values where the plan has them", () => {
    const text = read(PLAN).replace('"tone": "brief"', '"tone": ["a", {"b": 1}]');
    const r = validateSource(PLAN, text);
    expect(
      r.diagnostics.find((d) => d.message === "an object is passed as its JSON text"),
    ).toMatchObject({ rule: "dialect-drift", ...where(text, '["a"') });
    expect(r.playbook?.steps?.[2]).toMatchObject({ with: { tone: '["a",{"b":1}]' } });
  });

  it("runs: each child's outputs reach the next step; a false condition skips its step", () => {
    const bundle = (rel: string) => {
      const r = validateSource(rel, read(rel));
      expect(errors(r), rel).toEqual([]);
      return { playbook: r.playbook as PlaybookDocument, hash: rel };
    };
    const children = ["pdf_extract", "fetch_metrics", "write_report"].map((c) =>
      bundle(`${DIR}/${c}.json`),
    );
    const d = new Driver(bundle(PLAN), children);
    d.start({});
    d.drive();
    // The plan's number reaches the tool as a number, as Mindscape's template engine passes it.
    expect(d.effect().params).toMatchObject({
      calls: [{ tool: "core_files/ocr_pdf", args: { file_path: "uploads/week-12.pdf", dpi: 300 } }],
    });
    d.answer({ called: 1, failed: [], results: "", "output.text": "two incidents" });
    d.drive();
    expect(d.effect().params).toMatchObject({
      calls: [{ tool: "metrics/weekly_summary", args: { week: "2025-W12" } }],
    });
    d.answer({ called: 1, failed: [], results: "", "output.summary": "p95 210 ms" });
    d.drive();
    expect(d.effect().params).toMatchObject({
      calls: [
        {
          tool: "core_llm/generate",
          args: {
            prompt: "Write a brief weekly report. Metrics: p95 210 ms. Notes: two incidents",
          },
        },
      ],
    });
    d.answer({ called: 1, failed: [], results: "", "output.report": "Week 12" });
    d.drive();
    expect(d.run.status).toBe("completed");
    expect(d.run.stack[0]?.results.write_report?.outputs).toEqual({ report: "Week 12" });

    const off = new Driver(bundle(PLAN), children);
    off.start({ publish: false });
    off.drive();
    off.answer({ called: 1, failed: [], results: "", "output.text": "t" });
    off.drive();
    off.answer({ called: 1, failed: [], results: "", "output.summary": "s" });
    off.drive();
    expect(off.run.status).toBe("completed");
    expect(off.run.stack[0]?.results.write_report?.status).toBe("skipped");
  });
});

describe("HandoffPlan: what Mindscape cannot resolve is reported where it is written", () => {
  it("an unknown $previous code, with the codes of the plan as the way out", () => {
    const { text, r } = convert({
      steps: [step("a"), step("b", { input_mapping: { x: "$previous.nope.outputs.y" } })],
    });
    const d = errors(r).find((x) => x.message.startsWith("'$previous.nope.outputs.y'"));
    expect(d).toMatchObject({
      rule: "dialect-invalid",
      file: "plans/p.handoff.json",
      message:
        "'$previous.nope.outputs.y' names no step of the plan: no step runs playbook 'nope', so Mindscape passes the text as it is",
      hint: "name the playbook_code of a step of this plan (a, b), or read a value of the plan's context with $context.<key>",
      ...where(text, "$previous.nope"),
    });
  });

  it("a bad error_handling value", () => {
    const { text, r } = convert({ steps: [step("a", { error_handling: "retry_forever" })] });
    expect(errors(r)).toContainEqual(
      expect.objectContaining({
        rule: "dialect-invalid",
        message:
          "error_handling is one of stop_workflow, continue_on_error, skip_step, retry_then_stop, retry_then_continue, not 'retry_forever'",
        ...where(text, "retry_forever"),
      }),
    );
  });

  it("a step without playbook_code, and a step that is no object", () => {
    const { text, r } = convert({ steps: [step("a"), { kind: "system_tool", inputs: {} }, 7] });
    expect(errors(r).map((d) => [d.message, d.line, d.column])).toEqual(
      expect.arrayContaining([
        [
          "a plan step names the playbook it runs: playbook_code is required",
          where(text, '{\n      "kind"').line,
          where(text, '{\n      "kind"').column,
        ],
        ["a plan step is an object", where(text, "7").line, where(text, "7").column],
      ]),
    );
  });

  it("a cycle of $previous references, and a step reading its own code", () => {
    const cycle = convert({
      steps: [
        step("a", { inputs: { x: "$previous.b.outputs.y" } }),
        step("b", { inputs: { y: "$previous.a.outputs.x" } }),
        step("c"),
      ],
    });
    const found = errors(cycle.r).filter((d) => d.message.includes("in a cycle"));
    expect(found.map((d) => [d.line, d.column])).toEqual([
      [where(cycle.text, "$previous.b").line, where(cycle.text, "$previous.b").column],
      [where(cycle.text, "$previous.a").line, where(cycle.text, "$previous.a").column],
    ]);
    expect(found[0]?.message).toBe(
      "steps 'a', 'b' read each other's outputs ($previous), in a cycle: none of them can ever start, and Mindscape stops the plan there",
    );
    const self = convert({ steps: [step("a", { inputs: { x: "$previous.a.outputs.y" } })] });
    expect(errors(self.r).find((d) => d.rule === "dialect-invalid")).toMatchObject({
      message:
        "step 'a' reads its own outputs ($previous.a): it can never start, and Mindscape stops the plan there",
      ...where(self.text, "$previous.a"),
    });
  });

  it("a reference that is not $previous.<code>.outputs.<field>, and odd output names", () => {
    const { r } = convert({
      steps: [
        step("a"),
        step("b", { inputs: { x: "$previous.a.result", y: "see $previous.a.outputs.t," } }),
      ],
    });
    expect(messages(r)).toEqual(
      expect.arrayContaining([
        "dialect-invalid: '$previous.a.result' is no reference Mindscape resolves: it reads $previous.<playbook_code>.outputs.<field>",
        "dialect-unmapped: '$previous.a.outputs.t,' reads the output 't,' (up to the next dot or space); an output name here has letters, digits and _ only",
      ]),
    );
    expect(r.playbook?.steps?.[1]).toMatchObject({
      with: { x: "$previous.a.result", y: "see $previous.a.outputs.t," },
    });
  });

  it("refuses what is no plan", () => {
    expect(messages(convert([1]).r)).toContain(
      "dialect-invalid: a HandoffPlan is a JSON object: { steps, context, estimated_duration }",
    );
    expect(messages(convert({ steps: [] }).r)).toContain("dialect-invalid: the plan has no steps");
    const many = convert({ steps: Array.from({ length: 201 }, (_, i) => step(`s${i}`)) });
    expect(messages(many.r)).toContain("dialect-invalid: more than 200 steps");
    const bad = convert({
      steps: [step("a", { kind: "robot", inputs: 3, input_mapping: [], colour: 1 })],
      context: [],
      estimated_duration: "soon",
      owner: "x",
    });
    expect(messages(bad.r)).toEqual(
      expect.arrayContaining([
        "dialect-unmapped: 'owner' is not a HandoffPlan field",
        "dialect-invalid: context maps keys to values",
        "dialect-invalid: estimated_duration is a whole number of seconds",
        "dialect-invalid: kind is required: user_workflow or system_tool",
        "dialect-invalid: inputs maps names to values",
        "dialect-invalid: input_mapping maps names to references",
        "dialect-unmapped: 'colour' is not a WorkflowStep field",
      ]),
    );
    const missing = convert({ steps: [{ playbook_code: "a" }] });
    expect(messages(missing.r)).toEqual(
      expect.arrayContaining([
        "dialect-invalid: kind is required: user_workflow or system_tool",
        "dialect-invalid: inputs is required (it may be {})",
      ]),
    );
    const broken = validateSource("p.handoff.json", '{"steps": [');
    expect(broken.diagnostics.length).toBeGreaterThan(0);
    expect(broken.playbook).toBeUndefined();
  });

  it("a plan as an execution spec says how to name it", () => {
    const r = validateSource(
      "plans/p.json",
      JSON.stringify({ steps: [{ playbook_code: "a", kind: "system_tool", inputs: {} }] }),
    );
    expect(errors(r).find((d) => d.message === "the spec has no playbook_code")?.hint).toBe(
      "its steps name playbooks: a HandoffPlan is read from a file named <name>.handoff.json",
    );
  });
});

describe("HandoffPlan: each field as Mindscape's orchestrator reads it", () => {
  it("the same playbook_code twice: distinct ids, $previous reads the last (Mindscape keeps it)", () => {
    const { text, r } = convert({
      steps: [
        step("sum"),
        step("sum", { inputs: { n: 2 } }),
        step("post", { inputs: { body: "$previous.sum.outputs.text" } }),
      ],
    });
    expect(errors(r)).toEqual([]);
    expect(r.playbook?.steps?.map((s) => s.id)).toEqual(["sum", "sum_2", "post"]);
    expect(r.playbook?.steps?.[2]).toMatchObject({
      with: { body: "{{ steps.sum_2.outputs.text }}" },
    });
    expect(
      r.diagnostics.find((d) => d.message.startsWith("Mindscape keeps one step")),
    ).toMatchObject({
      rule: "dialect-drift",
      message:
        "Mindscape keeps one step per playbook_code, the last: this step does not run there, and $previous.sum reads step 'sum_2'; here it runs too, as step 'sum'",
      ...where(text, 'sum"'),
    });
  });

  it.each([
    ["stop_workflow", undefined, "system_tool", "retry:3", []],
    ["retry_then_stop", { max_retries: 0 }, "system_tool", undefined, []],
    ["retry_then_stop", undefined, "user_workflow", "retry:1", []],
    [
      "retry_then_stop",
      { max_retries: 5, retry_delay: 2 },
      "system_tool",
      "retry:5",
      [
        "dialect-drift: v1 waits 2, 4, 8… seconds between retries, whatever retry_delay and exponential_backoff say",
      ],
    ],
    [
      "continue_on_error",
      undefined,
      "system_tool",
      "continue",
      [
        "dialect-drift: Mindscape retries this step 3 time(s) before it goes on; v1 cannot retry and then go on, so here it goes on after the first failure",
      ],
    ],
    ["skip_step", { max_retries: 0 }, "system_tool", "continue", []],
    ["retry_then_continue", { max_retries: 0 }, "user_workflow", "continue", []],
    [
      "retry_then_stop",
      { max_retries: 150 },
      "system_tool",
      undefined,
      ["dialect-unmapped: v1 retries a step at most 99 times, not 150"],
    ],
    [
      "retry_then_stop",
      { max_retries: -1 },
      "system_tool",
      undefined,
      ["dialect-invalid: max_retries is a whole number, 0 or more"],
    ],
    [
      undefined,
      { max_retries: 1, retryable_errors: ["timeout"], backoff: 2 },
      "system_tool",
      "retry:1",
      [
        "dialect-unmapped: retryable_errors names Mindscape's error classes (timeout), which errors here do not have: a retry here cannot be limited to them",
        "dialect-unmapped: 'backoff' is not a retry_policy field",
      ],
    ],
    [
      "stop_workflow",
      "often",
      "system_tool",
      undefined,
      ["dialect-invalid: retry_policy is an object"],
    ],
  ])(
    "error_handling %s with retry_policy %j (%s) → on_error %s",
    (strategy, policy, kind, onError, said) => {
      const { r } = convert({
        steps: [
          step("a", {
            kind,
            ...(strategy ? { error_handling: strategy } : {}),
            ...(policy ? { retry_policy: policy } : {}),
          }),
        ],
      });
      expect(r.playbook?.steps?.[0]?.on_error).toBe(onError);
      expect(messages(r)).toEqual(expect.arrayContaining(said));
      if (onError)
        expect(messages(r)).toContain(
          "dialect-drift: error_handling and retry_policy become each step's on_error, which here covers the call itself (an unknown playbook, inputs it refuses); a failure inside a called playbook ends the run",
        );
    },
  );

  it("conditions: {{ }}, $previous, $context, and Python it cannot read", () => {
    const { r } = convert({
      steps: [
        step("a"),
        step("b", { condition: "{{input.mode == 'full' and step.a.ok}}" }),
        step("c", { condition: "$previous.a.outputs.ready" }),
        step("d", { condition: "$context.flag" }),
        step("e", { condition: "has_output('a', 'x')" }),
        step("f", { condition: "$previous.zz.outputs.x" }),
        step("g", { condition: "$previous.a.status" }),
        step("h", { condition: 3 }),
      ],
    });
    const [, b, c, d, e, f, g] = r.playbook?.steps ?? [];
    expect(b?.if).toBe("inputs.mode == 'full' and steps.a.outputs.ok");
    expect(c?.if).toBe("steps.a.outputs.ready");
    expect(d?.if).toBe("inputs.flag");
    expect([e?.if, f?.if, g?.if]).toEqual([undefined, undefined, undefined]);
    expect(r.playbook?.inputs).toMatchObject({
      mode: { type: "string" },
      flag: { type: "string" },
    });
    expect(messages(r)).toEqual(
      expect.arrayContaining([
        "dialect-drift: Mindscape gives a plan's conditions no step outputs (step.<id>… is empty there); here it reads the outputs of that step of this playbook",
        "dialect-drift: Mindscape looks '$context.flag' up among the steps' results, not in the context (so it is false unless a step runs a playbook named 'flag'); here it is the input 'flag'",
        "dialect-unmapped: this condition is Python that Mindscape evaluates over results, previous() and has_output(); here a condition is {{ … }}, $previous.<playbook_code>.outputs.<field> or $context.<key>",
        "dialect-invalid: '$previous.zz.outputs.x' names no step of the plan: no step runs playbook 'zz', so Mindscape never runs this step",
        "dialect-unmapped: '$previous.a.status' reads a step's result beyond its outputs; here a condition reads $previous.<playbook_code>.outputs.<field>",
        "dialect-invalid: condition is a text",
      ]),
    );
  });

  it("inputs and input_mapping: $context keys, values v1 passes as text, overrides", () => {
    const { r } = convert({
      steps: [
        step("a", {
          inputs: { n: null, tags: ["x", "y"], q: "keep", w: "$context.where.deep" },
          input_mapping: { q: "$context.query", bad: 4, odd: "$context.a,b" },
          interaction_mode: ["needs_review"],
        }),
        step("b", {
          inputs: { t: "Text: $previous.a.outputs.text and $HOME.x" },
          interaction_mode: ["loud"],
        }),
      ],
      context: { query: "q1", n: 2, cfg: { a: 1 }, list: [1], none: null, "bad key": 1 },
    });
    const [a, b] = r.playbook?.steps ?? [];
    expect(a?.type === "playbook" && a.with).toEqual({
      tags: "x, y",
      q: "{{ inputs.query }}",
      w: "{{ inputs.where }}",
      odd: "$context.a,b",
    });
    expect(b).toMatchObject({
      with: { t: "Text: {{ steps.a.outputs.text }} and $HOME.x" },
      if: "steps.a.outputs.text != null",
    });
    expect(r.playbook?.inputs).toMatchObject({
      query: { type: "string", default: "q1" },
      n: { type: "number", default: 2 },
      cfg: { type: "object", default: { a: 1 } },
      list: { type: "list", default: [1] },
      none: { type: "string" },
      where: { type: "string", required: true },
    });
    expect(r.playbook?.inputs?.none).not.toHaveProperty("default");
    expect(messages(r)).toEqual(
      expect.arrayContaining([
        "dialect-drift: null is no value here: the input is not passed, so the playbook uses its default",
        "dialect-drift: a list is passed as its items joined by ', ', as a list input keeps them",
        "dialect-drift: input_mapping.q replaces this value, as in Mindscape",
        "dialect-invalid: input_mapping.bad is a text reference",
        "dialect-drift: Mindscape reads '$context.where.deep' as $context.where and leaves out the rest ('.deep')",
        "dialect-drift: the plan's context has no 'where': Mindscape reads it from the context, where the outputs of the steps that finished before are too; here it is a required input 'where'",
        "dialect-unmapped: '$context.a,b' reads the context key 'a,b' (up to the next dot or space); an input name here has letters, digits and _ only",
        "dialect-unmapped: context key 'bad key' is no input name here (letters, digits and _)",
        "dialect-drift: Mindscape only logs a plan step's interaction_mode; here the called playbook's own interaction_mode applies",
        "dialect-invalid: interaction_mode is a list of silent, needs_review, conversational",
        "dialect-drift: Mindscape orders steps only by values that start with $previous., so it may run this step before a; here it waits for it",
      ]),
    );
  });

  it("edge cases: odd codes, an empty context, mappings without inputs, defaults", () => {
    const { r } = convert({
      steps: [
        step("x-y"),
        step("b", {
          input_mapping: { x: "$previous.x-y.outputs.y" },
          condition: "$context.flag",
          retry_policy: { retry_delay: 3 },
        }),
        step("c", { inputs: { p: "$previous.b.outputs.z", q: "and $previous.b.outputs.w" } }),
      ],
      context: {},
    });
    const text = JSON.stringify({ steps: [step("a")], context: { flag: true } });
    const flagged = validateSource("\ufeffbom.handoff.json", `\ufeff${text}`);
    expect(flagged.playbook?.inputs?.flag).toMatchObject({ type: "boolean", default: true });
    expect(r.playbook?.inputs).toMatchObject({ flag: { type: "string" } });
    const [first, b, c] = r.playbook?.steps ?? [];
    expect(first?.id).toBe("x_y");
    expect(b).toMatchObject({
      with: { x: "{{ steps.x_y.outputs.y }}" },
      if: "steps.x_y.outputs.y != null and (inputs.flag)",
      on_error: "retry:3",
    });
    expect(c?.if).toBe("steps.b.outputs.z != null and steps.b.outputs.w != null");
    expect(messages(r)).not.toContain(
      "dialect-drift: Mindscape orders steps only by values that start with $previous., so it may run this step before b; here it waits for it",
    );
    expect(messages(r)).not.toContain(
      "dialect-drift: Mindscape gives every playbook of the plan each context value (and each finished step's outputs) as an input it was not given; here a playbook gets only what its inputs and input_mapping name",
    );
  });

  it("reads the plan from a reply between <playbook_handoff> tags, at the reply's own lines", () => {
    const plan = JSON.stringify(
      { steps: [step("a", { error_handling: "later" })], context: { k: 1 } },
      null,
      2,
    );
    const text = `I will chain two playbooks.\n\n<playbook_handoff>\n${plan}\n</playbook_handoff>\n\nDone.\n`;
    const r = validateSource("chats/reply.handoff.md", text);
    expect(r.playbook).toMatchObject({ id: "reply", steps: [{ id: "a", playbook: "a" }] });
    expect(errors(r).find((d) => d.message.startsWith("error_handling"))).toMatchObject({
      file: "chats/reply.handoff.md",
      ...where(text, "later"),
    });
    const none = validateSource("chats/reply.handoff.md", "No plan here.\n");
    expect(messages(none)).toContain(
      "dialect-invalid: no HandoffPlan between <playbook_handoff> and </playbook_handoff> in this file",
    );
    const open = validateSource("x.handoff.json", "<playbook_handoff>{}");
    expect(messages(open)).toContain(
      "dialect-invalid: no HandoffPlan between <playbook_handoff> and </playbook_handoff> in this file",
    );
    expect(validateSource("-.handoff.json", plan).playbook?.id).toBe("handoff");
  });
});

describe("HandoffPlan in the CLI", () => {
  it("validate takes the plan with the playbooks it delegates to", async () => {
    const r = await runCli(["validate", DIR]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(/0 errors and \d+ warnings in 4 files/);
    const one = await runCli(["validate", PLAN]);
    expect(one.out).toContain(
      "weekly_report.handoff.json:2:4: warning: Mindscape starts the steps",
    );
  });

  it("simulate runs the plan to its end, each step delegating to its playbook", async () => {
    const r = await runCli([
      "simulate",
      PLAN,
      "--events",
      "test/fixtures/dialect-simulations/mindscape-handoff.events.yaml",
    ]);
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain("**Status:** completed");
    for (const id of ["pdf_extract", "fetch_metrics", "write_report"])
      expect(r.out).toContain(`- [x] \`${id}\``);
    expect(r.out).toContain("| `write_report` | effect_result | write_report returned |");
    expect(r.out).toMatch(/Run \S+ completed\./);
  });

  it("import writes a v1 playbook that validates as v1", async () => {
    const r = await runCli(["import", PLAN]);
    expect(r.code, r.err).toBe(0);
    const v1 = validateSource("weekly_report.yaml", r.out);
    expect(v1.dialect).toBeUndefined();
    expect(errors(v1)).toEqual([]);
    expect(v1.playbook?.steps?.map((s) => s.id)).toEqual([
      "pdf_extract",
      "fetch_metrics",
      "write_report",
    ]);
  });
});
