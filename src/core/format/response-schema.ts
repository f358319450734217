import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { linearRegExpForAjv } from "../util/regex.js";

const cache = new Map<
  string,
  { ok: true; validate: ValidateFunction } | { ok: false; error: string }
>();

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
