import { describe, expect, it } from "vitest";
import { nodeAt, outlineAt } from "../../../src/core/editor/cursor.js";
import { parsed, withCursor } from "./cursor-helpers.js";

function node(marked: string) {
  const { text, offset } = withCursor(marked);
  return nodeAt(parsed(text), offset);
}

function outline(marked: string) {
  const { lines, line, character } = withCursor(marked);
  return outlineAt(lines, line, character);
}

describe("the node under the cursor in a parsed playbook", () => {
  it("finds a key, a scalar value and the deepest of them", () => {
    expect(node("steps:\n  - id: a\n    ty§pe: end\n")).toMatchObject({
      path: ["steps", 0, "type"],
      on: "key",
    });
    expect(node("steps:\n  - id: a\n    type: e§nd\n")).toMatchObject({
      path: ["steps", 0, "type"],
      on: "value",
      start: 27,
      end: 30,
    });
    expect(node("steps:\n  - id: a\n    next: [x, §y]\n")).toMatchObject({
      path: ["steps", 0, "next", 1],
      on: "value",
    });
    // A quoted value's range is its text, inside the quotes.
    expect(node('body: "hi {{ in§puts.x }}"\n')).toMatchObject({
      path: ["body"],
      start: 7,
      end: 24,
    });
  });

  it("finds an empty value on the rest of its key's line", () => {
    expect(node("steps:\n  - id: a\n    goto: §\n")).toMatchObject({
      path: ["steps", 0, "goto"],
      on: "value",
    });
    expect(node("steps:\n  - id: a\n    goto:\n§\n")).toBeUndefined();
  });

  it("finds nothing on a collection's own punctuation or in blank space", () => {
    expect(node("list: [a, b] §\n")).toBeUndefined();
    expect(node("§\nkey: value\n")).toBeUndefined();
  });
});

describe("the outline at the cursor, from the text alone", () => {
  it("reads a step's field from indentation", () => {
    expect(outline("steps:\n  - id: a\n    type: com§")).toEqual({
      path: ["steps", 0, "type"],
      mode: "value",
      partial: "com",
      partialStart: 10,
    });
  });

  it("counts the list items above", () => {
    expect(outline("steps:\n  - id: a\n    type: end\n  - id: b\n    next: §")?.path).toEqual([
      "steps",
      1,
      "next",
    ]);
    expect(
      outline("steps:\n  - id: a\n    type: end\n    handoff:\n      - x\n      - §"),
    ).toMatchObject({ path: ["steps", 0, "handoff", 1], mode: "item", partial: "" });
  });

  it("reads lists written at their key's indentation", () => {
    expect(outline("steps:\n- id: a\n  next: §")?.path).toEqual(["steps", 0, "next"]);
    expect(outline("handoff:\n- a\n\n# note\n- §")).toMatchObject({ path: ["handoff", 1] });
  });

  it("reads flow collections within the line", () => {
    expect(
      outline("steps:\n  - id: a\n    next:\n      - { condition: x, goto: po§"),
    ).toMatchObject({ path: ["steps", 0, "next", 0, "goto"], mode: "value", partial: "po" });
    expect(outline("steps:\n  - id: a\n  - id: b\n    needs: [a, §")?.path).toEqual([
      "steps",
      1,
      "needs",
      1,
    ]);
    expect(outline("steps:\n  - { id: a, §")).toMatchObject({ path: ["steps", 0], mode: "key" });
    expect(outline("x: [{ a: 1 }, §")).toMatchObject({ path: ["x", 1], mode: "value" });
    expect(outline("x: 'a, b' §")).toMatchObject({ path: ["x"], partial: "'a, b' " });
  });

  it("reads nodes: graphs and keys being typed", () => {
    expect(outline("nodes:\n  pod:\n    type: end\n    next: §")?.path).toEqual([
      "nodes",
      "pod",
      "next",
    ]);
    expect(outline("steps:\n  - id: a\n    ty§")).toEqual({
      path: ["steps", 0],
      mode: "key",
      partial: "ty",
      partialStart: 4,
    });
    expect(outline("steps:\n  - id: a\n    §")).toMatchObject({ path: ["steps", 0], mode: "key" });
    expect(outline('"quoted key":\n  inner: §')?.path).toEqual(["quoted key", "inner"]);
  });

  it("reads a reference being written in a template", () => {
    expect(outline('steps:\n  - id: a\n    body: "Hi {{ steps.b.outputs.u§')).toMatchObject({
      path: ["steps", 0, "body"],
      template: { ref: "steps.b.outputs.u", start: 17 },
    });
    expect(outline("x: Hi {{ inp§")).toMatchObject({ template: { ref: "inp", start: 9 } });
    expect(outline("x: Hi {{ a }} and §")?.template).toBeUndefined();
  });

  it("reads the text of a block scalar as text", () => {
    expect(
      outline("steps:\n  - id: a\n    body: |\n      Note: hello\n      - x {{ run.§"),
    ).toMatchObject({ path: ["steps", 0, "body"], mode: "value", template: { ref: "run." } });
  });

  it("offers nothing in a comment", () => {
    expect(outline("steps:\n  - id: a\n    type: end # a comm§")).toBeUndefined();
    expect(outline("x: y # see {{ inputs.§")).toMatchObject({ template: { ref: "inputs." } });
  });

  it("reads past the last line as an empty one", () => {
    expect(outlineAt(["a:"], 5, 0)).toEqual({
      path: [],
      mode: "key",
      partial: "",
      partialStart: 0,
    });
  });
});
