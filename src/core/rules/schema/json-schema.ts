import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import precompiled from "../../format/generated/playbook-validator.js";
import { describeValue } from "../../format/describe.js";
import {
  API_VERSION,
  ERROR_POLICY_PATTERN,
  ID_PATTERN,
  STEP_KINDS,
  TOOL_PATTERN,
} from "../../format/schema.js";
import {
  formatPath,
  parsePointer,
  type PathSegment,
  type SourceDocument,
} from "../../format/source.js";
import { didYouMean, oneOf } from "../../util/suggest.js";
import type { Finding, RulePass } from "../rule.js";

type SchemaCode =
  | "schema-unknown-field"
  | "schema-missing-field"
  | "schema-type"
  | "schema-value"
  | "schema-format"
  | "schema-step-type"
  | "schema-api-version"
  | "schema-shape"
  | "id-format"
  | "tool-format";
type SchemaFinding = Finding<SchemaCode>;

/**
 * The schema compiled ahead of time (src/core/format/generated): compiling it costs far more than
 * validating, and would be paid by every CLI run and every Action job.
 */
const validator = precompiled as unknown as ValidateFunction;

// One ajv pass checks the whole document; each of its errors maps to the code that names it best.
/** The document against the JSON Schema: ajv's errors rewritten as findings people read. */
export const jsonSchema: RulePass<SchemaCode, SourceDocument> = {
  rules: [
    {
      code: "schema-unknown-field",
      layer: "schema",
      severity: "error",
      summary: "a field the format does not define",
    },
    {
      code: "schema-missing-field",
      layer: "schema",
      severity: "error",
      summary: "a required field is missing",
    },
    { code: "schema-type", layer: "schema", severity: "error", summary: "a value has the wrong type" },
    {
      code: "schema-value",
      layer: "schema",
      severity: "error",
      summary: "a value is not one of the allowed values",
    },
    {
      code: "schema-format",
      layer: "schema",
      severity: "error",
      summary: "a value does not have the required form (pattern, length, range)",
    },
    { code: "schema-step-type", layer: "schema", severity: "error", summary: "an unknown step kind" },
    {
      code: "schema-api-version",
      layer: "schema",
      severity: "error",
      summary: "apiVersion is missing or unsupported",
    },
    {
      code: "schema-shape",
      layer: "schema",
      severity: "error",
      summary: "a value matches none of the shapes allowed here",
    },
    {
      code: "id-format",
      layer: "schema",
      severity: "error",
      summary: "an id does not match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$",
    },
    {
      code: "tool-format",
      layer: "schema",
      severity: "error",
      summary: "a tool is not written as server/tool",
    },
  ],
  check: (doc) => (isMapping(doc.value) ? schemaFindings(doc) : [notAMapping(doc)]),
};

function isMapping(value: unknown): boolean {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function notAMapping(doc: SourceDocument): SchemaFinding {
  return {
    rule: "schema-type",
    path: "(document)",
    span: doc.span([]),
    message:
      doc.value === null
        ? "file is empty: a playbook is a YAML mapping"
        : "a playbook is a YAML mapping of fields, not a list or a single value",
    hint: "start with `apiVersion: playbook-bot/v1` and `id: …`",
  };
}

function schemaFindings(doc: SourceDocument): SchemaFinding[] {
  const validate = validator;
  if (validate(doc.value)) return [];
  const out: SchemaFinding[] = [];
  const seen = new Set<string>();
  for (const err of validate.errors ?? []) {
    const d = rewrite(doc, err);
    if (!d) continue;
    const key = `${d.rule}\u0000${d.path}\u0000${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(d);
  }
  return out;
}

function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let v = root;
  for (const seg of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string | number, unknown>)[seg];
  }
  return v;
}

/** What kind of thing sits at a path, for "unknown field for a commit step". */
function ownerName(doc: SourceDocument, path: readonly PathSegment[]): string {
  const v = valueAt(doc.value, path) as Record<string, unknown> | undefined;
  if (v && typeof v.type === "string" && (STEP_KINDS as readonly string[]).includes(v.type)) {
    return `${/^[aeiou]/.test(v.type) ? "an" : "a"} ${v.type} step`;
  }
  return path.length === 0 ? "a playbook" : formatPath(path);
}

function rewrite(doc: SourceDocument, err: ErrorObject): SchemaFinding | null {
  const path = parsePointer(err.instancePath);
  const where = formatPath(path);
  const found = valueAt(doc.value, path);
  const params = err.params as Record<string, unknown>;
  const parent = (err.parentSchema ?? {}) as Record<string, unknown>;

  // if/then and propertyNames report a summary next to the precise error; keep the precise one.
  if (err.keyword === "if" || err.keyword === "propertyNames") return null;

  if (err.propertyName !== undefined) return keyNameError(doc, path, err.propertyName, err.keyword, params);

  switch (err.keyword) {
    case "additionalProperties": {
      const field = String(params.additionalProperty);
      const fieldPath = [...path, field];
      const allowed = Object.keys((parent.properties as object | undefined) ?? {});
      const guess = didYouMean(field, allowed);
      return {
        rule: "schema-unknown-field",
        path: formatPath(fieldPath),
        span: doc.span(fieldPath, true),
        message: `${formatPath(fieldPath)}: unknown field '${field}' for ${ownerName(doc, path)}${guess ? ` — did you mean '${guess}'?` : ""}`,
        found: `'${field}'`,
        expected: `one of: ${oneOf(allowed)}`,
        hint: guess ? `rename it to '${guess}'` : `remove it, or use one of: ${oneOf(allowed)}`,
      };
    }
    case "required": {
      const field = String(params.missingProperty);
      const isStep = (parent.properties as Record<string, unknown> | undefined)?.type !== undefined;
      return {
        rule: "schema-missing-field",
        path: where,
        span: doc.span(path, false),
        message: `${where}: ${ownerName(doc, path)} needs the field '${field}'`,
        expected: `'${field}'`,
        hint: isStep || field === "id" ? `add '${field}: …'` : `add '${field}:' to ${where}`,
      };
    }
    case "type":
      return typeError({ doc, path, where, found, err, params });
    case "const":
    case "enum":
      return enumError({ doc, path, where, found, err, params });
    case "pattern":
      return patternError(doc, path, where, found, String(params.pattern));
    default:
      return {
        rule: "schema-format",
        path: where,
        span: doc.span(path),
        message: `${where}: ${err.message ?? "invalid value"}`,
        found: describeValue(found),
        hint: "see the field's description in `playbook-bot schema`",
      };
  }
}

/** One error of the schema, with where it points in the file and the value that stands there. */
interface ErrorAt {
  doc: SourceDocument;
  path: PathSegment[];
  where: string;
  found: unknown;
  err: ErrorObject;
  params: Record<string, unknown>;
}

/** A mapping key that is not a valid name (an id, or an on_error code). */
function keyNameError(
  doc: SourceDocument,
  path: PathSegment[],
  propertyName: string,
  keyword: string,
  params: Record<string, unknown>,
): SchemaFinding {
  const keyPath = [...path, propertyName];
  if (keyword === "pattern" && params.pattern !== ID_PATTERN) {
    // Not an id: e.g. on_error keys are error codes (GH-RATE-LIMITED) or `default`.
    return {
      rule: "schema-format",
      path: formatPath(keyPath),
      span: doc.span(keyPath, true),
      message: `${formatPath(keyPath)}: key '${propertyName}' does not match ${String(params.pattern)}`,
      found: `'${propertyName}'`,
      expected: String(params.pattern),
      hint: "see the field's description in `playbook-bot schema`",
    };
  }
  return {
    rule: "id-format",
    path: formatPath(keyPath),
    span: doc.span(keyPath, true),
    message: `${formatPath(keyPath)}: name '${propertyName}' is not a valid id`,
    found: `'${propertyName}'`,
    expected: ID_PATTERN,
    hint: "use letters, digits, '-' and '_', starting with a letter or digit, at most 64 characters",
  };
}

/** A value of the wrong type (or of neither shape a field allows). */
function typeError({ doc, path, where, found, err, params }: ErrorAt): SchemaFinding {
  // `if: {type: string}, else: {type: …}`: the value is neither of the two shapes.
  if (err.schemaPath.endsWith("/else/type")) {
    return {
      rule: "schema-shape",
      path: where,
      span: doc.span(path),
      message: `${where}: expected a string or ${article(String(params.type))}, found ${describeValue(found)}`,
      found: describeValue(found),
      expected: `string or ${String(params.type)}`,
      hint: "see the field's description in `playbook-bot schema`",
    };
  }
  return {
    rule: "schema-type",
    path: where,
    span: doc.span(path),
    message: `${where}: expected ${article(String(params.type))}, found ${describeValue(found)}`,
    found: describeValue(found),
    expected: String(params.type),
    hint:
      params.type === "string"
        ? "quote the value"
        : `write ${article(String(params.type))} here`,
  };
}

function article(type: string): string {
  const names: Record<string, string> = {
    object: "a mapping",
    array: "a list",
    string: "a string",
    integer: "an integer",
    number: "a number",
    boolean: "true or false",
  };
  return type
    .split(",")
    .map((t) => names[t] ?? t)
    .join(" or ");
}

function enumError({ doc, path, where, found, err, params }: ErrorAt): SchemaFinding {
  const allowed = (
    err.keyword === "const" ? [params.allowedValue] : (params.allowedValues as unknown[])
  ).map(String);
  const last = path[path.length - 1];
  const guess = typeof found === "string" ? didYouMean(found, allowed) : undefined;
  const suffix = guess ? ` — did you mean '${guess}'?` : "";
  let rule: SchemaCode = "schema-value";
  let message = `${where}: ${describeValue(found)} is not allowed (expected one of: ${oneOf(allowed)})${suffix}`;
  if (path.length === 1 && last === "apiVersion") {
    rule = "schema-api-version";
    message = `apiVersion: ${describeValue(found)} is not supported (expected '${API_VERSION}')`;
  } else if (last === "type" && allowed.join() === STEP_KINDS.join()) {
    rule = "schema-step-type";
    message = `${where}: unknown step kind ${describeValue(found)} (expected one of: ${oneOf(allowed)})${suffix}`;
  }
  return {
    rule,
    path: where,
    span: doc.span(path),
    message,
    found: describeValue(found),
    expected: `one of: ${oneOf(allowed)}`,
    hint: guess ? `write '${guess}'` : `use one of: ${oneOf(allowed)}`,
  };
}

function patternError(
  doc: SourceDocument,
  path: PathSegment[],
  where: string,
  found: unknown,
  pattern: string,
): SchemaFinding {
  const base = {
    path: where,
    span: doc.span(path),
    found: describeValue(found),
    expected: pattern,
  };
  if (pattern === ID_PATTERN) {
    return {
      ...base,
      rule: "id-format",
      message: `${where}: ${describeValue(found)} is not a valid id`,
      hint: "use letters, digits, '-' and '_', starting with a letter or digit, at most 64 characters",
    };
  }
  if (pattern === ERROR_POLICY_PATTERN) {
    return {
      ...base,
      rule: "schema-value",
      expected: "fail, continue, ignore or retry:N (N from 1 to 99)",
      message: `${where}: ${describeValue(found)} is not an error policy (expected fail, continue, ignore or retry:N)`,
      hint: "write fail, continue, ignore or retry:3",
    };
  }
  if (pattern === TOOL_PATTERN) {
    return {
      ...base,
      rule: "tool-format",
      message: `${where}: tool ${describeValue(found)} must be written as server/tool`,
      hint: "name the server and the tool, e.g. k8s/list_resources",
    };
  }
  return {
    ...base,
    rule: "schema-format",
    message: `${where}: ${describeValue(found)} does not match ${pattern}`,
    hint: "see the field's description in `playbook-bot schema`",
  };
}

/** Whether a value passes the schema (a document's repaired form: see ./beyond-schema.ts). */
export function passesSchema(value: unknown): boolean {
  return validator(value);
}
