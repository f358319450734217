import type { PathSegment } from "../format/source.js";

/**
 * What the JSON Schema says about a place in a playbook: the schemas that apply there, read
 * generically (`$ref`, `allOf`/`anyOf`/`oneOf`, `if`/`then`/`else`, `properties`,
 * `patternProperties`, `additionalProperties`, `items`), so that hover text and completions follow
 * the schema object as it is, whatever descriptions it carries.
 */
export type SchemaNode = Record<string, unknown>;

const isNode = (v: unknown): v is SchemaNode =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Resolve a local reference (`#/definitions/step`) against the root schema. */
function resolveRef(root: SchemaNode, ref: string): SchemaNode | undefined {
  if (!ref.startsWith("#")) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    at = isNode(at) ? at[key] : undefined;
  }
  return isNode(at) ? at : undefined;
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/**
 * Whether a value meets a schema used as an `if` condition. Only what conditions in practice
 * test is checked (type, const, enum, properties, required); anything else counts as met.
 */
export function meets(schema: SchemaNode, value: unknown): boolean {
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const t = typeOf(value);
    if (!types.some((x) => x === t || (x === "number" && t === "integer"))) return false;
  }
  if ("const" in schema && schema.const !== value) return false;
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false;
  if (isNode(value)) {
    if (Array.isArray(schema.required) && schema.required.some((k) => !(String(k) in value)))
      return false;
    if (isNode(schema.properties))
      for (const [k, sub] of Object.entries(schema.properties))
        if (k in value && isNode(sub) && !meets(sub, value[k])) return false;
  }
  return true;
}

/** A value is unknown where the document has none (an incomplete line, a broken file). */
const UNKNOWN = Symbol("unknown");
type Known = unknown;

/**
 * The schema and every schema it brings in at the same place, in order: the schema itself first
 * (a property's own description before the one of the definition it refers to).
 */
function expand(root: SchemaNode, schema: SchemaNode, value: Known, out: SchemaNode[]): void {
  if (out.includes(schema) || out.length > 200) return;
  out.push(schema);
  if (typeof schema.$ref === "string") {
    const target = resolveRef(root, schema.$ref);
    if (target) expand(root, target, value, out);
  }
  for (const key of ["allOf", "anyOf", "oneOf"])
    for (const sub of Array.isArray(schema[key]) ? (schema[key] as unknown[]) : [])
      if (isNode(sub)) expand(root, sub, value, out);
  if (isNode(schema.if)) {
    const known = value !== UNKNOWN;
    const holds = known && meets(schema.if, value);
    if (isNode(schema.then) && (!known || holds)) expand(root, schema.then, value, out);
    if (isNode(schema.else) && (!known || !holds)) expand(root, schema.else, value, out);
  }
}

/** The schemas of one child (a property or an item) of a value the schemas describe. */
function childSchemas(schema: SchemaNode, seg: PathSegment): SchemaNode[] {
  if (typeof seg === "number") {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems[seg] : undefined;
    if (isNode(prefix)) return [prefix];
    return isNode(schema.items) ? [schema.items] : [];
  }
  if (isNode(schema.properties) && isNode(schema.properties[seg])) return [schema.properties[seg]];
  const out: SchemaNode[] = [];
  if (isNode(schema.patternProperties))
    for (const [pattern, sub] of Object.entries(schema.patternProperties)) {
      let matches = false;
      try {
        // Patterns come from the project's own schema object, never from a playbook.
        matches = new RegExp(pattern, "u").test(seg);
      } catch {
        matches = false;
      }
      if (matches && isNode(sub)) out.push(sub);
    }
  if (out.length === 0 && isNode(schema.additionalProperties))
    out.push(schema.additionalProperties);
  return out;
}

function child(value: Known, seg: PathSegment): Known {
  if (value === UNKNOWN) return UNKNOWN;
  if (typeof seg === "number")
    return Array.isArray(value) && seg < value.length ? value[seg] : UNKNOWN;
  return isNode(value) && seg in value ? value[seg] : UNKNOWN;
}

/**
 * The schemas that apply at `path` of a document whose value is `document` (undefined when the
 * document did not parse: then every branch of a condition applies).
 */
export function schemasAt(
  root: SchemaNode,
  path: readonly PathSegment[],
  document: unknown,
): SchemaNode[] {
  let value: Known = document === undefined ? UNKNOWN : document;
  let current: SchemaNode[] = [];
  expand(root, root, value, current);
  for (const seg of path) {
    value = child(value, seg);
    const next: SchemaNode[] = [];
    for (const s of current) for (const c of childSchemas(s, seg)) expand(root, c, value, next);
    current = next;
    if (current.length === 0) break;
  }
  return current;
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

/** The descriptions at a place, Markdown first (`markdownDescription`), each once. */
export function descriptionsOf(schemas: readonly SchemaNode[]): string[] {
  return unique(
    schemas.flatMap((s) => {
      const text =
        typeof s.markdownDescription === "string"
          ? s.markdownDescription
          : typeof s.description === "string"
            ? s.description
            : undefined;
      return text && text.trim() ? [text] : [];
    }),
  );
}

/**
 * The values the schemas allow at a place when they are a closed list (`enum`, `const`): what
 * completion offers. Where a schema says nothing closed, nothing is offered.
 */
export function allowedValues(schemas: readonly SchemaNode[]): unknown[] {
  return unique(
    schemas.flatMap((s) => {
      if (Array.isArray(s.enum)) return s.enum as unknown[];
      if ("const" in s) return [s.const];
      const types = Array.isArray(s.type) ? s.type : [s.type];
      return types.length === 1 && types[0] === "boolean" ? [true, false] : [];
    }),
  );
}

/** The declared types at a place (`string`, `array`…), for a hover's first line. */
export function typesOf(schemas: readonly SchemaNode[]): string[] {
  return unique(
    schemas.flatMap((s) =>
      typeof s.type === "string"
        ? [s.type]
        : Array.isArray(s.type)
          ? s.type.filter((t): t is string => typeof t === "string")
          : [],
    ),
  );
}

/** Property names the schemas declare at a place, with the schemas of each. */
export function propertiesOf(schemas: readonly SchemaNode[]): Map<string, SchemaNode[]> {
  const out = new Map<string, SchemaNode[]>();
  for (const s of schemas)
    if (isNode(s.properties))
      for (const [name, sub] of Object.entries(s.properties))
        if (isNode(sub)) out.set(name, [...(out.get(name) ?? []), sub]);
  return out;
}

/** A property's schemas with what they bring in, for its description. */
export function expandAll(root: SchemaNode, schemas: readonly SchemaNode[]): SchemaNode[] {
  const out: SchemaNode[] = [];
  for (const s of schemas) expand(root, s, UNKNOWN, out);
  return out;
}

/**
 * Sub-schemas of a mapping that fix `key` to `value` (a step kind's definition for its `type`):
 * their descriptions document that value.
 */
export function branchDescriptions(
  schemas: readonly SchemaNode[],
  key: string,
  value: unknown,
): string[] {
  const fixed = schemas.filter((s) => {
    const props = s.properties;
    if (!isNode(props) || !isNode(props[key])) return false;
    const sub = props[key] as Record<string, unknown>;
    return "const" in sub && sub.const === value;
  });
  return descriptionsOf(fixed);
}
