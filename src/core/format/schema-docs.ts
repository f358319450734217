/**
 * What the playbook schema says to people in their editors, and the means to write it once.
 *
 * Every field is documented twice from one text: `description` (plain text, for every editor and
 * for SchemaStore) and `markdownDescription` (VS Code and the YAML language server render it, with
 * a YAML example under the text). Enum values are documented one by one (`enumDescriptions`,
 * `markdownEnumDescriptions`, in the order of `enum`). These keywords, `examples` and
 * `defaultSnippets` only inform; the validator compiles the schema without them
 * (`forValidation`), so they can never change what is valid.
 */
export type Json = Record<string, unknown>;

/** The documentation of one place in the schema. */
export interface Doc {
  /**
   * Markdown in which only `inline code` is marked up, so that the plain description is the same
   * words without the backticks. Names in angle brackets (`<step>`) go inside backticks, where
   * Markdown does not read them as HTML.
   */
  md: string;
  /** A YAML example, shown as a code block under the text in editors that render Markdown. */
  yaml?: string;
  /** Values of this form, offered by editors and listed as `examples`. */
  examples?: readonly unknown[];
}

/** Keywords of VS Code's JSON language service that SchemaStore accepts (its non-standard list). */
export const EDITOR_KEYWORDS = [
  "markdownDescription",
  "enumDescriptions",
  "markdownEnumDescriptions",
  "defaultSnippets",
] as const;

/** Keywords that only inform: the validator's copy of the schema has none of them. */
const ANNOTATIONS: ReadonlySet<string> = new Set([...EDITOR_KEYWORDS, "description", "examples"]);

/** The plain text of a doc's Markdown: the same words, without code marks. */
export function plainText(md: string): string {
  return md.replace(/`([^`]*)`/g, "$1");
}

/** The annotation keywords of a doc. */
export function docKeywords(doc: Doc | string): Json {
  const d = typeof doc === "string" ? { md: doc } : doc;
  const markdown = d.yaml === undefined ? d.md : `${d.md}\n\n\`\`\`yaml\n${d.yaml}\n\`\`\``;
  const out: Json = { description: plainText(d.md), markdownDescription: markdown };
  if (d.examples) out.examples = [...d.examples];
  return out;
}

/** A schema with its doc (its own type kept, so that code can still read into it). */
export function documented<T extends object>(schema: T, doc: Doc | string): T & Json {
  return { ...schema, ...docKeywords(doc) };
}

/** A string field. */
export function text(doc: Doc | string): Json {
  return documented({ type: "string" }, doc);
}

/** A list of strings. */
export function texts(doc: Doc | string, items: Json = { type: "string" }): Json {
  return documented({ type: "array", items }, doc);
}

/** An enum whose values are documented one by one (Markdown; plain text derived), in its order. */
export function documentedEnum<V extends string>(
  values: readonly V[],
  docs: Readonly<Record<V, string>>,
): Json {
  const md = values.map((v) => docs[v]);
  return {
    enum: [...values],
    enumDescriptions: md.map(plainText),
    markdownEnumDescriptions: md,
  };
}

/**
 * The schema as the validator compiles it, which accepts exactly the same documents: without its
 * annotations, and with a choice among bare types (`anyOf: [{type: string}, {type: number}]`)
 * written as the type list it means (`type: [string, number]`), so that a value of none of them
 * gets one error naming them all instead of one per alternative.
 */
export function forValidation(schema: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    out[key] = mapSubschemas(key, value, (s) => forValidation(s));
  }
  const types = bareTypes(out.anyOf);
  if (types && out.type === undefined) {
    delete out.anyOf;
    out.type = types;
  }
  return out;
}

/** The types of an `anyOf` whose every alternative is nothing but a type; otherwise undefined. */
function bareTypes(anyOf: unknown): string[] | undefined {
  if (!Array.isArray(anyOf) || anyOf.length === 0) return undefined;
  const types: string[] = [];
  for (const alternative of anyOf) {
    if (!isSchema(alternative)) return undefined;
    const keys = Object.keys(alternative);
    if (keys.length !== 1 || keys[0] !== "type" || typeof alternative.type !== "string")
      return undefined;
    types.push(alternative.type);
  }
  return types;
}

/** Keywords whose value is a map of subschemas. */
const SCHEMA_MAPS = new Set(["properties", "definitions", "patternProperties"]);
/** Keywords whose value is one subschema. */
const SCHEMA_ONE = new Set([
  "items",
  "additionalProperties",
  "propertyNames",
  "contains",
  "not",
  "if",
  "then",
  "else",
]);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf"]);

const isSchema = (v: unknown): v is Json =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** A keyword's value with each subschema in it replaced; data keywords (enum, default, …) as they are. */
function mapSubschemas(key: string, value: unknown, f: (s: Json) => Json): unknown {
  if (SCHEMA_MAPS.has(key) && isSchema(value))
    return Object.fromEntries(Object.entries(value).map(([k, s]) => [k, isSchema(s) ? f(s) : s]));
  if (SCHEMA_ONE.has(key) && isSchema(value)) return f(value);
  if (SCHEMA_LISTS.has(key) && Array.isArray(value))
    return value.map((s) => (isSchema(s) ? f(s) : s));
  return value;
}

/** One subschema met by `walkSchema`. */
export interface SchemaPlace {
  schema: Json;
  /** JSON pointer from the root (`/properties/steps/items`). */
  pointer: string;
  /** The property it describes, when it is the value of a `properties` entry. */
  property?: string;
  /** The definition it is, when it is a `definitions` entry. */
  definition?: string;
  /** Inside an `if`: a test the validator makes, not a shape a document takes. */
  condition: boolean;
}

const escapePointer = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** Visit every subschema of a schema, the root first. */
export function walkSchema(root: Json, visit: (place: SchemaPlace) => void): void {
  const go = (place: SchemaPlace): void => {
    visit(place);
    for (const [key, value] of Object.entries(place.schema)) {
      const at = `${place.pointer}/${escapePointer(key)}`;
      const condition = place.condition || key === "if";
      if (SCHEMA_MAPS.has(key) && isSchema(value)) {
        for (const [name, s] of Object.entries(value)) {
          if (!isSchema(s)) continue;
          const child: SchemaPlace = {
            schema: s,
            pointer: `${at}/${escapePointer(name)}`,
            condition,
          };
          if (key === "properties") child.property = name;
          if (key === "definitions") child.definition = name;
          go(child);
        }
      } else if (SCHEMA_ONE.has(key) && isSchema(value)) {
        go({ schema: value, pointer: at, condition });
      } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
        value.forEach((s, i) => {
          if (isSchema(s)) go({ schema: s, pointer: `${at}/${i}`, condition });
        });
      }
    }
  };
  go({ schema: root, pointer: "", condition: false });
}
