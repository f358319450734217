import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dialectOf, isDialectPart, type Siblings } from "../../../src/core/dialects/index.js";
import { collectInputs, parseIssueForm } from "../../../src/core/engine/inputs.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { defaultRules, rulesOfNormalization } from "../../../src/core/dialects/runbook/evidence.js";
import type { FindingRule } from "../../../src/core/steps/investigate/findings.js";

const ROOT = join(import.meta.dirname, "../../..");
const SPEC = join(ROOT, "test/fixtures/dialects/runbook");
const RUNBOOKS = join(SPEC, "runbooks");
const NAMES = ["request_not_effective", "cache_stale", "state_abnormal"];

const read = (rel: string) => readFileSync(join(SPEC, rel), "utf8");

/** The spec's folders on disk (runbooks/, adapters/, …) with some files replaced or added. */
function specSiblings(replaced: Record<string, string | undefined> = {}): Siblings {
  return {
    read(relativePath) {
      if (relativePath in replaced) return replaced[relativePath];
      try {
        return readFileSync(join(RUNBOOKS, relativePath), "utf8");
      } catch {
        return undefined;
      }
    },
  };
}

function load(name: string, text?: string, replaced: Record<string, string | undefined> = {}) {
  const file = `runbooks/${name}.yaml`;
  return validateSource(file, text ?? read(file), { siblings: specSiblings(replaced) });
}

const errors = (r: ReturnType<typeof load>) => r.diagnostics.filter((d) => d.severity === "error");
const stepsOf = (r: ReturnType<typeof load>) =>
  (r.playbook as unknown as { steps: Record<string, unknown>[] }).steps;
const lineOf = (text: string, needle: string) =>
  text.split("\n").findIndex((l) => l.includes(needle)) + 1;

/** The smallest runbook the spec's check accepts, with its three sidecars. */
const MINIMAL = `name: mini
match:
  context_types: [order_id]
steps:
  - id: row
    tool: db.readonly_query
    required: true
    params:
      table: orders
output:
  schema: incident_report
  require_evidence: true
`;
const sidecars = (over: Partial<Record<"selector" | "execution" | "decision", unknown>> = {}) => ({
  "mini.selector.json": JSON.stringify(
    over.selector ?? {
      name: "mini",
      priority: 1,
      context_types: ["order_id"],
      positive_signals: [{ pattern: "missing", weight: 2 }],
      negative_signals: [],
    },
    null,
    2,
  ),
  "mini.execution.json": JSON.stringify(
    over.execution ?? { name: "mini", operations: ["db.readonly_query"] },
    null,
    2,
  ),
  "mini.decision.json": JSON.stringify(
    over.decision ?? {
      name: "mini",
      rules: [
        {
          id: "gone",
          all: ["db_row_missing"],
          conclusion: "row_missing",
          confidence: 0.8,
          root_cause: "The row was never written.",
          recommended_next_actions: ["Check the writer."],
        },
      ],
      fallback: { id: "fallback", conclusion: "investigation_inconclusive", confidence: 0.4 },
    },
    null,
    2,
  ),
});

describe("runbook-spec runbooks load as written", () => {
  it("every real runbook validates with no error, merged with its sidecars", () => {
    for (const name of NAMES) {
      const r = load(name);
      expect(r.dialect, name).toBe("runbook");
      expect(errors(r), `${name}: ${JSON.stringify(r.diagnostics, null, 1)}`).toEqual([]);
      expect(r.playbook?.id).toBe(name);
    }
  });

  it("the YAML's rules in the wrong order are a drift at their place, the sidecar's order is used", () => {
    const r = load("request_not_effective");
    const text = read("runbooks/request_not_effective.yaml");
    const drift = r.diagnostics.find(
      (d) => d.rule === "dialect-drift" && d.message.includes("'cache_short_circuit'"),
    );
    expect(drift).toMatchObject({
      severity: "warning",
      line: lineOf(text, "- id: cache_short_circuit"),
      column: 5,
    });
    expect(drift?.message).toContain("request_not_effective.decision.json");
    const decide = stepsOf(r).find((s) => s.type === "decide") as { rules: { id: string }[] };
    expect(decide.rules.map((x) => x.id)).toEqual([
      "cache_short_circuit",
      "trace_missing",
      "not_persisted",
    ]);
  });

  it("converts the selector, the incident inputs, the limits and each step's call", () => {
    const r = load("request_not_effective");
    const pb = r.playbook as unknown as Record<string, Record<string, unknown>>;
    expect(pb.inputs?.context_type).toMatchObject({
      type: "enum",
      values: ["request_id", "order_id"],
      required: true,
    });
    expect(pb.inputs?.context_id).toMatchObject({ type: "string", required: true });
    expect(pb.limits).toEqual({ max_steps: 8, max_tool_calls: 12 });
    expect(pb.tags).toEqual({
      symptoms: [
        "request succeeded but expected side effect is missing",
        "order created but downstream task missing",
      ],
    });
    const alerts = pb.on?.alerts as Record<string, unknown>;
    expect(alerts.context_types).toEqual(["request_id", "order_id"]);
    expect(pb.on?.issues).toEqual(alerts);
    const verify = stepsOf(r).find((s) => s.id === "verify_main_persistence");
    expect(verify).toMatchObject({
      type: "investigate",
      description:
        "confirm whether the expected downstream persistence actually happened — it reports one of: db_row_found, db_row_missing.",
      suggested_calls: [
        {
          tool: "db/readonly_query",
          run: "auto",
          required: true,
          purpose: "confirm whether the expected downstream persistence actually happened",
          args: {
            // The map wins over the plain value, which wins over the spec's default.
            table:
              "{% if inputs.context_type == 'request_id' %}orders{% elif inputs.context_type == 'order_id' %}tasks{% else %}orders{% endif %}",
          },
        },
      ],
    });
    const cache = stepsOf(r).find((s) => s.id === "inspect_idempotency_cache") as {
      suggested_calls: { args: Record<string, string> }[];
    };
    expect(cache.suggested_calls[0]?.args.key).toContain("idempotency:{{ inputs.context_id }}");
    const decide = stepsOf(r).find((s) => s.type === "decide");
    expect(decide).toMatchObject({ require_evidence: true });
    expect(decide?.confirmed_facts).toContainEqual({
      finding: "trace_missing",
      text: "No matching trace was found for the provided incident locator.",
    });
    expect(stepsOf(r).at(-1)).toMatchObject({ type: "end" });
  });

  it("an alert's labels or an issue's form name the incident the runbook investigates", () => {
    const specs = load("cache_stale").playbook?.inputs;
    expect(
      collectInputs(specs, {
        alert: { labels: { context_id: "o-1", context_type: "order_id" } },
      } as never),
    ).toMatchObject({ context_id: "o-1", context_type: "order_id" });
    expect(
      collectInputs(specs, {
        form: parseIssueForm("### Context ID\n\nt-9\n\n### Context type\n\ntask_id\n"),
        issue: { title: "cache appears stale", body: "should show paid" },
      } as never),
    ).toEqual({
      context_id: "t-9",
      context_type: "task_id",
      symptom: "cache appears stale",
      expected: "should show paid",
    });
  });

  it("a rule on status_mismatch keeps it, and the decision derives it from the two statuses", () => {
    const decide = stepsOf(load("cache_stale")).find((s) => s.type === "decide") as {
      rules: { id: string; all?: string[] }[];
      derive?: { finding: string; when: string }[];
    };
    expect(decide.rules[0]).toMatchObject({
      id: "cache_db_mismatch",
      all: ["cache_key_exists", "status_mismatch"],
    });
    // The evidence policy's one rule: the cached status and the persisted one differ.
    expect(decide.derive).toEqual([
      {
        finding: "status_mismatch",
        when: "findings.redis_status and findings.db_status and findings.redis_status != findings.db_status",
      },
    ]);
  });

  it("each call reads its raw answer as its adapter's normalization file says", () => {
    const calls = Object.fromEntries(
      stepsOf(load("cache_stale")).flatMap((s) => {
        const call = (
          s.suggested_calls as { tool: string; findings?: unknown[] }[] | undefined
        )?.[0];
        return call ? [[call.tool, call.findings]] : [];
      }),
    );
    expect(calls["redis/inspect"]).toEqual([
      { finding: "cache_key_exists", when: "result.exists" },
      { finding: "cache_key_missing", when: "not result.exists" },
      {
        finding: "cache_ttl_positive",
        when: "(result.exists == true) and (result.ttl_seconds > 0)",
      },
      { finding: "redis_status", when: "result.ok", value: "result.value_preview.status" },
    ]);
    expect(calls["db/readonly_query"]).toEqual([
      { finding: "db_row_found", each: "result.rows", when: "item" },
      { finding: "db_row_missing", each: "result.rows", when: "not item" },
      { finding: "db_status", each: "result.rows", when: "result.ok", value: "item.0.status" },
    ]);
    expect(calls["trace/lookup"]).toEqual([
      { finding: "trace_found", when: "result.ok == true" },
      { finding: "trace_missing", when: "result.ok == false" },
    ]);
  });

  it("without the adapters beside it, a runbook reads answers as the spec's own files do", () => {
    for (const prefix of readdirSync(join(SPEC, "adapters")))
      for (const name of readdirSync(join(SPEC, "adapters", prefix))) {
        const tool = name.replace(".normalization.json", "");
        const own = rulesOfNormalization(JSON.parse(read(`adapters/${prefix}/${name}`)));
        const standIn = defaultRules(tool)!;
        // The same findings under the same conditions (parenthesised or not).
        const plain = (rules: FindingRule[]) =>
          rules.map((r) => ({ ...r, ...(r.when ? { when: r.when.replace(/[()]/g, "") } : {}) }));
        expect(plain(standIn), tool).toEqual(plain(own!));
      }
    expect(defaultRules("kafka.inspect")).toBeUndefined();
  });

  it("a normalization file in another form is unmapped at the call, whose answer reports itself", () => {
    const r = load("cache_stale", undefined, {
      "../adapters/redis/redis.inspect.normalization.json": JSON.stringify({ rules: [] }),
    });
    const found = r.diagnostics.filter((d) => d.rule === "dialect-unmapped");
    expect(found.map((d) => d.message)).toEqual([
      expect.stringContaining("the normalization file of redis.inspect is in none of the forms"),
    ]);
    const redis = stepsOf(r).find((s) => s.id === "inspect_cache_key") as {
      suggested_calls: { findings?: { finding: string }[] }[];
    };
    // Only what the derivation needs of it.
    expect(redis.suggested_calls[0]!.findings?.map((f) => f.finding)).toEqual(["redis_status"]);
  });

  it("the evidence policy names what is derived; a runbook without a cache call derives nothing", () => {
    const policy = JSON.stringify({ rules: [{ emit: { finding_type: "state_conflict" } }, 3] });
    const decideOf = (r: ReturnType<typeof load>) =>
      stepsOf(r).find((s) => s.type === "decide") as { derive?: { finding: string }[] };
    const r = load("state_abnormal", undefined, {
      "../evidence-policies/derived-evidence.json": policy,
    });
    expect(decideOf(r).derive?.map((d) => d.finding)).toEqual(["state_conflict"]);
    const none = load("state_abnormal", undefined, {
      "../evidence-policies/derived-evidence.json": JSON.stringify({ rules: [] }),
    });
    expect(decideOf(none).derive).toBeUndefined();
    const text = read("runbooks/state_abnormal.yaml").replace(
      / {2}- id: inspect_cache[\s\S]*?(?=\ndecision_rules)/,
      "",
    );
    expect(decideOf(load("state_abnormal", text)).derive).toBeUndefined();
  });

  it("a runbook without steps runs its execution sidecar's operations", () => {
    const text = MINIMAL.replace(/steps:[\s\S]*?output:/, "output:");
    const r = load("mini", text, sidecars());
    expect(errors(r)).toEqual([]);
    expect(stepsOf(r)[0]).toMatchObject({
      id: "db_readonly_query",
      type: "investigate",
      suggested_calls: [{ tool: "db/readonly_query", run: "auto" }],
    });
  });
});

describe("what the spec's own check refuses, at its place", () => {
  it("the negative sample unknown-finding-type: an error in the decision sidecar's line", () => {
    const sample = JSON.parse(read("fixtures/negative/unknown-finding-type/example.json")) as {
      decision: Record<string, unknown>;
    };
    const decision = JSON.stringify({ ...sample.decision, name: "mini" }, null, 2);
    const r = load("mini", MINIMAL, { ...sidecars(), "mini.decision.json": decision });
    const found = errors(r).filter((d) => d.rule === "dialect-invalid");
    expect(found.map((d) => d.message).sort()).toEqual([
      "Unknown finding_type phantom_finding in confirmed_fact_templates for runbook mini.",
      "Unknown finding_type phantom_finding in decision rule bad_rule for runbook mini.",
    ]);
    const rule = found.find((d) => d.message.includes("decision rule"));
    expect(rule?.file).toMatch(/mini\.decision\.json$/);
    // The rule's `all` lists it after the confirmed fact template does.
    const lines = decision.split("\n");
    const ruleLine = lines.findIndex((l) => l.includes('"all"')) + 2;
    expect(lines[ruleLine - 1]).toContain('"phantom_finding"');
    expect(rule?.line).toBe(ruleLine);
  });

  it("the negative sample missing-normalization: the operation has no adapter", () => {
    const sample = JSON.parse(read("fixtures/negative/missing-normalization/example.json")) as {
      execution: Record<string, unknown>;
    };
    const execution = JSON.stringify({ ...sample.execution, name: "mini" }, null, 2);
    const text = MINIMAL.replace(/steps:[\s\S]*?output:/, "output:");
    const r = load("mini", text, { ...sidecars(), "mini.execution.json": execution });
    const messages = errors(r).map((d) => d.message);
    expect(messages).toContain(
      "Missing normalization metadata for operation mq.inspect used by runbook mini.",
    );
    const missing = errors(r).find((d) => d.message.startsWith("Missing normalization"));
    expect(missing?.file).toMatch(/mini\.execution\.json$/);
    expect(missing?.line).toBe(lineOf(execution, '"mq.inspect"'));
  });

  it("the negative sample unknown-runbook is a test case, not a runbook: never loaded", () => {
    const file = "fixtures/negative/unknown-runbook/example.json";
    expect(dialectOf(file, read(file))).toBeUndefined();
    expect(isDialectPart("runbooks/cache_stale.selector.json")).toBe(true);
    expect(dialectOf("runbooks/cache_stale.yaml", read("runbooks/cache_stale.yaml"))?.id).toBe(
      "runbook",
    );
  });

  it("unsafe identifiers, bad key templates and unknown tool prefixes are errors at their place", () => {
    const text = MINIMAL.replace("table: orders", "table: orders; drop table x").replace(
      "output:",
      `  - id: mq
    tool: mq.inspect
  - id: cache
    tool: redis.inspect
    params:
      key_template: "a b {{context_id}}"
output:`,
    );
    const r = load("mini", text, sidecars());
    const at = (needle: string) => errors(r).find((d) => d.message.includes(needle));
    expect(at("is not a valid identifier")).toMatchObject({
      line: lineOf(text, "table: orders; drop"),
      column: 14,
    });
    expect(at("unknown tool prefix")).toMatchObject({ line: lineOf(text, "tool: mq.inspect") });
    expect(at("has invalid format")).toMatchObject({ line: lineOf(text, "key_template:") });
  });

  it("a missing sidecar and a selector whose name differs are errors", () => {
    const r = load("mini", MINIMAL, {
      ...sidecars({
        selector: {
          name: "other",
          priority: 1,
          context_types: ["order_id"],
          positive_signals: [],
          negative_signals: [],
        },
      }),
      "mini.execution.json": undefined,
    });
    const messages = errors(r).map((d) => d.message);
    expect(messages).toContain("Missing or invalid JSON file: mini.execution.json");
    expect(messages).toContain("Selector name mismatch for mini.selector.json.");
  });
});

describe("what has no equivalent, and hostile files", () => {
  it("an unknown output schema and an unknown field are unmapped, at their place", () => {
    const text = MINIMAL.replace("schema: incident_report", "schema: postmortem").concat(
      "retries: 3\n",
    );
    const r = load("mini", text, sidecars());
    const unmapped = errors(r).filter((d) => d.rule === "dialect-unmapped");
    expect(unmapped.map((d) => d.line)).toEqual([
      lineOf(text, "schema: postmortem"),
      lineOf(text, "retries: 3"),
    ]);
  });

  it("the YAML's word confidences are read when there is no decision sidecar to use", () => {
    const text = MINIMAL.concat(`decision_rules:
  - id: gone
    when:
      all:
        - finding_type: db_row_missing
    conclusion: row_missing
    confidence: high
`);
    const r = load("mini", text, { ...sidecars(), "mini.decision.json": undefined });
    const decide = stepsOf(r).find((s) => s.type === "decide") as { rules: unknown[] };
    expect(decide.rules[0]).toMatchObject({ all: ["db_row_missing"], conclusion: "row_missing" });
    expect(typeof (decide.rules[0] as { confidence: unknown }).confidence).toBe("number");
    // The spec's check still wants the sidecar.
    expect(errors(r).map((d) => d.message)).toContain(
      "Missing or invalid JSON file: mini.decision.json",
    );
  });

  it("refuses wrong types, deep nesting and huge files cleanly", () => {
    const wrong = "match: 3\nsteps: 5\ndecision_rules: nope\noutput: []\n";
    const r = load("mini", wrong, sidecars());
    expect(r.dialect).toBe("runbook");
    expect(errors(r).length).toBeGreaterThan(0);

    const deep = `match:\n  context_types: [order_id]\nsteps:\n  - id: x\n    tool: db.q\n    params:\n      table: ${"[".repeat(5000)}${"]".repeat(5000)}\n`;
    expect(() => load("mini", deep, sidecars())).not.toThrow();
    expect(errors(load("mini", deep, sidecars())).length).toBeGreaterThan(0);

    const huge = MINIMAL.concat(`description: "${"x".repeat(3_000_000)}"\n`);
    expect(errors(load("mini", huge, sidecars())).length).toBeGreaterThan(0);

    const badSidecar = load("mini", MINIMAL, { ...sidecars(), "mini.decision.json": "{ nope" });
    expect(errors(badSidecar).map((d) => d.message)).toContain(
      "Missing or invalid JSON file: mini.decision.json",
    );
  });

  it("never takes a v1 playbook", () => {
    const v1 = "apiVersion: playbook-bot/v1\nid: x\nmatch: {}\noutput: {}\nsteps: []\n";
    expect(dialectOf("x.yaml", v1)).toBeUndefined();
  });
});

describe("a malformed runbook or sidecar, reported where it stands", () => {
  const mini = (yamlText: string, over: Parameters<typeof sidecars>[0] = {}) =>
    load("mini", yamlText, sidecars(over));
  const messages = (r: ReturnType<typeof load>) => r.diagnostics.map((d) => d.message);

  it.each([
    [MINIMAL.replace("match:\n  context_types: [order_id]", "match: 3"), "match must be a mapping"],
    [
      MINIMAL.replace("  context_types: [order_id]", "  context_types: [order_id]\n  owner: x"),
      "'match.owner' is not a field of the runbook spec",
    ],
    [
      MINIMAL.replace("  context_types: [order_id]", "  context_types: 3"),
      "context_types must be a list of names",
    ],
    [
      MINIMAL.replace("[order_id]", "[order_id, ticket_id]"),
      "'ticket_id' is not a context type of the runbook spec (trace_id, request_id, order_id, task_id, message_id, user_id)",
    ],
    [`${MINIMAL}limits: 3\n`, "limits must be a mapping"],
    [
      `${MINIMAL}limits: { max_steps: 4, max_time: 5 }\n`,
      "'limits.max_time' has no equivalent here (limits are max_steps and max_tool_calls)",
    ],
    [
      MINIMAL.replace("output:\n  schema: incident_report", "output:\n  schema: summary"),
      "output schema 'summary' is not known: the report here is the incident report (conclusion, confidence, root cause, evidence, next actions)",
    ],
    [MINIMAL.replace("    tool: db.readonly_query\n", ""), "step row has no tool"],
    [
      MINIMAL.replace("    params:\n      table: orders", "    params: 3"),
      "params must be a mapping",
    ],
    [MINIMAL.replace("      table: orders", "      table: 3"), "params.table must be text"],
    [
      MINIMAL.replace("      table: orders", "      table_by_context_type: 3"),
      "params.table_by_context_type must map context types to values",
    ],
  ])("%#: %s", (text, message) => {
    expect(messages(mini(text))).toContain(message);
  });

  it.each([
    [{ selector: [] }, "the selector is not a JSON object"],
    [
      {
        selector: {
          name: "mini",
          context_types: ["order_id"],
          positive_signals: [{ pattern: 3 }],
          negative_signals: [],
        },
      },
      "a signal has a pattern (text) and a weight (number)",
    ],
    [
      {
        selector: {
          name: "mini",
          context_types: ["order_id"],
          positive_signals: [{ pattern: "x", weight: 1, mode: "glob" }],
          negative_signals: [],
        },
      },
      "mode 'glob' is not 'regex'",
    ],
    [
      { decision: { name: "mini", rules: [3], fallback: { conclusion: "x" } } },
      "a rule is an object",
    ],
    [
      {
        decision: {
          name: "mini",
          rules: [{ all: ["db_row_missing"], conclusion: "x", confidence: "sure" }],
          fallback: { conclusion: "x" },
        },
      },
      "confidence is a number from 0 to 1, or low, medium or high",
    ],
  ])("%#: a sidecar's %j", (over, message) => {
    expect(messages(mini(MINIMAL, over))).toContain(message);
  });
});
