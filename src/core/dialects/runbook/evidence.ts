import type { DerivedFinding } from "../../format/types.js";
import type { FindingRule } from "../../steps/investigate/findings.js";
import { isObject, type Json } from "../conversion.js";

/**
 * How the runbook spec turns a tool's raw answer into evidence, as finding rules on the call.
 * The spec keeps this in `adapters/<prefix>/<operation>.normalization.json` (three forms: `cases`
 * of emits, a `collection` emitting per item, `table_rows` emitting per table) and derives one
 * finding across sources (`evidence-policies/derived-evidence.json`: the cached status differs
 * from the persisted one). Where a runbook's adapters are not beside it, the readings of the
 * spec's own five operations stand in.
 */

const found = (finding: string, when: string): FindingRule => ({ finding, when });

/** The spec's five operations, as its normalization files read their answers. */
const DEFAULT_RULES: Record<string, FindingRule[]> = {
  "trace.lookup": [
    found("trace_found", "result.ok == true"),
    found("trace_missing", "result.ok == false"),
  ],
  "trace.inspect_spans": [{ finding: "span_missing", each: "result.missing_expected_spans" }],
  "db.readonly_query": tableRows("result.rows", "db_row_found", "db_row_missing"),
  "db.lookup_entity": tableRows("result.rows", "db_row_found", "db_row_missing"),
  "redis.inspect": [
    found("cache_key_exists", "result.exists"),
    found("cache_key_missing", "not result.exists"),
    found("cache_ttl_positive", "result.exists == true and result.ttl_seconds > 0"),
  ],
};

/** Per table of rows: one finding when a table has rows, another when one has none. */
function tableRows(path: string, foundType: string, missingType: string): FindingRule[] {
  return [
    { finding: foundType, each: path, when: "item" },
    { finding: missingType, each: path, when: "not item" },
  ];
}

/** The findings the spec's derivation compares: the cached status and the persisted one. */
export const CACHE_STATUS = "redis_status";
export const DB_STATUS = "db_status";
const CACHE_OPERATION = "redis.inspect";
const DB_OPERATIONS = ["db.readonly_query", "db.lookup_entity"];

/** A name the expressions can use (`result.value_preview.status`), or undefined. */
function pathOf(value: unknown): string | undefined {
  return typeof value === "string" && /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/.test(value)
    ? value
    : undefined;
}

/** A literal as the expression language writes it, or undefined for anything else. */
function literal(v: unknown): string | undefined {
  if (typeof v === "boolean" || v === null) return String(v);
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  if (typeof v === "string" && !/['\\\n]/.test(v)) return `'${v}'`;
  return undefined;
}

function both(...tests: (string | undefined)[]): string | undefined {
  const parts = tests.filter((t): t is string => t !== undefined);
  return parts.length
    ? parts.map((t) => (parts.length > 1 ? `(${t})` : t)).join(" and ")
    : undefined;
}

/** A case's `when` (every path equals its value), or null when it cannot be written. */
function caseTest(when: unknown): string | undefined | null {
  if (when === undefined) return undefined;
  if (!isObject(when)) return null;
  const tests: string[] = [];
  for (const [key, value] of Object.entries(when)) {
    const path = pathOf(key);
    const lit = literal(value);
    if (!path || lit === undefined) return null;
    tests.push(`result.${path} == ${lit}`);
  }
  return both(...tests);
}

/** An emit's `requires` (the key exists as told; its TTL above a number). */
function requiresTest(requires: unknown): string | undefined | null {
  if (requires === undefined) return undefined;
  if (!isObject(requires)) return null;
  const tests: string[] = [];
  if (requires.exists !== undefined) {
    const lit = literal(requires.exists);
    if (lit === undefined) return null;
    tests.push(`result.exists == ${lit}`);
  }
  if (requires.ttl_seconds_gt !== undefined) {
    if (typeof requires.ttl_seconds_gt !== "number") return null;
    tests.push(`result.ttl_seconds > ${requires.ttl_seconds_gt}`);
  }
  return both(...tests);
}

/** One emit of a case: by a condition path (one finding or the other), or one finding. */
function emitRules(emit: Json, when: string | undefined): FindingRule[] | null {
  if (emit.condition_path !== undefined) {
    const path = pathOf(emit.condition_path);
    if (
      !path ||
      typeof emit.finding_type_true !== "string" ||
      typeof emit.finding_type_false !== "string"
    )
      return null;
    return [
      { finding: emit.finding_type_true, when: both(when, `result.${path}`) as string },
      { finding: emit.finding_type_false, when: both(when, `not result.${path}`) as string },
    ];
  }
  const requires = requiresTest(emit.requires);
  if (typeof emit.finding_type !== "string" || requires === null) return null;
  const test = both(when, requires);
  return [test === undefined ? { finding: emit.finding_type } : found(emit.finding_type, test)];
}

function casesRules(cases: unknown): FindingRule[] | null {
  if (!Array.isArray(cases)) return null;
  const rules: FindingRule[] = [];
  for (const c of cases) {
    if (!isObject(c) || !Array.isArray(c.emit)) return null;
    const when = caseTest(c.when);
    if (when === null) return null;
    for (const emit of c.emit) {
      const r = isObject(emit) ? emitRules(emit, when) : null;
      if (!r) return null;
      rules.push(...r);
    }
  }
  return rules;
}

/**
 * A normalization file as finding rules, or undefined when it is in none of the spec's three
 * forms (or uses something they cannot say).
 */
export function rulesOfNormalization(meta: unknown): FindingRule[] | undefined {
  if (!isObject(meta)) return undefined;
  if (meta.cases !== undefined) return casesRules(meta.cases) ?? undefined;
  const collection = meta.collection;
  if (isObject(collection)) {
    const path = pathOf(collection.path);
    const emit = collection.emit_per_item;
    if (!path || !isObject(emit) || typeof emit.finding_type !== "string") return undefined;
    return [{ finding: emit.finding_type, each: `result.${path}` }];
  }
  const rows = meta.table_rows;
  if (isObject(rows)) {
    const path = pathOf(rows.path);
    if (!path || typeof rows.found_finding_type !== "string") return undefined;
    if (typeof rows.missing_finding_type !== "string") return undefined;
    return tableRows(`result.${path}`, rows.found_finding_type, rows.missing_finding_type);
  }
  return undefined;
}

/** The spec's own reading of one of its five operations, or undefined for another. */
export function defaultRules(tool: string): FindingRule[] | undefined {
  return Object.hasOwn(DEFAULT_RULES, tool) ? structuredClone(DEFAULT_RULES[tool]) : undefined;
}

/**
 * What the cross-source derivation needs from a call: the cached status (`value_preview.status`
 * of an answered `redis.inspect`) or the persisted one (the first table's first row's `status`).
 */
export function statusRules(tool: string): FindingRule[] {
  if (tool === CACHE_OPERATION)
    return [{ finding: CACHE_STATUS, when: "result.ok", value: "result.value_preview.status" }];
  if (DB_OPERATIONS.includes(tool))
    return [{ finding: DB_STATUS, each: "result.rows", when: "result.ok", value: "item.0.status" }];
  return [];
}

/** Whether a runbook calls both sides of the derivation. */
export function derivesStatus(tools: readonly string[]): boolean {
  return tools.includes(CACHE_OPERATION) && tools.some((t) => DB_OPERATIONS.includes(t));
}

/**
 * The finding types the evidence policy derives (its rules' `emit.finding_type`): the spec's
 * engine derives each from the cached and persisted statuses. Undefined when no policy is read.
 */
export function policyFindings(policy: unknown): string[] | undefined {
  if (!isObject(policy) || !Array.isArray(policy.rules)) return undefined;
  return policy.rules.flatMap((r: unknown) =>
    isObject(r) && isObject(r.emit) && typeof r.emit.finding_type === "string"
      ? [r.emit.finding_type]
      : [],
  );
}

/** A finding recorded when the cached and persisted statuses are both known and differ. */
export function statusDerivation(finding: string): DerivedFinding {
  const cache = `findings.${CACHE_STATUS}`;
  const db = `findings.${DB_STATUS}`;
  return { finding, when: `${cache} and ${db} and ${cache} != ${db}` };
}
