import { describe, expect, it } from "vitest";
import { PLAYBOOK_SCHEMA } from "../../../src/core/format/schema.js";
import {
  definitionAt,
  stepDefinition,
  templateNameAt,
} from "../../../src/entries/lsp/definition.js";
import { hoverAt, inlineCode } from "../../../src/core/editor/hover.js";
import type { SchemaNode } from "../../../src/core/editor/schema-docs.js";
import { parsed, withCursor } from "./cursor-helpers.js";

const SCHEMA = PLAYBOOK_SCHEMA as unknown as SchemaNode;

const PLAYBOOK = `apiVersion: playbook-bot/v1
id: main
inputs:
  package: { type: string }
steps:
  - id: start
    type: comment
    body: "Bump {{ inputs.package }} after {{ steps.start.outputs.url }} {{ run.id }}"
    next: [{ condition: ok, goto: finish }, { condition: no, goto: nowhere }]
    on_error: goto:finish
  - id: hand
    type: playbook
    playbook: helper
    mode: handoff
  - id: finish
    type: end
    handoff: [other]
`;

function at(edit: (text: string) => string) {
  const { text, offset } = withCursor(edit(PLAYBOOK));
  return { doc: parsed(text), offset };
}

describe("hover", () => {
  it("shows the place, what it accepts and the schema's description of a key", () => {
    const { doc, offset } = at((t) => t.replace("mode: handoff", "mo§de: handoff"));
    const hover = hoverAt(doc, offset, SCHEMA);
    const defs = (PLAYBOOK_SCHEMA as unknown as { definitions: Record<string, SchemaNode> })
      .definitions;
    const mode = (defs.step_playbook?.properties as Record<string, SchemaNode>).mode
      ?.description as string;
    expect(hover?.markdown).toBe(`\`steps[1].mode\` — \`delegate\` | \`handoff\`\n\n${mode}`);
    expect(doc.text.slice(hover?.start, hover?.end)).toBe("mode");
  });

  it("shows a value's type when it has no closed list, and the definition a value selects", () => {
    const { doc, offset } = at((t) => t.replace("id: start", "id: st§art"));
    expect(hoverAt(doc, offset, SCHEMA)?.markdown).toMatch(/^`steps\[0\]\.id` — string\n\n/);
    const schema: SchemaNode = {
      properties: {
        steps: {
          items: {
            properties: { type: { enum: ["comment", "end"] } },
            anyOf: [
              { properties: { type: { const: "comment" } }, description: "Posts a comment." },
            ],
          },
        },
      },
    };
    const kind = at((t) => t.replace("type: comment", "type: com§ment"));
    expect(hoverAt(kind.doc, kind.offset, schema)?.markdown).toBe(
      "`steps[0].type` — `comment` | `end`\n\nPosts a comment.",
    );
  });

  it("lists a long closed list by its type, and each description once", () => {
    const many = Array.from({ length: 21 }, (_, i) => `v${i}`);
    const schema: SchemaNode = {
      properties: {
        id: { type: "string", enum: many, description: "Same." },
        steps: {
          items: {
            properties: { type: { const: "comment", description: "Same." } },
            anyOf: [{ properties: { type: { const: "comment" } }, description: "Same." }],
          },
        },
      },
    };
    const id = at((t) => t.replace("id: main", "id: ma§in"));
    expect(hoverAt(id.doc, id.offset, schema)?.markdown).toBe("`id` — string\n\nSame.");
    const kind = at((t) => t.replace("type: comment", "type: com§ment"));
    expect(hoverAt(kind.doc, kind.offset, schema)?.markdown).toBe(
      "`steps[0].type` — `comment`\n\nSame.",
    );
  });

  it("says nothing where the schema says nothing, or off any key or value", () => {
    const unknown = at((t) => t.replace("mode: handoff", "mode: handoff\n    ex§tra: 1"));
    expect(hoverAt(unknown.doc, unknown.offset, SCHEMA)).toBeUndefined();
    const blank = at((t) => t.replace("steps:\n", "steps:\n§\n"));
    expect(hoverAt(blank.doc, blank.offset, SCHEMA)).toBeUndefined();
  });

  it("keeps keys inert in Markdown", () => {
    expect(inlineCode("a`b")).toBe("``a`b``");
    expect(inlineCode("`x")).toBe("`` `x ``");
    expect(inlineCode("plain")).toBe("`plain`");
  });
});

describe("go to definition", () => {
  it("goes from a goto, next or on_error target to the step's id", () => {
    const goto = at((t) => t.replace("goto: finish", "goto: fin§ish"));
    const target = definitionAt(goto.doc, goto.offset);
    expect(target).toEqual({
      kind: "here",
      span: expect.objectContaining({ line: 15, column: 9 }),
    });
    const error = at((t) => t.replace("goto:finish", "goto:fi§nish"));
    expect(definitionAt(error.doc, error.offset)).toEqual(target);
    const missing = at((t) => t.replace("goto: nowhere", "goto: now§here"));
    expect(definitionAt(missing.doc, missing.offset)).toBeUndefined();
  });

  it("goes from a nodes: graph's target to the node's key", () => {
    const { doc, offset } = at(
      () => "entrypoint: a\nnodes:\n  a: { type: comment, next: b§ }\n  b: { type: end }\n",
    );
    expect(definitionAt(doc, offset)).toEqual({
      kind: "here",
      span: { line: 4, column: 3, endLine: 4, endColumn: 4 },
    });
    expect(stepDefinition(doc, "zz")).toBeUndefined();
  });

  it("names the playbook a delegate or handoff targets", () => {
    const delegate = at((t) => t.replace("playbook: helper", "playbook: hel§per"));
    expect(definitionAt(delegate.doc, delegate.offset)).toEqual({ kind: "playbook", id: "helper" });
    const handoff = at((t) => t.replace("handoff: [other]", "handoff: [oth§er]"));
    expect(definitionAt(handoff.doc, handoff.offset)).toEqual({ kind: "playbook", id: "other" });
    const odd = at((t) => t.replace("handoff: [other]", "handoff: [1§2]"));
    expect(definitionAt(odd.doc, odd.offset)).toBeUndefined();
  });

  it("goes from a template's step or input to where it is declared", () => {
    const step = at((t) => t.replace("steps.start.outputs", "steps.st§art.outputs"));
    expect(definitionAt(step.doc, step.offset)).toEqual({
      kind: "here",
      span: expect.objectContaining({ line: 6, column: 9 }),
    });
    const input = at((t) => t.replace("inputs.package }}", "inputs.pack§age }}"));
    expect(definitionAt(input.doc, input.offset)).toEqual({
      kind: "here",
      span: expect.objectContaining({ line: 4, column: 3, endColumn: 10 }),
    });
    for (const edit of [
      (t: string) => t.replace("run.id", "run.§id"),
      (t: string) => t.replace("Bump {{", "Bu§mp {{"),
      (t: string) => t.replace("type: end", "type: e§nd"),
      (t: string) => t.replace("mode: handoff", "mo§de: handoff"),
      (t: string) => t.replace("{{ inputs.package }}", "{{ inputs.nothing§ }}"),
      (t: string) => t.replace("{{ run.id }}", "{{ steps.gone§ }}"),
    ]) {
      const place = at(edit);
      expect(definitionAt(place.doc, place.offset)).toBeUndefined();
    }
  });

  it("reads the name inside braces under a position", () => {
    expect(templateNameAt("a {{ steps.x.outputs.y }} b", 8)).toBe("steps.x.outputs.y");
    expect(templateNameAt("a {{ x }} b", 1)).toBeUndefined();
    expect(templateNameAt("a {{ x }} b", 10)).toBeUndefined();
    expect(templateNameAt("{{ a or b", 8)).toBe("b");
    expect(templateNameAt("{{ a  or b }}", 4)).toBe("a");
    expect(templateNameAt("{{ a  or b }}", 5)).toBeUndefined();
  });
});
