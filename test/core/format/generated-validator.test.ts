import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import precompiled from "../../../src/core/format/generated/playbook-validator.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import {
  compileContractSchema,
  compileResponseSchema,
} from "../../../src/core/format/response-schema.js";
import {
  compilePlaybookValidator,
  generateMetaValidatorSource,
  generateValidatorSource,
} from "../../../src/core/format/validator-source.js";

const file = new URL("../../../src/core/format/generated/playbook-validator.ts", import.meta.url);

describe("the precompiled playbook validator", () => {
  it("is exactly what the schema compiles to (run `npm run schema:write` after changing the schema)", () => {
    expect(readFileSync(file, "utf8")).toBe(generateValidatorSource());
  });

  it("reports the same errors as a validator compiled at run time", () => {
    const runtime = compilePlaybookValidator();
    const docs: unknown[] = [
      {
        apiVersion: "playbook-bot/v1",
        id: "ok",
        steps: [{ id: "a", type: "comment", body: "hi" }],
      },
      {
        apiVersion: "playbook-bot/v2",
        id: "bad id",
        steps: [
          { id: "a", type: "comit" },
          { id: "b", type: "comment", bdy: 1 },
        ],
      },
      {
        apiVersion: "playbook-bot/v1",
        id: "x",
        inputs: { "bad key": { type: "enum" } },
        nodes: {},
      },
    ];
    for (const doc of docs) {
      const a = (precompiled as unknown as typeof runtime)(doc);
      const b = runtime(doc);
      expect(a).toBe(b);
      const strip = (errors: typeof runtime.errors) =>
        (errors ?? []).map((e) => [e.keyword, e.instancePath, e.schemaPath, e.params]);
      expect(strip((precompiled as unknown as typeof runtime).errors)).toEqual(
        strip(runtime.errors),
      );
    }
  });
});

describe("the precompiled meta-schema check of response schemas and contracts", () => {
  const metaFile = new URL(
    "../../../src/core/format/generated/json-schema-meta-validator.ts",
    import.meta.url,
  );

  it("is exactly what Ajv's 2020-12 meta-schema compiles to", () => {
    expect(readFileSync(metaFile, "utf8")).toBe(generateMetaValidatorSource());
  });

  it("refuses a schema with Ajv's own message, at any depth", () => {
    const ajv = new Ajv2020({ allErrors: true });
    const schemas: Record<string, unknown>[] = [
      { type: "object", properties: { a: { type: "strin" } } },
      { type: "object", properties: { a: { items: { enum: 3 } } } },
      { type: "object", properties: { a: { anyOf: [{ type: "number" }, { pattern: 5 }] } } },
      { type: "object", $defs: { x: { type: ["string", "nope"] } } },
      { type: "object", additionalProperties: { const: 1, minimum: "x" } },
      { type: "object", properties: { a: { enum: ["x", "x"] } }, required: "a" },
    ];
    for (const schema of schemas) {
      expect(ajv.validateSchema(schema)).toBe(false);
      const compiled = compileContractSchema(schema);
      expect(compiled).toEqual({
        ok: false,
        error: `schema is invalid: ${ajv.errorsText(ajv.errors)}`,
      });
      expect(compileResponseSchema(schema).ok).toBe(false);
    }
  });

  it("accepts a valid schema and checks values with it; another draft goes to Ajv's own check", () => {
    const compiled = compileContractSchema({
      type: "object",
      properties: { n: { type: "integer", minimum: 1 }, tags: { uniqueItems: true } },
      required: ["n"],
    });
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    expect(compiled.validate({ n: 2, tags: [{ a: 1 }, { a: 2 }] })).toBe(true);
    expect(compiled.validate({ n: 2, tags: [{ a: 1 }, { a: 1 }] })).toBe(false);
    expect(compiled.validate({ n: 0 })).toBe(false);
    const other = compileContractSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
    });
    expect(other.ok).toBe(false);
    if (!other.ok) expect(other.error).toMatch(/draft-07/);
  });

  it("compiles a schema with an $id again after it has been compiled once", () => {
    const schema = { $id: "https://example.test/s", type: "object" };
    expect(compileResponseSchema(schema).ok).toBe(true);
    expect(
      compileResponseSchema({ ...schema, properties: { a: { type: "string" } }, required: ["a"] }),
    ).toMatchObject({ ok: true });
  });
});
