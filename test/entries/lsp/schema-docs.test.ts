import { describe, expect, it } from "vitest";
import { PLAYBOOK_SCHEMA, STEP_KINDS } from "../../../src/core/format/schema.js";
import {
  allowedValues,
  descriptionsOf,
  expandAll,
  meets,
  propertiesOf,
  schemasAt,
  typesOf,
  type SchemaNode,
} from "../../../src/core/editor/schema-docs.js";

const SCHEMA = PLAYBOOK_SCHEMA as unknown as SchemaNode;

/** A small schema with every construct the walker follows. */
const TOY: SchemaNode = {
  type: "object",
  properties: {
    shape: { $ref: "#/$defs/shape", description: "The shape, described where it is used." },
    tuple: {
      type: "array",
      prefixItems: [{ type: "string", description: "first" }],
      items: { type: "number", description: "the rest" },
    },
    tags: {
      type: "object",
      patternProperties: { "^x-": { type: "string", description: "an extension" }, "(": {} },
      additionalProperties: { type: "boolean", description: "a flag" },
    },
    broken: { $ref: "#/$defs/missing" },
    remote: { $ref: "https://example.com/schema" },
  },
  $defs: {
    shape: {
      type: "object",
      description: "A shape.",
      required: ["kind"],
      properties: { kind: { enum: ["circle", "square"] } },
      anyOf: [{ description: "one of several" }],
      allOf: [
        {
          if: { type: "object", properties: { kind: { const: "circle" } }, required: ["kind"] },
          then: {
            markdownDescription: "A **circle**.",
            description: "plain circle",
            properties: { kind: { const: "circle" }, radius: { type: "number" } },
          },
          else: { properties: { side: { type: "number", description: "Side length." } } },
        },
      ],
    },
  },
};

describe("the schema at a place of a document", () => {
  it("reads a property's own description before its definition's", () => {
    const at = schemasAt(TOY, ["shape"], { shape: { kind: "square" } });
    expect(descriptionsOf(at)).toEqual([
      "The shape, described where it is used.",
      "A shape.",
      "one of several",
    ]);
  });

  it("takes the branch of a condition the value meets, and both when there is no value", () => {
    const circle = schemasAt(TOY, ["shape"], { shape: { kind: "circle" } });
    expect(descriptionsOf(circle)).toContain("A **circle**.");
    expect(descriptionsOf(circle)).not.toContain("plain circle");
    expect([...propertiesOf(circle).keys()].sort()).toEqual(["kind", "radius"]);
    const square = schemasAt(TOY, ["shape"], { shape: { kind: "square" } });
    expect([...propertiesOf(square).keys()].sort()).toEqual(["kind", "side"]);
    const unknown = schemasAt(TOY, ["shape"], undefined);
    expect([...propertiesOf(unknown).keys()].sort()).toEqual(["kind", "radius", "side"]);
    expect(descriptionsOf(schemasAt(TOY, ["shape", "side"], undefined))).toEqual(["Side length."]);
  });

  it("follows items, prefix items, pattern and additional properties", () => {
    expect(descriptionsOf(schemasAt(TOY, ["tuple", 0], undefined))).toEqual(["first"]);
    expect(descriptionsOf(schemasAt(TOY, ["tuple", 3], undefined))).toEqual(["the rest"]);
    expect(descriptionsOf(schemasAt(TOY, ["tags", "x-team"], undefined))).toEqual(["an extension"]);
    expect(descriptionsOf(schemasAt(TOY, ["tags", "urgent"], undefined))).toEqual(["a flag"]);
    expect(allowedValues(schemasAt(TOY, ["tags", "urgent"], undefined))).toEqual([true, false]);
  });

  it("finds nothing past a place the schema does not describe", () => {
    expect(schemasAt(TOY, ["nope", "deeper"], {})).toEqual([]);
    expect(schemasAt(TOY, ["shape", 0], {})).toEqual([]);
    expect(descriptionsOf(schemasAt(TOY, ["broken"], {}))).toEqual([]);
    expect(descriptionsOf(schemasAt(TOY, ["remote"], {}))).toEqual([]);
  });

  it("meets the conditions schemas test", () => {
    expect(meets({ type: "string" }, "x")).toBe(true);
    expect(meets({ type: "string" }, 1)).toBe(false);
    expect(meets({ type: ["number", "null"] }, 2)).toBe(true);
    expect(meets({ type: "number" }, 2.5)).toBe(true);
    expect(meets({ type: "integer" }, 2.5)).toBe(false);
    expect(meets({ type: "array" }, [])).toBe(true);
    expect(meets({ type: "null" }, null)).toBe(true);
    expect(meets({ const: "a" }, "b")).toBe(false);
    expect(meets({ enum: ["a"] }, "a")).toBe(true);
    expect(meets({ enum: ["a"] }, "b")).toBe(false);
    expect(meets({ required: ["k"] }, {})).toBe(false);
    expect(meets({ properties: { k: { const: 1 } } }, { k: 2 })).toBe(false);
    expect(meets({ properties: { k: { const: 1 } } }, { k: 1 })).toBe(true);
  });

  it("reads the playbook schema: a step's kind decides its fields", () => {
    const doc = { steps: [{ id: "a", type: "playbook" }] };
    const step = schemasAt(SCHEMA, ["steps", 0], doc);
    expect(propertiesOf(step).has("mode")).toBe(true);
    expect(propertiesOf(step).has("body")).toBe(false);
    expect(allowedValues(schemasAt(SCHEMA, ["steps", 0, "mode"], doc))).toEqual([
      "delegate",
      "handoff",
    ]);
    expect(allowedValues(schemasAt(SCHEMA, ["steps", 0, "type"], doc))).toEqual(
      expect.arrayContaining([...STEP_KINDS]),
    );
    // The description the schema object gives, whatever it says.
    const defs = (PLAYBOOK_SCHEMA as unknown as { definitions: Record<string, SchemaNode> })
      .definitions;
    const props = defs.step_playbook?.properties as Record<string, SchemaNode>;
    expect(descriptionsOf(schemasAt(SCHEMA, ["steps", 0, "mode"], doc))).toEqual([
      props.mode?.description,
    ]);
    expect(typesOf(schemasAt(SCHEMA, ["steps", 0, "id"], doc))).toEqual(["string"]);
    expect(typesOf([{ type: ["string", "number", 3] }, { type: "string" }])).toEqual([
      "string",
      "number",
    ]);
  });

  it("expands a property's schemas to read their descriptions", () => {
    const props = propertiesOf(schemasAt(SCHEMA, [], {}));
    const id = props.get("id") ?? [];
    expect(descriptionsOf(expandAll(SCHEMA, id)).length).toBeGreaterThan(0);
    expect(
      descriptionsOf([{ description: "  " }, { description: "x" }, { description: "x" }]),
    ).toEqual(["x"]);
  });
});
