import { Ajv2020, type Options, type ValidateFunction } from "ajv/dist/2020.js";
import checkAgainstMetaSchema from "./generated/json-schema-meta-validator.js";
import { LruMap } from "../util/lru.js";
import { linearRegExpForAjv } from "../util/regex.js";

/** The JSON Schema 2020-12 meta-schema's id: schemas without `$schema` are checked against it. */
export const META_SCHEMA_2020 = "https://json-schema.org/draft/2020-12/schema";

type Compiled = { ok: true; validate: ValidateFunction } | { ok: false; error: string };

/**
 * One compiler per kind of schema, made on first use. A schema is checked against the 2020-12
 * meta-schema by a precompiled validator, as Ajv would check it, so Ajv's own check is off: Ajv
 * compiles the meta-schema itself once per instance (tens of milliseconds of a short process).
 * Every kind reports all errors and runs `pattern`s on RE2. Each compiled schema is taken back out
 * of the instance (its validator keeps working), so the instance holds no schema of its own and
 * only the bounded cache below keeps them.
 */
class SchemaCompiler {
  private ajv: Ajv2020 | undefined;
  // Bounded: schemas come from playbooks, and a long-lived app sees many.
  private readonly cache = new LruMap<string, Compiled>(500);
  constructor(private readonly options: Options) {}

  compile(schema: Record<string, unknown>): Compiled {
    const key = JSON.stringify(schema);
    let entry = this.cache.get(key);
    if (!entry) {
      const ajv = (this.ajv ??= new Ajv2020({
        ...this.options,
        allErrors: true,
        validateSchema: false,
        code: { regExp: linearRegExpForAjv },
      }));
      try {
        checkSchema(ajv, schema);
        entry = { ok: true, validate: ajv.compile(schema) };
      } catch (err) {
        entry = { ok: false, error: (err as Error).message };
      } finally {
        ajv.removeSchema(schema);
      }
      this.cache.set(key, entry);
    }
    return entry;
  }
}

/** Throws Ajv's own error for a schema the meta-schema refuses. */
function checkSchema(ajv: Ajv2020, schema: Record<string, unknown>): void {
  const meta = schema.$schema;
  if (meta !== undefined && meta !== META_SCHEMA_2020 && meta !== `${META_SCHEMA_2020}#`) {
    ajv.validateSchema(schema, true); // another draft: Ajv's own check
    return;
  }
  const check = checkAgainstMetaSchema as unknown as ValidateFunction;
  if (!check(schema)) throw new Error(`schema is invalid: ${ajv.errorsText(check.errors)}`);
}

// Values of /approve arrive as text, so types are coerced.
const responseSchemas = new SchemaCompiler({ strict: true, coerceTypes: true });

// Unknown keywords are refused (a typo would silently check nothing); the rest of strict mode is
// left off, as contracts written for other validators use it freely. Values are checked as they
// are (no coercion).
const contractSchemas = new SchemaCompiler({
  strictSchema: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
});

/**
 * A checkpoint's response schema, compiled once per distinct schema (the validator checks it,
 * the engine validates `/approve k=v` values with it).
 */
export function compileResponseSchema(schema: Record<string, unknown>): Compiled {
  return responseSchemas.compile(schema);
}

/** A step's input or output contract (`input_schema`, `output_schema`), compiled once per distinct schema. */
export function compileContractSchema(schema: Record<string, unknown>): Compiled {
  return contractSchemas.compile(schema);
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
