import { describe, expect, it } from "vitest";
import { validateSet, validateSource } from "../../../src/core/rules/validate.js";
import { diags, errorRules, one, ofRule, span, yaml } from "./helpers.js";

const HEAD = "apiVersion: playbook-bot/v1\nid: t\n";
/** A playbook whose steps list is `steps` (YAML flow or block lines, indented by two). */
const withSteps = (steps: string, extra = ""): string => `${HEAD}${extra}steps:\n${steps}`;
const END = "  - { id: e, type: end, name: E }\n";

describe("schema gate", () => {
  it("says the document must be a mapping", () => {
    const [d] = diags("- a\n- b\n");
    expect(d?.rule).toBe("schema-type");
    expect(d?.message).toBe("a playbook is a YAML mapping of fields, not a list or a single value");
    expect(diags("")[0]?.message).toBe("file is empty: a playbook is a YAML mapping");
  });

  it("names the missing field of a nested object with where to add it", () => {
    const d = one(
      withSteps(
        "  - id: d\n    type: decide\n    name: D\n    rules: []\n    fallback: { goto: e }\n" +
          END,
      ),
      "schema-missing-field",
    );
    expect(d.message).toBe("steps[0].fallback: steps[0].fallback needs the field 'conclusion'");
    expect(d.hint).toBe("add 'conclusion:' to steps[0].fallback");
    expect([d.line, d.column]).toEqual([8, 15]);
  });

  it("reports a step without id on the step", () => {
    const d = one(withSteps("  - type: end\n"), "schema-missing-field");
    expect(d.message).toBe("steps[0]: an end step needs the field 'id'");
    expect(span(d)).toEqual([4, 5, 4, 14]);
  });

  it("explains integers and unions in type errors", () => {
    const d = one(`${HEAD}limits: { max_steps: many }\n`, "schema-type");
    expect(d.message).toBe("limits.max_steps: expected an integer, found 'many'");
    expect(d.hint).toBe("write an integer here");
    const u = one(
      withSteps(
        "  - { id: w, type: dispatch, name: W, workflow: x.yml, inputs: { a: [1] } }\n" + END,
      ),
      "schema-type",
    );
    expect(u.message).toBe(
      "steps[0].inputs.a: expected a string or a number or true or false, found a list",
    );
  });

  it("gives the step-kind specific error when type is a const", () => {
    const d = one(`${HEAD}apiVersion: x\n`.replace(HEAD, "id: t\n"), "schema-api-version");
    expect(d.message).toBe("apiVersion: 'x' is not supported (expected 'playbook-bot/v1')");
  });

  it("suggests nothing for a far-off enum value", () => {
    const d = one(`${HEAD}kind: zzzzzz\n`, "schema-value");
    expect(d.message).toBe(
      "kind: 'zzzzzz' is not allowed (expected one of: user_workflow, system_tool)",
    );
    expect(d.hint).toBe("use one of: user_workflow, system_tool");
  });

  it("checks id format on keys and values", () => {
    const key = one(
      `${HEAD}entrypoint: a\nnodes:\n  "no good": { type: end }\n  a: { type: end, name: A }\n`,
      "id-format",
    );
    expect(key.message).toBe("nodes[\"no good\"]: name 'no good' is not a valid id");
    expect(span(key)).toEqual([5, 4, 5, 11]);
    const value = one(withSteps("  - { id: a, type: end, name: A, next: -bad }\n"), "id-format");
    expect(value.message).toBe("steps[0].next: '-bad' is not a valid id");
  });

  it("checks tool format in suggested calls", () => {
    const d = one(
      withSteps(
        "  - id: i\n    type: investigate\n    name: I\n    suggested_calls: [{ tool: list_pods }]\n" +
          END,
      ),
      "tool-format",
    );
    expect(d.message).toBe(
      "steps[0].suggested_calls[0].tool: tool 'list_pods' must be written as server/tool",
    );
    expect(span(d)).toEqual([7, 31, 7, 40]);
  });

  it("checks error policies and their keys", () => {
    const text = withSteps(
      "  - id: a\n    type: end\n    name: A\n    on_error: { default: retry:100, bad_code: fail }\n",
    );
    const value = one(text, "schema-value");
    expect(value.message).toBe(
      "steps[0].on_error.default: 'retry:100' is not an error policy (expected fail, continue, ignore or retry:N)",
    );
    expect(span(value)).toEqual([7, 26, 7, 35]);
    const key = one(text, "schema-format");
    expect(key.message).toBe(
      "steps[0].on_error.bad_code: key 'bad_code' does not match ^(default|[A-Z][A-Z0-9]*(-[A-Z0-9]+)+|[A-Z][a-z][A-Za-z0-9]*)$",
    );
    expect(span(key)).toEqual([7, 37, 7, 45]);
    expect(ofRule(text, "id-format")).toEqual([]);
    const policy = one(
      withSteps("  - { id: a, type: end, name: A, on_error: sometimes }\n"),
      "schema-value",
    );
    expect(policy.hint).toBe("write fail, continue, ignore or retry:3");
  });

  it("reports a next of neither shape as schema-shape", () => {
    const d = one(withSteps("  - { id: a, type: end, name: A, next: 5 }\n"), "schema-shape");
    expect(d.message).toBe("steps[0].next: expected a string or a list, found 5");
    expect(span(d)).toEqual([4, 40, 4, 41]);
  });

  it("reports other patterns and ranges as schema-format", () => {
    const d = one(`${HEAD}requires: { secrets: [lower] }\n`, "schema-format");
    expect(d.message).toBe("requires.secrets[0]: 'lower' does not match ^[A-Z_][A-Z0-9_]*$");
    const range = one(`${HEAD}limits: { max_depth: 99 }\n`, "schema-format");
    expect(range.message).toBe("limits.max_depth: must be <= 50");
  });

  it("reports each problem once", () => {
    const ds = diags(
      withSteps("  - { id: a, type: end, nme: x }\n  - { id: b, type: end, nme: y }\n"),
    );
    expect(ds.map((d) => d.path)).toEqual(["steps[0].nme", "steps[1].nme"]);
    expect(ds[0]?.message).toContain("did you mean 'name'?");
  });
});

describe("graph gate", () => {
  it("needs steps or nodes", () => {
    const d = one(HEAD, "steps-and-nodes");
    expect(d.message).toBe(
      "playbook has no steps: add a steps list or a nodes map with an entrypoint",
    );
    expect([d.line, d.column]).toEqual([1, 1]);
  });

  it("refuses an entrypoint in steps mode and a missing one in nodes mode", () => {
    const d = one(`${HEAD}entrypoint: e\nsteps:\n${END}`, "steps-and-nodes");
    expect(span(d)).toEqual([3, 1, 3, 11]);
    const m = one(`${HEAD}nodes:\n  first: { type: end, name: F }\n`, "entrypoint-unresolved");
    expect(m.message).toBe("a nodes graph needs an entrypoint naming its first node");
    expect(m.hint).toBe("add 'entrypoint: first'");
  });

  it("refuses a node id that differs from its key", () => {
    const d = one(
      `${HEAD}entrypoint: a\nnodes:\n  a: { id: b, type: end, name: A }\n`,
      "step-duplicate-id",
    );
    expect(d.message).toBe("nodes.a.id: id 'b' differs from the node's key 'a'");
    expect(span(d)).toEqual([5, 12, 5, 13]);
  });

  it("reports every malformed branch", () => {
    const text = withSteps(
      [
        "  - id: a",
        "    type: comment",
        "    name: A",
        "    body: x",
        "    next:",
        "      - { goto: e }",
        "      - { when: 'true', default: e }",
        "      - { default: e }",
        "      - { default: e, label: x }",
        "      - { when: 'true' }",
        "",
      ].join("\n") + END,
    );
    const empty = ofRule(text, "branch-empty");
    expect(empty.map((d) => [d.line, d.message])).toEqual([
      [9, "steps[0].next[0]: a branch needs when:, condition: or default:"],
      [
        10,
        "steps[0].next[1]: a branch has one of when:, condition: or default:, not when and default",
      ],
      [12, "steps[0].next[3]: a step has one default branch only"],
      [12, "steps[0].next[3]: a default branch names its target itself: { default: <step> }"],
    ]);
    const goto = one(text, "goto-unresolved");
    expect(goto.message).toBe("steps[0].next[4]: the branch has no goto");
    expect([goto.line, goto.column]).toEqual([13, 9]);
  });

  it("reports when and condition mixed in one step", () => {
    const d = one(
      withSteps(
        "  - id: a\n    type: comment\n    name: A\n    body: x\n    next:\n      - { when: 'true', goto: e }\n      - { condition: maybe, goto: e }\n" +
          END,
      ),
      "branch-mixed",
    );
    expect(d.message).toBe("steps[0].next: step 'a' mixes when: expressions and condition: prose");
    expect([d.line, d.column]).toEqual([9, 7]);
  });

  it("uses the goto as the default label of prose branches", () => {
    const d = one(
      withSteps(
        "  - id: a\n    type: comment\n    name: A\n    body: x\n    next:\n      - { condition: one, goto: e }\n      - { condition: two, goto: e }\n" +
          END,
      ),
      "branch-duplicate-label",
    );
    expect(d.message).toBe(
      "steps[0].next[1]: '/choose e' would be ambiguous: branch 0 has the same label",
    );
  });

  it("refuses next on a handoff step and needs next on a delegating node", () => {
    const d = one(
      withSteps(
        "  - { id: h, type: playbook, name: H, playbook: x, mode: handoff, next: e }\n" + END,
      ),
      "handoff-not-terminal",
    );
    expect(d.message).toBe("steps[0].next: a handoff ends this run, so it cannot have next");
    expect(span(d)).toEqual([4, 67, 4, 71]);
  });

  it("reports unreachable nodes on their key", () => {
    const d = one(
      `${HEAD}entrypoint: a\nnodes:\n  a: { type: end, name: A }\n  lost: { type: end, name: L }\n`,
      "unreachable",
    );
    expect(span(d)).toEqual([6, 3, 6, 7]);
    expect(d.hint).toBe("add a branch that targets it or remove it");
  });

  it("does not report terminal-missing when a target is unresolved", () => {
    const text = withSteps("  - { id: a, type: comment, name: A, body: x, next: nowhere }\n");
    expect(errorRules(text)).toEqual(["goto-unresolved"]);
  });

  it("does not flag a correctly ordered decision table", () => {
    const text = withSteps(
      [
        "  - { id: look, type: investigate, name: L, expected_findings: [oom, deploy, disk] }",
        "  - id: decide",
        "    type: decide",
        "    name: D",
        "    rules:",
        "      - { id: both, all: [oom, deploy], conclusion: regression }",
        "      - { id: oom, all: [oom], conclusion: memory }",
        "      - { id: oom-no-disk, all: [oom], none: [disk], conclusion: x }",
        "      - { id: impossible, all: [disk], none: [disk], conclusion: y }",
        "      - { id: disk-any, any: [disk, deploy], conclusion: z }",
        "      - { id: disk-only, all: [disk], conclusion: w }",
        "",
      ].join("\n") + END,
    );
    const shadowed = ofRule(text, "rule-shadowed");
    // oom-no-disk is shadowed by oom; disk-only by disk-any (any of its all); impossible never matches anyway.
    expect(shadowed.map((d) => d.message)).toEqual([
      "steps[1].rules[2]: rule 'oom-no-disk' can never match: rule 'oom' above it matches whenever it does (first match wins)",
      "steps[1].rules[5]: rule 'disk-only' can never match: rule 'disk-any' above it matches whenever it does (first match wins)",
    ]);
    const ordered = withSteps(
      "  - { id: look, type: investigate, name: L, expected_findings: [oom, deploy] }\n  - id: decide\n    type: decide\n    name: D\n    rules:\n      - { id: both, all: [oom, deploy], conclusion: a }\n      - { id: oom, all: [oom], conclusion: b }\n      - { id: other, any: [deploy], none: [oom], conclusion: c }\n" +
        END,
    );
    expect(diags(ordered)).toEqual([]);
  });

  it("reports a repeated rule id", () => {
    const d = one(
      withSteps(
        "  - { id: l, type: investigate, name: L, expected_findings: [a, b] }\n  - id: d\n    type: decide\n    name: D\n    rules:\n      - { id: r, all: [a], conclusion: x }\n      - { id: r, all: [b], conclusion: y }\n" +
          END,
      ),
      "step-duplicate-id",
    );
    expect(d.message).toBe("steps[1].rules[1].id: rule id 'r' is already used by rules[0]");
  });

  it("does not warn about findings when a child playbook is delegated to", () => {
    const text = withSteps(
      "  - { id: c, type: playbook, name: C, playbook: x, mode: delegate }\n  - id: d\n    type: decide\n    name: D\n    rules:\n      - { id: r, all: [child_finding], conclusion: x }\n" +
        END,
    );
    expect(ofRule(text, "finding-unknown")).toEqual([]);
  });

  it("reports an on_timeout target that does not exist", () => {
    const d = one(
      withSteps(
        "  - { id: c, type: checkpoint, name: C, message: m, timeout: 1h, on_timeout: nowhere }\n" +
          END,
      ),
      "checkpoint-target",
    );
    expect(d.message).toBe("steps[0].on_timeout: 'nowhere' names no step");
  });
});

describe("inputs gate", () => {
  const input = (spec: string, use = true): string =>
    `${HEAD}inputs:\n  x: ${spec}\nsteps:\n  - { id: e, type: end, name: E${use ? ', advice: "{{ inputs.x }}"' : ""} }\n`;
  const msgs = (text: string, rule: Parameters<typeof ofRule>[1]): string[] =>
    ofRule(text, rule).map((d) => d.message);

  it.each([
    ["{ type: number, default: '3' }", "inputs.x.default: default '3' is not a number"],
    ["{ type: number, default: 30, max: 10 }", "inputs.x.default: default 30 is outside min/max"],
    ["{ type: number, default: 1, min: 5 }", "inputs.x.default: default 1 is outside min/max"],
    ["{ type: boolean, default: 'yes' }", "inputs.x.default: default 'yes' is not true or false"],
    ["{ type: string, default: 5 }", "inputs.x.default: default 5 is not a string"],
    [
      "{ type: string, pattern: '^[a-z]+$', default: ABC }",
      "inputs.x.default: default 'ABC' does not match the input's pattern",
    ],
    [
      "{ type: string, max: 3, default: abcdef }",
      "inputs.x.default: default 'abcdef' has a length outside min/max",
    ],
    [
      "{ type: string, min: 3, default: ab }",
      "inputs.x.default: default 'ab' has a length outside min/max",
    ],
    [
      "{ type: enum, values: [a], default: 1 }",
      "inputs.x.default: default 1 is not one of the values (a)",
    ],
  ])("input-default: %s", (spec, message) => {
    expect(msgs(input(spec), "input-default")).toEqual([message]);
  });

  it("accepts fitting defaults, and templated string defaults unchecked", () => {
    expect(diags(input("{ type: number, default: 5, min: 1, max: 9 }"))).toEqual([]);
    expect(diags(input("{ type: boolean, default: false }"))).toEqual([]);
    expect(
      diags(input("{ type: string, pattern: '^[a-z]+$', default: abc, min: 1, max: 5 }")),
    ).toEqual([]);
    expect(
      diags(
        `${HEAD}inputs:\n  y: { type: string }\n  x: { type: string, pattern: '^[a-z]+$', default: "{{ inputs.y }}" }\nsteps:\n  - { id: e, type: end, name: E, advice: "{{ inputs.x }}" }\n`,
      ),
    ).toEqual([]);
  });

  it("points input-default at the default value", () => {
    const d = one(input("{ type: number, default: '3' }"), "input-default");
    expect(span(d)).toEqual([4, 32, 4, 33]);
  });

  it.each([
    ["{ type: enum }", "inputs.x: an enum input needs values:"],
    [
      "{ type: string, values: [a] }",
      "inputs.x.values: values: only applies to enum inputs, not string",
    ],
    [
      "{ type: number, pattern: x }",
      "inputs.x.pattern: pattern: only applies to string inputs, not number",
    ],
    [
      "{ type: number, transform: kebab-case }",
      "inputs.x.transform: transform: only applies to string inputs, not number",
    ],
    ["{ type: boolean, min: 1 }", "inputs.x: min/max do not apply to boolean inputs"],
    [
      "{ type: string, required: true, default: a }",
      "inputs.x.required: a required input with a default is never missing",
    ],
    ["{ type: string, from: env.HOME }", "inputs.x.from: from: 'env.HOME' is not a known source"],
  ])("input-shape: %s", (spec, message) => {
    expect(msgs(input(spec), "input-shape")).toEqual([message]);
  });

  it("accepts known input sources", () => {
    for (const from of [
      "labels.ns",
      "annotations.summary",
      "issue.form.Package",
      "alert.service",
      "issue.title",
    ])
      expect(diags(input(`{ type: string, from: ${from} }`))).toEqual([]);
  });

  it("rejects a lookahead and a backreference, which RE2 cannot run", () => {
    const look = one(input("{ type: string, pattern: 'a(?=b)' }"), "regex-invalid");
    expect(look.message).toBe(
      "inputs.x.pattern: pattern 'a(?=b)' does not compile: invalid or unsupported Perl syntax: `(?=`",
    );
    expect(look.hint).toBe("write an RE2 expression: no backreferences or lookarounds");
    const back = one(input(String.raw`{ type: string, pattern: '(a)\1' }`), "regex-invalid");
    expect(back.message).toContain("invalid escape sequence: `\\1`");
  });

  it("checks alert selector signals and matchers", () => {
    const text = yaml`
      apiVersion: playbook-bot/v1
      id: t
      on:
        alerts:
          match: { service: "=~(?!x)", team: "!~ok", env: prod }
          signals:
            positive: [{ pattern: '(a)\1', weight: 0, regex: true }, { pattern: ok, weight: 1 }]
            negative: [{ pattern: 'a(?<=b)', weight: 1, regex: true }, { pattern: ok, weight: -1 }]
      steps:
        - { id: e, type: end, name: E }
    `;
    expect(ofRule(text, "regex-invalid").map((d) => d.path)).toEqual([
      "on.alerts.match.service",
      "on.alerts.signals.positive[0].pattern",
      "on.alerts.signals.negative[0].pattern",
    ]);
    expect(msgs(text, "input-shape")).toEqual([
      "on.alerts.signals.positive[0].weight: a positive signal needs a weight above 0, not 0",
      "on.alerts.signals.negative[0].weight: a negative signal needs a weight below 0, not 1",
    ]);
  });

  it("compiles response schemas with ajv on RE2", () => {
    const cp = (schema: string): string =>
      withSteps(
        `  - { id: c, type: checkpoint, name: C, message: m, response_schema: ${schema} }\n` + END,
      );
    expect(diags(cp("{ type: object, properties: { n: { type: integer } } }"))).toEqual([]);
    expect(
      msgs(cp("{ type: object, properties: { n: { type: intgr } } }"), "response-schema")[0],
    ).toMatch(/^steps\[0\]\.response_schema: not a valid JSON Schema: /);
    expect(
      msgs(
        cp("{ type: object, properties: { n: { type: string, pattern: 'a(?=b)' } } }"),
        "response-schema",
      )[0],
    ).toContain("invalid pattern");
  });
});

describe("reference gate", () => {
  const body = (text: string, extra = "", before = ""): string =>
    withSteps(`${before}  - { id: a, type: comment, name: A, body: "${text}" }\n` + END, extra);
  const unresolved = (text: string, extra = "", before = ""): string[] =>
    ofRule(body(text, extra, before), "template-unresolved").map((d) => d.message);

  it.each([
    ["{{ inputs.a.b }}", "steps[0].body: '{{ inputs.a.b }}' names no declared input"],
    ["{{ findings }}", "steps[0].body: '{{ findings }}' is not a finding; write findings.<key>"],
    ["{{ steps.nope.outputs.x }}", "steps[0].body: '{{ steps.nope.outputs.x }}' names no step"],
    [
      "{{ steps.e.id }}",
      "steps[0].body: '{{ steps.e.id }}' must name one output: steps.e.outputs.<name>",
    ],
    [
      "{{ issue.numbr }}",
      "steps[0].body: '{{ issue.numbr }}' is not a known issue field (known: number, title, url, author) — did you mean 'number'?",
    ],
    [
      "{{ isue.number }}",
      "steps[0].body: '{{ isue.number }}' names nothing a template can use — did you mean 'issue'?",
    ],
    ["{{ zzzzzz }}", "steps[0].body: '{{ zzzzzz }}' names nothing a template can use"],
  ])("template-unresolved: %s", (text, message) => {
    expect(unresolved(text)).toEqual([message]);
  });

  it("accepts context variables and alert maps", () => {
    expect(
      diags(
        body("{{ issue.number }} {{ repo.full_name }} {{ run.url }} {{ alert.labels.service }}"),
      ),
    ).toEqual([]);
  });

  it("names the outputs a step kind has", () => {
    const text = body("{{ steps.b.outputs.nam }}", "", "  - { id: b, type: branch, name: x/y }\n");
    expect(ofRule(text, "template-unresolved").map((d) => d.message)).toEqual([
      "steps[1].body: a branch step has no output 'nam' (it has: name, sha, url, created) — did you mean 'name'?",
    ]);
    const none = body(
      "{{ steps.e.outputs.x }}".replace("steps.e", "steps.i"),
      "",
      "  - { id: i, type: investigate, name: I }\n",
    );
    expect(ofRule(none, "template-unresolved")[0]?.message).toBe(
      "steps[1].body: a investigate step has no output 'x' (it has: results, chosen)",
    );
  });

  it("allows a checkpoint's response fields and approver outputs", () => {
    const before =
      "  - { id: c, type: checkpoint, name: C, message: m, response_schema: { type: object, properties: { reason: { type: string } } } }\n";
    expect(
      diags(body("{{ steps.c.outputs.reason }} by {{ steps.c.outputs.approved_by }}", "", before)),
    ).toEqual([]);
    expect(unresolved("{{ steps.c.outputs.other }}", "", before)[0]).toContain(
      "(it has: approved_by, note, reason)",
    );
  });

  it("warns about findings nobody expects, in templates too", () => {
    const d = one(body("{{ findings.mystery }}"), "finding-unknown");
    expect(d.severity).toBe("warning");
    expect(d.message).toBe("steps[0].body: finding 'mystery' is used but no step expects it");
  });

  it("reports a step using its own output", () => {
    const d = one(
      withSteps('  - { id: a, type: comment, name: A, body: "{{ steps.a.outputs.url }}" }\n' + END),
      "template-order",
    );
    expect(d.message).toBe("steps[0].body: step 'a' uses its own output before it has run");
  });

  it("allows a when branch to read its own step's outputs, but not an if", () => {
    const text = withSteps(
      "  - id: a\n    type: comment\n    name: A\n    body: x\n    if: \"steps.a.outputs.url != ''\"\n    next: [{ when: \"steps.a.outputs.url != ''\", goto: e }]\n" +
        END,
    );
    expect(ofRule(text, "template-order").map((d) => d.path)).toEqual(["steps[0].if"]);
  });

  it("reports an output used on a branch where its step did not always run", () => {
    const text = withSteps(
      [
        "  - id: a",
        "    type: comment",
        "    name: A",
        "    body: x",
        "    next: [{ when: 'issue.number > 1', goto: c }]",
        "  - { id: b, type: branch, name: x/y }",
        '  - { id: c, type: comment, name: C, body: "{{ steps.b.outputs.name }}" }',
        "",
      ].join("\n") + END,
    );
    const d = one(text, "template-order");
    expect(d.message).toBe(
      "steps[2].body: '{{ steps.b.outputs.name }}' is used in step 'c', but step 'b' does not always run before it",
    );
    expect([d.line, d.column]).toEqual([10, 45]);
  });

  it("warns when playbook outputs read a step that not every run passes", () => {
    const text =
      withSteps(
        "  - { id: a, type: comment, name: A, body: x, next: [{ when: 'true', goto: e }] }\n  - { id: b, type: branch, name: x/y }\n" +
          END,
        "",
      ) +
      'outputs:\n  branch: "{{ steps.b.outputs.name }}"\n  comment: "{{ steps.a.outputs.url }}"\n';
    const d = one(text, "template-conditional");
    expect(d.message).toBe(
      "outputs.branch: '{{ steps.b.outputs.name }}' has no value when the run ends without passing step 'b'",
    );
    expect([d.line, d.column]).toEqual([8, 12]);
  });

  it("checks input defaults that name other inputs", () => {
    const text = yaml`
      apiVersion: playbook-bot/v1
      id: t
      inputs:
        a: { type: string, default: "{{ inputs.b }}" }
        b: { type: string, default: "{{ inputs.a }}" }
        c: { type: string, default: "{{ issue.title }}" }
        d: { type: string, default: "{{ x | y }}" }
      steps:
        - { id: e, type: end, name: E, advice: "{{ inputs.a }}{{ inputs.b }}{{ inputs.c }}{{ inputs.d }}" }
    `;
    expect(ofRule(text, "template-unresolved").map((d) => d.message)).toEqual([
      "inputs.a.default: the default of 'a' depends on itself",
      "inputs.b.default: the default of 'b' depends on itself",
      "inputs.c.default: an input default can only name other inputs, not '{{ issue.title }}'",
    ]);
    expect(ofRule(text, "template-syntax").map((d) => d.path)).toEqual(["inputs.d.default"]);
  });

  it("reports expression syntax with the character position", () => {
    const d = one(
      withSteps(
        "  - { id: a, type: comment, name: A, body: x, next: [{ when: 'inputs.x === 1', goto: e }] }\n" +
          END,
      ),
      "expression-syntax",
    );
    expect(d.message).toBe(
      "steps[0].next[0].when: unexpected character '=' at character 12 of 'inputs.x === 1'",
    );
  });
});

describe("steps gate", () => {
  it.each([
    ["../x", "it leaves the repository with '..'"],
    ["/etc/passwd", "it is absolute"],
    [".git/config", "it touches .git"],
    ["a//b", "it is not normalised (remove './' and '//')"],
  ])("path-unsafe for a commit file path %s", (path, problem) => {
    const d = one(
      withSteps(
        `  - { id: c, type: commit, name: C, branch: main, message: m, files: [{ path: "${path}", content: x }] }\n` +
          END,
      ),
      "path-unsafe",
    );
    expect(d.message).toBe(`steps[0].files[0].path: path '${path}' is unsafe: ${problem}`);
    expect([d.line, d.column]).toEqual([4, 80]);
  });

  it("checks globs of local commits and expected files of ai steps", () => {
    const text = withSteps(
      "  - { id: c, type: commit, name: C, branch: main, message: m, paths: ['docs/**', '../**'] }\n  - { id: a, type: ai, name: A, prompt: p, expect_files: ['.git/x', 'out/{{ inputs.n }}.md'] }\n" +
        END,
      "inputs: { n: { type: string } }\n",
    );
    expect(ofRule(text, "path-unsafe").map((d) => d.message)).toEqual([
      "steps[0].paths[1]: path '../**' is unsafe: it leaves the repository with '..'",
      "steps[1].expect_files[0]: path '.git/x' is unsafe: it touches .git",
    ]);
  });

  it("checks file shapes and template files", () => {
    const text = withSteps(
      "  - { id: c, type: commit, name: C, branch: main, message: m, files: [{ path: a, content: x, template: t.md }, { path: b, template: C:/t.md }] }\n" +
        END,
    );
    expect(ofRule(text, "step-shape").map((d) => d.message)).toEqual([
      "steps[0].files[0]: a file needs exactly one of content: or template:",
    ]);
    expect(ofRule(text, "path-unsafe").map((d) => d.message)).toEqual([
      "steps[0].files[1].template: 'C:/t.md' is absolute; file references are relative to the playbook file",
    ]);
    const seen: [string, string][] = [];
    validateSource("dir/pb.yaml", text, { fileExists: (f, rel) => (seen.push([f, rel]), true) });
    expect(seen).toEqual([["dir/pb.yaml", "t.md"]]);
  });

  it.each([
    ["feature..x", "is not a valid git ref: it contains '..'"],
    ["-x", "is not a valid git ref: it starts with '-'"],
    ["x.lock", "is not a valid git ref: it ends with '.lock'"],
    ["fix/{{ inputs.n }} now", 'can never be a valid git ref: it contains " "'],
  ])("ref-invalid for branch %s", (name, problem) => {
    const d = one(
      withSteps(
        `  - { id: b, type: branch, name: "${name}", description: B }\n` + END,
        "inputs: { n: { type: string } }\n",
      ),
      "ref-invalid",
    );
    expect(d.message).toBe(`steps[0].name: branch name '${name}' ${problem}`);
  });

  it("accepts templated branch names whose literal parts are fine", () => {
    expect(
      diags(
        withSteps(
          '  - { id: b, type: branch, description: B, name: "fix/{{ inputs.n }}" }\n' + END,
          "inputs: { n: { type: string } }\n",
        ),
      ),
    ).toEqual([]);
  });

  it("checks ai, label and checkpoint shapes", () => {
    const text = withSteps(
      [
        "  - { id: a, type: ai, name: A }",
        "  - { id: b, type: ai, name: B, prompt: p, prompt_file: p.md }",
        "  - { id: l, type: label, name: L }",
        "  - { id: c, type: checkpoint, name: C, message: m, approvers: { users: [a], teams: [t], count: 3 } }",
        "",
      ].join("\n") + END,
    );
    expect(ofRule(text, "step-shape").map((d) => d.message)).toEqual([
      "steps[0]: an ai step needs exactly one of prompt: or prompt_file:",
      "steps[1]: an ai step needs exactly one of prompt: or prompt_file:",
      "steps[2]: a label step needs add: or remove:",
    ]);
  });

  it("accepts a write-scope ai step behind a checkpoint or with ask-first", () => {
    const gated = withSteps(
      "  - { id: ok, type: checkpoint, name: OK, message: go? }\n  - { id: a, type: ai, name: A, prompt: p, scope: write }\n" +
        END,
    );
    expect(diags(gated)).toEqual([]);
    const ask = withSteps(
      "  - { id: a, type: ai, name: A, prompt: p, scope: write, authority: ask-first }\n" + END,
    );
    expect(diags(ask)).toEqual([]);
    const side = withSteps(
      "  - { id: x, type: comment, name: X, body: b, next: [{ when: 'true', goto: a }] }\n  - { id: ok, type: checkpoint, name: OK, message: go? }\n  - { id: a, type: ai, name: A, prompt: p, scope: write }\n" +
        END,
    );
    expect(errorRules(side)).toEqual(["ai-write-unapproved"]);
  });
});

describe("set gate", () => {
  const pb = (id: string, steps: string, extra = ""): string =>
    `apiVersion: playbook-bot/v1\nid: ${id}\n${extra}steps:\n${steps}`;
  const run = (files: Record<string, string>, known: Parameters<typeof validateSet>[1] = {}) =>
    validateSet(
      Object.entries(files).map(([file, source]) => ({ file, source })),
      known,
    ).flatMap((r) =>
      r.diagnostics.map((d) => `${r.file}:${d.line}:${d.column} ${d.rule} ${d.message}`),
    );

  it("reports a required child input that is not mapped", () => {
    expect(
      run({
        "p.yaml": pb(
          "p",
          "  - { id: c, type: playbook, name: C, playbook: k, mode: delegate }\n" + END,
        ),
        "k.yaml": pb(
          "k",
          END,
          "inputs: { ns: { type: string, required: true }, opt: { type: string, required: true, default: x } }\n".replace(
            ", required: true, default: x",
            ", default: x",
          ),
        ),
      }),
    ).toEqual([
      "p.yaml:4:49 set-inputs steps[0].playbook: 'k' needs the input 'ns', which is not mapped in with:",
      "k.yaml:3:11 input-unused inputs.ns: input 'ns' is declared but never used",
      "k.yaml:3:49 input-unused inputs.opt: input 'opt' is declared but never used",
    ]);
  });

  it("skips set checks for files that failed earlier layers", () => {
    expect(run({ "a.yaml": "id: [\n", "b.yaml": pb("b", END) })).toEqual([
      "a.yaml:2:1 yaml-syntax deficient indentation",
    ]);
  });

  it("resolves delegation through a child that delegates in turn, within the depth", () => {
    const files = {
      "a.yaml": pb(
        "a",
        "  - { id: c, type: playbook, name: C, playbook: b, mode: delegate }\n" + END,
      ),
      "b.yaml": pb(
        "b",
        "  - { id: c, type: playbook, name: C, playbook: c, mode: delegate }\n" + END,
      ),
      "c.yaml": pb(
        "c",
        "  - { id: x, type: comment, name: X, body: b, next: [{ when: 'true', goto: h }] }\n" +
          END +
          "  - { id: h, type: playbook, name: H, playbook: a, mode: handoff }\n",
      ),
    };
    expect(run(files)).toEqual([]);
  });

  it("reports a cycle once, and a handoff-only child of a delegate", () => {
    const files = {
      "a.yaml": pb(
        "a",
        "  - { id: c, type: playbook, name: C, playbook: a, mode: delegate }\n" + END,
      ),
      "h.yaml": pb(
        "h",
        "  - { id: x, type: playbook, name: X, playbook: only-handoff, mode: delegate }\n" + END,
      ),
      "o.yaml": pb(
        "only-handoff",
        "  - { id: x, type: playbook, name: X, playbook: a, mode: handoff }\n",
      ),
    };
    expect(run(files)).toEqual([
      "a.yaml:4:49 set-delegation-cycle steps[0].playbook: delegation cycle: a → a",
      "h.yaml:4:49 set-delegate-terminal steps[0].playbook: 'only-handoff' has no terminal that returns: every way it ends hands off",
    ]);
  });

  it("counts an end step that names playbooks to go on with as a handoff, and one without as a return", () => {
    const child = (id: string, end: string) =>
      pb(
        id,
        `  - { id: x, type: comment, name: X, body: b }\n  - { id: e, type: end, name: E${end} }\n`,
      );
    const files = {
      "p.yaml": pb(
        "p",
        "  - { id: a, type: playbook, name: A, playbook: hands-off, mode: delegate }\n" +
          "  - { id: b, type: playbook, name: B, playbook: returns, mode: delegate }\n" +
          END,
      ),
      "h.yaml": child("hands-off", ", handoff: [p]"),
      "r.yaml": child("returns", ""),
    };
    expect(run(files)).toEqual([
      "p.yaml:4:49 set-delegate-terminal steps[0].playbook: 'hands-off' has no terminal that returns: every way it ends hands off",
    ]);
  });
});

describe("on_error goto", () => {
  const text = (policy: string) => yaml`
    apiVersion: playbook-bot/v1
    id: t
    steps:
      - id: act
        type: comment
        description: Act.
        body: hi
        on_error: ${policy}
      - id: fin
        type: end
        description: Done.
      - id: rescue
        type: end
        description: Rescued.
        status: failure
  `;

  it("a target that names no step is reported at the policy; a named target is reachable", () => {
    const goto = one(text("goto:nowhere"), "goto-unresolved");
    expect(goto.message).toContain("'nowhere' names no step");
    expect(errorRules(text("{ GH-CONFLICT: goto:rescue }"))).toEqual([]);
    expect(errorRules(text("continue"))).toEqual(["unreachable"]);
  });
});
