import { capValue, type Scalar, type Value } from "../../engine/state.js";
import { ExpressionError, evaluateExpression, parseExpression } from "../../format/expression.js";
import type { FindingRule } from "./step.js";

export type { FindingRule };

/** Longest summary of a result kept as a finding's value. */
const SUMMARY_LIMIT = 500;
/** Most findings one result gives (a tool may return thousands of items). */
const MAX_FINDINGS_PER_RESULT = 50;

const KEY = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;

/** A finding key from a name (`db.readonly_query` → `db_readonly_query`), or undefined. */
export function findingKey(name: string): string | undefined {
  const key = name
    .replace(/[^a-zA-Z0-9_-]+/g, "_")
    .replace(/^[_-]+/, "")
    .slice(0, 64);
  return KEY.test(key) ? key : undefined;
}

/** Confidence as the runbook spec writes it: a number from 0 to 1, or low / medium / high. */
export function confidenceOf(v: unknown): number | undefined {
  if (typeof v === "number" && v >= 0 && v <= 1) return v;
  if (v === "low") return 0.4;
  if (v === "medium") return 0.6;
  if (v === "high") return 0.85;
  return undefined;
}

/**
 * A value inside a tool's result, by a dotted path (`items.0.title`; empty: the whole result),
 * as a step output: scalars as they are, a list of scalars as a list, anything else as bounded
 * JSON text; undefined where the path leads nowhere.
 */
export function valueAtPath(result: unknown, path: string): Value | undefined {
  let v = result;
  for (const key of path === "" ? [] : path.split(".")) {
    if (Array.isArray(v) && /^[0-9]+$/.test(key)) v = v[Number(key)];
    else if (isRecord(v) && Object.hasOwn(v, key)) v = v[key];
    else return undefined;
  }
  if (v === undefined) return undefined;
  if (v === null || typeof v !== "object") return capValue(v as Scalar);
  if (Array.isArray(v) && v.every((i) => i === null || typeof i !== "object"))
    return v.slice(0, 100).map((i) => capValue(i as Scalar));
  return capValue(summarise(v, 1024));
}

/** A bounded one-line text of any JSON value. */
export function summarise(value: unknown, limit = SUMMARY_LIMIT): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Whether a result reports its findings itself: evidence items, an `evidence` list (even empty:
 * the runbook spec's adapters answer so when they found nothing) or a `findings` map. Such a
 * result is already evidence, so a call's finding rules do not read it again.
 */
export function reportsFindings(result: unknown): boolean {
  if (Array.isArray(result))
    return result.some((i) => isRecord(i) && typeof i.finding_type === "string");
  return isRecord(result) && (Array.isArray(result.evidence) || isRecord(result.findings));
}

/**
 * The findings a tool's result gives. Evidence items (`{ finding_type, summary, confidence }`,
 * as the runbook spec has its tools return them; a list, or under `evidence`) give one finding
 * per type, its value the summary and `<type>_confidence` its confidence as a number; a
 * `findings` map gives its scalar values; anything else gives one finding named after the tool,
 * its value a bounded summary of the result.
 */
export function findingsOfResult(tool: string, result: unknown): Record<string, Scalar> {
  const out: Record<string, Scalar> = {};
  const items = Array.isArray(result)
    ? result
    : isRecord(result) && Array.isArray(result.evidence)
      ? result.evidence
      : undefined;
  const evidence = (items ?? []).filter(
    (i): i is Record<string, unknown> => isRecord(i) && typeof i.finding_type === "string",
  );
  if (evidence.length > 0) {
    for (const item of evidence.slice(0, MAX_FINDINGS_PER_RESULT)) {
      const key = findingKey(item.finding_type as string);
      if (!key || Object.hasOwn(out, key)) continue; // the first item of a type wins
      out[key] = typeof item.summary === "string" ? capValue(summarise(item.summary)) : true;
      const confidence = confidenceOf(item.confidence);
      if (confidence !== undefined) out[`${key}_confidence`.slice(0, 64)] = confidence;
    }
    return out;
  }
  if (isRecord(result) && isRecord(result.findings)) {
    for (const [k, v] of Object.entries(result.findings).slice(0, MAX_FINDINGS_PER_RESULT)) {
      const key = findingKey(k);
      if (!key) continue;
      if (typeof v === "number" || typeof v === "boolean") out[key] = v;
      else if (typeof v === "string") out[key] = capValue(summarise(v));
      else if (v === null) out[key] = null;
    }
    return out;
  }
  const key = findingKey(tool);
  if (key) out[key] = capValue(summarise(result));
  return out;
}

/** Most items of one `each` a rule looks at. */
const MAX_EACH_ITEMS = 200;

/** A name in a rule (`result.rows`, `item.0.status`) inside the scope it is read in. */
function lookUp(scope: Record<string, unknown>, path: readonly string[]): unknown {
  let v: unknown = scope;
  for (const key of path) {
    if (Array.isArray(v) && /^[0-9]+$/.test(key)) v = v[Number(key)];
    else if (isRecord(v) && Object.hasOwn(v, key)) v = v[key];
    else return undefined;
  }
  return v;
}

/** The finding a rule gives in one scope, or undefined when it gives none. */
function ruleValue(rule: FindingRule, scope: Record<string, unknown>): Scalar | undefined {
  if (
    rule.when !== undefined &&
    !evaluateExpression(parseExpression(rule.when), (p) => lookUp(scope, p))
  )
    return undefined;
  if (rule.value === undefined) return true;
  const v = lookUp(scope, rule.value.split("."));
  if (v === undefined || v === null) return undefined;
  return typeof v === "object" ? capValue(summarise(v)) : capValue(v as Scalar);
}

/** The items `each` names: a list's items or a mapping's values, in order. */
function itemsOf(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.slice(0, MAX_EACH_ITEMS);
  return isRecord(value) ? Object.values(value).slice(0, MAX_EACH_ITEMS) : [];
}

/**
 * The findings a call's rules read from its raw result. A rule that cannot be read (an
 * expression that does not parse, which validation reports) gives nothing.
 */
export function findingsByRules(
  rules: readonly FindingRule[],
  result: unknown,
): Record<string, Scalar> {
  const out: Record<string, Scalar> = {};
  for (const rule of rules) {
    const key = findingKey(rule.finding);
    if (!key || Object.hasOwn(out, key)) continue; // the first rule for a finding wins
    try {
      const scopes = rule.each
        ? itemsOf(lookUp({ result }, rule.each.split("."))).map((item) => ({ result, item }))
        : [{ result }];
      for (const scope of scopes) {
        const v = ruleValue(rule, scope);
        if (v === undefined) continue;
        out[key] = v;
        break;
      }
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
    }
  }
  return out;
}
