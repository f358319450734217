import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { linearRegExpForAjv } from "../util/regex.js";

type Compiled = { ok: true; validate: ValidateFunction } | { ok: false; error: string };

const cache = new Map<string, Compiled>();
const contractCache = new Map<string, Compiled>();

/**
 * A checkpoint's response schema, compiled once per distinct schema (the validator checks it,
 * the engine validates `/approve k=v` values with it). Values arrive as text, so types are
 * coerced; `pattern`s run on RE2.
 */
export function compileResponseSchema(
  schema: Record<string, unknown>,
): { ok: true; validate: ValidateFunction } | { ok: false; error: string } {
  const key = JSON.stringify(schema);
  let entry = cache.get(key);
  if (!entry) {
    try {
      const ajv = new Ajv2020({
        strict: true,
        allErrors: true,
        coerceTypes: true,
        code: { regExp: linearRegExpForAjv },
      });
      entry = { ok: true, validate: ajv.compile(schema) };
    } catch (err) {
      entry = { ok: false, error: (err as Error).message };
    }
    cache.set(key, entry);
  }
  return entry;
}

/**
 * A step's input or output contract (`input_schema`, `output_schema`), compiled once per
 * distinct schema. Values are checked as they are (no coercion); `pattern`s run on RE2.
 */
export function compileContractSchema(schema: Record<string, unknown>): Compiled {
  const key = JSON.stringify(schema);
  let entry = contractCache.get(key);
  if (!entry) {
    try {
      // Unknown keywords are refused (a typo would silently check nothing); the rest of strict
      // mode is left off, as contracts written for other validators use it freely.
      const ajv = new Ajv2020({
        strictSchema: true,
        strictTypes: false,
        strictTuples: false,
        strictRequired: false,
        allErrors: true,
        code: { regExp: linearRegExpForAjv },
      });
      entry = { ok: true, validate: ajv.compile(schema) };
    } catch (err) {
      entry = { ok: false, error: (err as Error).message };
    }
    // Bounded: schemas come from playbooks, and a long-lived app sees many.
    if (contractCache.size >= 500)
      contractCache.delete(contractCache.keys().next().value as string);
    contractCache.set(key, entry);
  }
  return entry;
}

/** The first problems of a value against a compiled schema, as one line people can act on. */
export function schemaProblems(validate: ValidateFunction, max = 3): string {
  return (validate.errors ?? [])
    .slice(0, max)
    .map(
      (e) =>
        `${e.instancePath === "" ? "(the whole value)" : e.instancePath.slice(1).replaceAll("/", ".")} ${e.message ?? "is invalid"}`,
    )
    .join("; ");
}
