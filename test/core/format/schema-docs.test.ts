import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Ajv, type ErrorObject } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { validateSource } from "../../../src/core/rules/validate.js";
import {
  EDITOR_KEYWORDS,
  documentedEnum,
  forValidation,
  plainText,
  walkSchema,
  type Json,
  type SchemaPlace,
} from "../../../src/core/format/schema-docs.js";
import {
  PLAYBOOK_SCHEMA,
  SCHEMA_DRAFT,
  SCHEMA_ID,
  STEP_KINDS,
} from "../../../src/core/format/schema.js";
import {
  compilePlaybookValidator,
  VALIDATION_SCHEMA,
  VALIDATOR_OPTIONS,
} from "../../../src/core/format/validator-source.js";
import { main } from "../../../src/entries/cli/main.js";
import { GENERIC_ALERT_SCHEMA } from "../../../src/core/alerts/generic-schema.js";

const schema = PLAYBOOK_SCHEMA as unknown as Json;
const definitions = schema.definitions as Record<string, Json>;
const places: SchemaPlace[] = [];
walkSchema(schema, (place) => places.push(place));

/**
 * The keywords SchemaStore's check adds to Ajv for editors (cli.js, `ajvFactory`): the ones of
 * VS Code's JSON language service. A schema using any other unknown keyword fails its strict mode.
 */
const SCHEMASTORE_EDITOR_KEYWORDS = [
  "allowTrailingCommas",
  "defaultSnippets",
  "markdownDescription",
  "enumDescriptions",
  "markdownEnumDescriptions",
];
/** The drafts SchemaStore takes without listing the schema as an exception ("too high"). */
const SCHEMASTORE_DRAFTS = [
  "http://json-schema.org/draft-07/schema#",
  "http://json-schema.org/draft-06/schema#",
  "http://json-schema.org/draft-04/schema#",
];

/** Ajv as SchemaStore compiles a draft-07 schema: strict, its editor keywords known, no formats. */
function schemaStoreAjv(): Ajv {
  const ajv = new Ajv({ strict: true, allErrors: true });
  for (const keyword of SCHEMASTORE_EDITOR_KEYWORDS) ajv.addKeyword(keyword);
  return ajv;
}

/** One Ajv holding the schema, to validate values against any place in it. */
const editorAjv = schemaStoreAjv();
editorAjv.addSchema(schema);
const validateAt = (pointer: string) => editorAjv.compile({ $ref: `${SCHEMA_ID}#${pointer}` });

const isBareRef = (s: Json): boolean => typeof s.$ref === "string" && Object.keys(s).length === 1;
const hasDocs = (s: Json): boolean =>
  typeof s.description === "string" &&
  s.description.trim() !== "" &&
  typeof s.markdownDescription === "string" &&
  s.markdownDescription.trim() !== "";
const refTarget = (s: Json): Json | undefined =>
  definitions[String(s.$ref).replace("#/definitions/", "")];

/** A snippet's body with every placeholder taken at its default (or its first choice). */
function fillPlaceholders(body: unknown): unknown {
  return JSON.parse(JSON.stringify(body), (_key, value: unknown) =>
    typeof value === "string"
      ? value.replace(/\$\{[0-9]+:([^}]*)\}/g, "$1").replace(/\$\{[0-9]+\|([^,|]*)[^}]*\|\}/g, "$1")
      : value,
  );
}

const errorsOf = (errors: ErrorObject[] | null | undefined): string =>
  (errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ""}`).join("; ");

/** The ```yaml blocks of a Markdown text. */
const yamlBlocks = (md: string): string[] =>
  [...md.matchAll(/```yaml\n([\s\S]*?)\n```/g)].map((m) => m[1] as string);

describe("the playbook schema's documentation", () => {
  it("documents every property and every definition, in plain text and in Markdown", () => {
    const named = places.filter((p) => (p.property ?? p.definition) !== undefined && !p.condition);
    const undocumented = named
      .filter((p) => {
        if (hasDocs(p.schema)) return false;
        // A property that is nothing but a reference takes the definition's documentation.
        const target = isBareRef(p.schema) ? refTarget(p.schema) : undefined;
        return !(target && hasDocs(target));
      })
      .map((p) => p.pointer);
    expect(undocumented).toEqual([]);
    expect(named.filter((p) => p.property !== undefined).length).toBeGreaterThan(300);
    expect(Object.keys(definitions).every((d) => hasDocs(definitions[d] as Json))).toBe(true);
  });

  it("writes descriptions as plain text and keeps Markdown for markdownDescription", () => {
    const problems: string[] = [];
    for (const { schema: s, pointer } of places) {
      if (typeof s.description !== "string") continue;
      const md = String(s.markdownDescription);
      if (s.description.includes("`")) problems.push(`${pointer}: description has code marks`);
      if (/:\s*$/.test(s.description)) problems.push(`${pointer}: description ends with ':'`);
      if (plainText(md.split("\n\n```yaml\n")[0] as string) !== s.description)
        problems.push(`${pointer}: description and markdownDescription say different things`);
      // Outside code, <word> would be read as HTML and vanish from the hover.
      const prose = md.replace(/```[\s\S]*?```/g, "").replace(/`[^`]*`/g, "");
      if (/<[A-Za-z/]/.test(prose)) problems.push(`${pointer}: markdown has HTML-like <…>`);
    }
    expect(problems).toEqual([]);
  });

  it("documents every enum value, one text per value, in the enum's order", () => {
    const enums = places.filter((p) => Array.isArray(p.schema.enum));
    expect(enums.length).toBeGreaterThan(20);
    const problems: string[] = [];
    for (const { schema: s, pointer } of enums) {
      const values = s.enum as unknown[];
      const plain = s.enumDescriptions as unknown;
      const md = s.markdownEnumDescriptions as unknown;
      if (!Array.isArray(plain) || !Array.isArray(md)) {
        problems.push(`${pointer}: no enum descriptions`);
        continue;
      }
      if (plain.length !== values.length || md.length !== values.length)
        problems.push(`${pointer}: ${values.length} values, ${plain.length}/${md.length} texts`);
      md.forEach((text, i) => {
        if (typeof text !== "string" || text.trim() === "")
          problems.push(`${pointer}: value ${String(values[i])} has no text`);
        else if (plainText(text) !== plain[i])
          problems.push(`${pointer}: value ${String(values[i])}'s texts differ`);
      });
    }
    expect(problems).toEqual([]);
  });

  it("pairs each value's text with the value whatever order the texts are written in", () => {
    const e = documentedEnum(["b", "a", "c"], { a: "The `a`.", c: "The c.", b: "The b." });
    expect(e).toEqual({
      enum: ["b", "a", "c"],
      enumDescriptions: ["The b.", "The a.", "The c."],
      markdownEnumDescriptions: ["The b.", "The `a`.", "The c."],
    });
    const kinds = (definitions.step as { properties: { type: Json } }).properties.type;
    expect(kinds.enum).toEqual([...STEP_KINDS]);
    const commit = (kinds.enumDescriptions as string[])[STEP_KINDS.indexOf("commit")];
    expect(commit).toMatch(/^Writes files in one atomic commit/);
  });

  it("offers snippets that fill in to values the schema accepts where they are offered", () => {
    const offered = places.filter((p) => Array.isArray(p.schema.defaultSnippets));
    expect(offered.map((p) => p.pointer).sort()).toEqual([
      "",
      "/definitions/listed_step",
      "/properties/nodes/additionalProperties",
    ]);
    for (const { schema: s, pointer } of offered) {
      const validate = validateAt(pointer);
      const snippets = s.defaultSnippets as { label: string; body: unknown }[];
      expect(new Set(snippets.map((x) => x.label)).size).toBe(snippets.length);
      for (const snippet of snippets) {
        const filled = fillPlaceholders(snippet.body);
        expect(JSON.stringify(filled), snippet.label).not.toMatch(/\$\{?[0-9]/);
        expect(validate(filled), `${pointer} ${snippet.label}: ${errorsOf(validate.errors)}`).toBe(
          true,
        );
      }
    }
    // A snippet for every step kind, in lists and in nodes.
    for (const at of ["/definitions/listed_step", "/properties/nodes/additionalProperties"]) {
      const place = offered.find((p) => p.pointer === at) as SchemaPlace;
      const kinds = (place.schema.defaultSnippets as { body: { type: string } }[]).map(
        (x) => x.body.type,
      );
      expect([...kinds].sort()).toEqual([...STEP_KINDS].sort());
    }
  });

  it("offers new playbooks that pass every gate, golden case included, once filled in", () => {
    const snippets = schema.defaultSnippets as { label: string; body: unknown }[];
    expect(snippets.length).toBeGreaterThan(1);
    for (const snippet of snippets) {
      const text = JSON.stringify(fillPlaceholders(snippet.body), null, 2);
      const report = validateSource("snippet.yaml", text);
      expect(
        report.diagnostics.map((d) => `${d.rule}: ${d.message}`),
        snippet.label,
      ).toEqual([]);
    }
  });

  it("gives examples that the schema accepts where they stand", () => {
    const withExamples = places.filter((p) => Array.isArray(p.schema.examples));
    expect(withExamples.length).toBeGreaterThan(40);
    for (const { schema: s, pointer } of withExamples) {
      const validate = validateAt(pointer);
      for (const example of s.examples as unknown[])
        expect(validate(example), `${pointer} ${JSON.stringify(example)}`).toBe(true);
    }
    // The check bites: an id example that is not an id is refused.
    expect(validateAt("/definitions/id")("not an id")).toBe(false);
  });

  it("shows YAML examples that the schema accepts where they stand", () => {
    let shown = 0;
    for (const { schema: s, pointer, property, definition } of places) {
      if (typeof s.markdownDescription !== "string") continue;
      // The field an example shows: the property, or the field a definition is the value of.
      const field = property ?? definition?.replace(/^step_field_/, "");
      for (const block of yamlBlocks(s.markdownDescription)) {
        shown++;
        const value = load(block) as unknown;
        const validate = validateAt(pointer);
        // A definition's example may be a value of it; otherwise an example shows the field (with
        // others around it where they belong together) holding a value of it.
        let ok = property === undefined && validate(value);
        if (!ok && field !== undefined && value !== null && typeof value === "object")
          ok = Object.hasOwn(value, field) && validate((value as Json)[field]);
        expect(ok, `${pointer}:\n${block}\n${errorsOf(validate.errors)}`).toBe(true);
      }
    }
    expect(shown).toBeGreaterThan(60);
  });
});

describe("the schema's identity and its files", () => {
  it("is written in draft-07, identified as format v1, as docs/editors.md says", () => {
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(SCHEMA_DRAFT).toBe(schema.$schema);
    expect(schema.$id).toBe("https://playbook-bot.dev/schema/playbook.v1.schema.json");
    expect(SCHEMA_ID).toBe(schema.$id);
    const readme = readFileSync("docs/editors.md", "utf8");
    expect(readme).toContain(SCHEMA_ID);
    expect(readme).toContain("draft-07");
    expect(readme).toContain("# yaml-language-server: $schema=");
    expect(readme).toContain('"yaml.schemas"');
    expect(readme).toContain("node_modules/playbook-bot/schema/playbook.v1.schema.json");
  });

  it("shares its draft with the generic alert schema, which compiles strictly in it", () => {
    expect(GENERIC_ALERT_SCHEMA.$schema).toBe(schema.$schema);
    const ajv = new Ajv({ strict: true, allowUnionTypes: true });
    const validate = ajv.compile(GENERIC_ALERT_SCHEMA);
    expect(validate({ version: "1", dedup_key: "k", status: "firing", title: "t" })).toBe(true);
    expect(validate({ version: "1", dedup_key: "k", status: "firing" })).toBe(false);
  });

  it("is what `playbook-bot schema` prints, byte for byte, for both schemas in schema/", async () => {
    for (const [args, file] of [
      [["schema"], "schema/playbook.v1.schema.json"],
      [["schema", "--generic-alert"], "schema/alert.generic.v1.schema.json"],
    ] as const) {
      let out = "";
      const code = await main(args, { out: (t) => (out += t), err: () => {}, cwd: "." });
      expect(code).toBe(0);
      expect(readFileSync(file, "utf8"), `${file}: run npm run schema:write`).toBe(out);
    }
  });
});

describe("SchemaStore's checks", () => {
  it("compiles in Ajv's strict mode for its draft, with no keyword or format SchemaStore lacks", () => {
    expect(SCHEMASTORE_DRAFTS).toContain(schema.$schema);
    expect(String(schema.$id)).toMatch(/^https:\/\//);
    for (const keyword of EDITOR_KEYWORDS) expect(SCHEMASTORE_EDITOR_KEYWORDS).toContain(keyword);
    const ajv = schemaStoreAjv();
    expect(ajv.validateSchema(schema), ajv.errorsText(ajv.errors)).toBe(true);
    expect(() => ajv.compile(schema)).not.toThrow();
    // The check bites: a keyword no editor defines, or a type list, fails strict mode.
    expect(() => schemaStoreAjv().compile({ ...schema, $id: "x:1", "x-mine": 1 })).toThrow(
      /unknown keyword/,
    );
    expect(() =>
      schemaStoreAjv().compile({
        $id: "x:2",
        type: "object",
        properties: { a: { type: ["string", "number"] } },
      }),
    ).toThrow(/allowUnionTypes/);
  });

  it("passes the description coverage of SchemaStore's coverage tool", () => {
    // As its walkProperties does: properties, array items and additionalProperties from the root,
    // not through $ref or into definitions; each property needs a description of its own.
    const missing: string[] = [];
    let counted = 0;
    const walk = (s: Json, at: string): void => {
      for (const [name, sub] of Object.entries((s.properties as Record<string, Json>) ?? {})) {
        counted++;
        if (!String(sub.description ?? "").trim()) missing.push(`${at}.${name}`);
        walk(sub, `${at}.${name}`);
      }
      if (s.items && typeof s.items === "object") walk(s.items as Json, `${at}[]`);
      if (s.additionalProperties && typeof s.additionalProperties === "object")
        walk(s.additionalProperties as Json, `${at}.*`);
    };
    walk(schema, "");
    expect(missing).toEqual([]);
    expect(counted).toBeGreaterThan(30);
  });

  it("uses every definition, and no description or title ends with a colon", () => {
    const refs = new Set<string>();
    walkSchema(schema, ({ schema: s }) => {
      if (typeof s.$ref === "string") refs.add(s.$ref);
    });
    const unused = Object.keys(definitions).filter((d) => !refs.has(`#/definitions/${d}`));
    expect(unused).toEqual([]);
    const colon = places.filter(
      (p) =>
        /:$/.test(String(p.schema.description ?? "")) || /:$/.test(String(p.schema.title ?? "")),
    );
    expect(colon.map((p) => p.pointer)).toEqual([]);
  });
});

/** The documents validation is compared on: the bundled and the fixture playbooks, and variants of them. */
function corpus(): unknown[] {
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = join(dir, f);
      return statSync(p).isDirectory() ? files(p) : /\.ya?ml$/.test(f) ? [p] : [];
    });
  const docs = [...files("playbooks"), ...files("test/fixtures/playbooks")].map((f) =>
    load(readFileSync(f, "utf8")),
  );
  const out: unknown[] = [];
  const replacements: unknown[] = [42, "x y", null];
  for (const doc of docs) {
    out.push(doc);
    const paths: (string | number)[][] = [];
    const walk = (v: unknown, p: (string | number)[]): void => {
      paths.push(p);
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...p, i]));
      else if (v !== null && typeof v === "object")
        for (const [k, x] of Object.entries(v)) walk(x, [...p, k]);
    };
    walk(doc, []);
    for (const p of paths.slice(1)) {
      for (const r of replacements) out.push(changed(doc, p, (parent, key) => (parent[key] = r)));
      out.push(changed(doc, p, (parent, key) => delete parent[key]));
      out.push(
        changed(doc, p, (parent, key) => (parent[key] = { ...(parent[key] as Json), bogus: 1 })),
      );
    }
  }
  return out;
}

function changed(
  doc: unknown,
  path: (string | number)[],
  change: (parent: Record<string | number, unknown>, key: string | number) => void,
): unknown {
  const copy = structuredClone(doc) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  change(parent, path[path.length - 1] as string | number);
  return copy;
}

/** The schema written in draft 2020-12: `$defs` for `definitions`. */
function inDraft2020(s: Json): Json {
  const text = JSON.stringify(s).replaceAll('"#/definitions/', '"#/$defs/');
  const { definitions: defs, ...rest } = JSON.parse(text) as Json;
  return { ...rest, $schema: "https://json-schema.org/draft/2020-12/schema", $defs: defs };
}

describe("validation, whatever the editors' additions and the draft", () => {
  const documents = corpus();
  const validator = compilePlaybookValidator();
  const summary = (errors: ErrorObject[] | null | undefined): string =>
    JSON.stringify((errors ?? []).map((e) => [e.keyword, e.instancePath, e.params]));

  it("accepts and refuses the same documents with the schema editors read", () => {
    const editor = schemaStoreAjv().compile(schema);
    let refused = 0;
    for (const doc of documents) {
      const valid = validator(doc);
      if (!valid) refused++;
      expect(editor(doc), JSON.stringify(doc).slice(0, 200)).toBe(valid);
    }
    expect(refused).toBeGreaterThan(documents.length / 2);
    expect(documents.length - refused).toBeGreaterThan(5);
  });

  it("reports the same errors as the same schema written in draft 2020-12", () => {
    const draft2020 = new Ajv2020(VALIDATOR_OPTIONS).compile(inDraft2020(VALIDATION_SCHEMA));
    for (const doc of documents) {
      expect(draft2020(doc)).toBe(validator(doc));
      expect(summary(draft2020.errors)).toBe(summary(validator.errors));
    }
  });

  it("walks every subschema with its pointer, and marks what lies under an if", () => {
    const seen: string[] = [];
    walkSchema(
      {
        properties: { "a/b": { items: { type: "string" } }, yes: true },
        definitions: { "t~": { allOf: [true, { not: { type: "null" } }] } },
        if: { properties: { kind: { const: "x" } } },
        then: { required: ["kind"] },
        enum: [{ properties: "data, not a schema" }],
      },
      (p) =>
        seen.push(
          `${p.pointer}|${p.property ?? ""}|${p.definition ?? ""}|${p.condition ? "if" : ""}`,
        ),
    );
    expect(seen).toEqual([
      "|||",
      "/properties/a~1b|a/b||",
      "/properties/a~1b/items|||",
      "/definitions/t~0||t~|",
      "/definitions/t~0/allOf/1|||",
      "/definitions/t~0/allOf/1/not|||",
      "/if|||if",
      "/if/properties/kind|kind||if",
      "/then|||",
    ]);
  });

  it("compiles a schema without annotations, keeping fields named like them", () => {
    expect(
      forValidation({
        description: "d",
        markdownDescription: "m",
        examples: ["e"],
        properties: {
          description: { type: "string", description: "a field named description" },
          examples: { anyOf: [{ type: "string" }, { type: "number" }], examples: [1] },
          mixed: { anyOf: [{ type: "string", minLength: 1 }, { type: "number" }] },
          typed: { type: "object", anyOf: [{ type: "object" }] },
          listed: { anyOf: [{ type: ["string", "null"] }, { type: "number" }] },
          empty: { anyOf: [] },
          open: { anyOf: [true, { type: "number" }] },
          anything: true,
        },
        allOf: [false, { description: "gone", minimum: 1 }],
        defaultSnippets: [{ body: {} }],
      }),
    ).toEqual({
      properties: {
        description: { type: "string" },
        examples: { type: ["string", "number"] },
        mixed: { anyOf: [{ type: "string", minLength: 1 }, { type: "number" }] },
        typed: { type: "object", anyOf: [{ type: "object" }] },
        listed: { anyOf: [{ type: ["string", "null"] }, { type: "number" }] },
        empty: { anyOf: [] },
        open: { anyOf: [true, { type: "number" }] },
        anything: true,
      },
      allOf: [false, { minimum: 1 }],
    });
  });
});
