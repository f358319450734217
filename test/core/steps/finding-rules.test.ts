import { describe, expect, it } from "vitest";
import { findingsByRules, reportsFindings } from "../../../src/core/steps/investigate/findings.js";
import { deriveFindings } from "../../../src/core/steps/decide/executor.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { performToolCalls } from "../../../src/runtime/tool-calls.js";

const CACHE = {
  ok: true,
  key: "order:view:1",
  exists: true,
  ttl_seconds: 420,
  value_preview: { status: "pending" },
};

describe("findings read from a raw result by a call's rules", () => {
  it("records a finding when its expression holds over the result, true unless a value is named", () => {
    expect(
      findingsByRules(
        [
          { finding: "cache_key_exists", when: "result.exists" },
          { finding: "cache_key_missing", when: "not result.exists" },
          {
            finding: "cache_ttl_positive",
            when: "result.exists == true and result.ttl_seconds > 0",
          },
          { finding: "cache_key", value: "result.key" },
          { finding: "preview", value: "result.value_preview" },
          { finding: "writer", value: "result.value_preview.writer" },
        ],
        CACHE,
      ),
    ).toEqual({
      cache_key_exists: true,
      cache_ttl_positive: true,
      cache_key: "order:view:1",
      preview: '{"status":"pending"}',
    });
  });

  it("with each, looks at a mapping's values or a list's items, and the first that fits gives it", () => {
    const rows = { ok: true, rows: { order_main: [{ status: "created" }], task_main: [] } };
    const rules = [
      { finding: "db_row_found", each: "result.rows", when: "item" },
      { finding: "db_row_missing", each: "result.rows", when: "not item" },
      { finding: "db_status", each: "result.rows", when: "result.ok", value: "item.0.status" },
      { finding: "span_missing", each: "result.spans" },
      { finding: "first_span", each: "result.spans", value: "item" },
    ];
    expect(findingsByRules(rules, rows)).toEqual({
      db_row_found: true,
      db_row_missing: true,
      db_status: "created",
    });
    expect(
      findingsByRules(rules, { ok: false, rows: [[]], spans: ["CreateTask", "Notify"] }),
    ).toEqual({
      db_row_missing: true,
      span_missing: true,
      first_span: "CreateTask",
    });
    expect(findingsByRules(rules, "not json")).toEqual({});
  });

  it("the first rule for a finding that fits wins; a bad name or expression gives nothing", () => {
    expect(
      findingsByRules(
        [
          { finding: "state", when: "result.ok == false", value: "result.reason" },
          { finding: "state", value: "result.ok" },
          { finding: "state", value: "result.key" },
          { finding: "!!", when: "true" },
          { finding: "broken", when: "result.ok ==" },
          { finding: "after", when: "result.ok" },
        ],
        CACHE,
      ),
    ).toEqual({ state: true, after: true });
  });
});

describe("a call's rules in the tool_call effect", () => {
  const REDIS_RULES = [
    { finding: "cache_key_exists", when: "result.exists" },
    { finding: "cache_key_missing", when: "not result.exists" },
    { finding: "redis_status", value: "result.value_preview.status" },
  ];
  const callWith = (result: unknown) =>
    performToolCalls(
      { call: async () => ({ ok: true, result }) },
      {
        calls: [
          { number: 1, tool: "redis/inspect", args: {}, required: false, findings: REDIS_RULES },
        ],
      },
    );

  it("read a raw answer", async () => {
    const out = await callWith(CACHE);
    expect(out["finding.cache_key_exists"]).toBe(true);
    expect(out["finding.cache_key_missing"]).toBeUndefined();
    expect(out["finding.redis_status"]).toBe("pending");
  });

  it("leave an answer that is already evidence as it reports itself", async () => {
    // The runbook spec's live adapters answer with normalised evidence, not the raw key.
    const adapter = {
      ok: true,
      source: "redis",
      evidence: [{ finding_type: "cache_key_exists", summary: "key exists", confidence: "high" }],
      errors: [],
    };
    const out = await callWith(adapter);
    expect(out["finding.cache_key_exists"]).toBe("key exists");
    expect(out["finding.cache_key_missing"]).toBeUndefined();
    expect(
      [[], [{ finding_type: "x" }], { evidence: [] }, { ok: true }, "x"].map(reportsFindings),
    ).toEqual([false, true, true, false, false]);
    const told = await callWith({ findings: { cache_key_exists: "told" } });
    expect(told["finding.cache_key_exists"]).toBe("told");
    expect(told["finding.cache_key_missing"]).toBeUndefined();
  });
});

describe("a decide step's derived findings", () => {
  const findings: Record<string, unknown> = { redis_status: "pending", db_status: "paid" };
  const resolve = (path: readonly string[]) =>
    path[0] === "findings" ? findings[path[1] as string] : undefined;
  const mismatch = {
    finding: "status_mismatch",
    when: "findings.redis_status and findings.db_status and findings.redis_status != findings.db_status",
  };

  it("are recorded when their expression holds, in order, a later one seeing an earlier one", () => {
    expect(
      deriveFindings(
        [
          mismatch,
          {
            finding: "stale_view",
            when: "findings.status_mismatch and findings.redis_status == 'pending'",
          },
          { finding: "same", when: "findings.redis_status == findings.db_status" },
          { finding: "broken", when: "findings.(" },
        ],
        resolve,
      ),
    ).toEqual({ status_mismatch: true, stale_view: true });
  });

  it("need both statuses", () => {
    delete findings.db_status;
    expect(deriveFindings([mismatch], resolve)).toEqual({});
  });
});

describe("validation of finding rules and derived findings", () => {
  const playbook = (call: string, derive = "") => `apiVersion: playbook-bot/v1
id: cache-check
description: Compares the cache with the database.
steps:
  - id: look
    type: investigate
    description: Look at the cache.
    suggested_calls:
      - tool: redis/inspect
        findings:
${call}
  - id: decide
    type: decide
    description: Conclude.
${derive}    rules:
      - { id: stale, all: [cache_key_exists, status_mismatch], conclusion: stale_cache }
    fallback: { conclusion: inconclusive }
`;
  const GOOD_CALL = `          - { finding: cache_key_exists, when: result.exists and item, each: result.keys }
          - { finding: redis_status, value: result.value_preview.status }
          - { finding: first_key, each: result.keys, value: item }`;
  const DERIVE = `    derive:
      - { finding: status_mismatch, when: findings.redis_status != 'paid' }
`;
  const problems = (text: string) =>
    validateSource("cache-check.yaml", text).diagnostics.map(
      (d) => `${d.rule} ${d.path ?? ""}: ${d.message}`,
    );

  it("a call's rules and a derived finding are findings the decision may use", () => {
    expect(problems(playbook(GOOD_CALL, DERIVE))).toEqual([]);
    // Without the derivation, nothing establishes status_mismatch.
    expect(problems(playbook(GOOD_CALL))).toEqual([
      expect.stringMatching(
        /^finding-unknown .*finding 'status_mismatch' is used here but no step expects it/,
      ),
    ]);
  });

  it("an expression that does not parse is an error where it is written", () => {
    const found = problems(
      playbook(
        "          - { finding: cache_key_exists, when: 'result.exists ==' }",
        "    derive:\n      - { finding: status_mismatch, when: 'findings.a !=' }\n",
      ),
    ).filter((p) => p.startsWith("expression-syntax"));
    expect(found).toEqual([
      expect.stringContaining("steps[0].suggested_calls[0].findings[0].when"),
      expect.stringContaining("steps[1].derive[0].when"),
    ]);
  });

  it("a rule reads only its result: other names, and items without each, are refused", () => {
    const found = problems(
      playbook(
        [
          "          - { finding: a, when: inputs.level == 'major' and result.ok }",
          "          - { finding: b, each: rows }",
          "          - { finding: c, value: 'result.rows[0]' }",
          "          - { finding: d, value: item.status }",
          "          - { finding: cache_key_exists, when: 'result.ok ==' }",
        ].join("\n"),
        DERIVE,
      ),
    ).filter((p) => p.startsWith("step-shape"));
    expect(found).toEqual([
      expect.stringContaining("when: 'inputs.level' is not in the call's result"),
      expect.stringContaining("each: 'rows' is not a name in the result"),
      expect.stringContaining("value: 'result.rows[0]' is not a name in the result or the item"),
      expect.stringContaining("value: an item is read only with each:"),
    ]);
  });
});
