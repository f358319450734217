import { describe, expect, it } from "vitest";
import { editor, value } from "./source-helpers.js";
import { blockLines, flowText, scalarText } from "../../../src/core/systematise/text-edit.js";

describe("text-edit: writing values", () => {
  it("writes empty collections as {} and [] at any level", () => {
    expect(flowText({})).toBe("{}");
    expect(flowText({ a: {}, b: [] })).toBe("{ a: {}, b: [] }");
    expect(blockLines([], 2)).toEqual(["[]"]);
    expect(blockLines({}, 2)).toEqual(["{}"]);
    expect(blockLines({ a: [{ b: { c: 1 } }] }, 3)).toEqual(["a:", "  - b: { c: 1 }"]);
  });

  it("writes null, numbers and booleans as themselves and quotes text that reads otherwise", () => {
    expect(scalarText(null)).toBe("null");
    expect(scalarText(undefined)).toBe("null");
    expect(scalarText(3)).toBe("3");
    expect(scalarText(false)).toBe("false");
    expect(scalarText("null")).not.toBe("null");
    expect(value(`v: ${scalarText("null")}\n`)).toEqual({ v: "null" });
  });
});

describe("SourceEditor: edge shapes", () => {
  it("reads no value below a scalar", () => {
    const e = editor("a: 1\n");
    expect(e.valueAt(["a", "b"])).toBeUndefined();
    expect(e.valueAt(["a"])).toBe(1);
  });

  it("refuses to set the root or a path not written", () => {
    const e = editor("a: 1\n");
    expect(e.setValue([], { a: 2 })).toBe(false);
    expect(e.setValue(["b"], 2)).toBe(false);
    expect(e.result()).toBe("a: 1\n");
  });

  it("writes a collection in place of a scalar in flow style", () => {
    const e = editor("a: 1 # one\nb: 2\n");
    expect(e.setValue(["a"], { x: [1, 2] })).toBe(true);
    const out = e.result() as string;
    expect(out).toBe("a: { x: [1, 2] } # one\nb: 2\n");
    expect(value(out)).toEqual({ a: { x: [1, 2] }, b: 2 });
  });

  it("refuses to replace a scalar written over several lines", () => {
    const e = editor('a: "one\n  two"\nb: 2\n');
    expect(e.setValue(["a"], "x")).toBe(false);
    const plain = editor("a: one\n  two\nb: 2\n");
    expect(plain.setValue(["a"], "x")).toBe(false);
  });

  it("refuses to rewrite a block mapping that is a sequence item (it has no key)", () => {
    const e = editor("s:\n  - id: x\n    k: 1\n");
    expect(e.setValue(["s", 0], { id: "y" })).toBe(false);
  });

  it("rewrites a block collection that ends the text without a line break", () => {
    const e = editor("a:\n  - 1\n  - 2");
    expect(e.setValue(["a"], [3])).toBe(true);
    expect(e.result()).toBe("a: [3]");
  });

  it("finds the end of flow collections holding escaped quotes", () => {
    const e = editor("a: ['it''s ]', \"q\\\"]\"]\nb: 1\n");
    expect(value("a: ['it''s ]', \"q\\\"]\"]\n")).toEqual({ a: ["it's ]", 'q"]'] });
    expect(e.setValue(["a"], ["z"])).toBe(true);
    expect(e.result()).toBe("a: [z]\nb: 1\n");
  });

  it("refuses to remove what is not there", () => {
    const e = editor("s:\n  - a\n  - b\nn: 1\n");
    expect(e.remove(["missing", 0])).toBe(false);
    expect(e.remove(["s", 5])).toBe(false);
    expect(e.remove(["n", 0])).toBe(false);
    expect(e.result()).toBe("s:\n  - a\n  - b\nn: 1\n");
  });

  it("refuses to remove a key that shares its line with a dash", () => {
    const e = editor("s:\n  - id: x\n    k: 1\n");
    expect(e.remove(["s", 0, "id"])).toBe(false);
    expect(e.remove(["s", 0, "k"])).toBe(true);
    expect(e.result()).toBe("s:\n  - id: x\n");
  });

  it("removes the first entry of a file with the comment above it", () => {
    const e = editor("# about a\na: 1\nb: 2\n");
    expect(e.remove(["a"])).toBe(true);
    expect(e.result()).toBe("b: 2\n");
  });

  it("inserts into an empty flow sequence, and refuses a sequence that is not one", () => {
    const e = editor("s: []\nm: 1\n");
    expect(e.insertItem(["s"], -1, { a: 1 })).toBe(true);
    expect(e.insertItem(["m"], -1, "x")).toBe(false);
    expect(e.insertItem(["nope"], -1, "x")).toBe(false);
    expect(e.result()).toBe("s: [{ a: 1 }]\nm: 1\n");
  });

  it("refuses to insert after an item that is not there or not on its own line", () => {
    expect(editor("s:\n  - a\n  - b\n").insertItem(["s"], 5, "c")).toBe(false);
    expect(editor("s:\n  - &x a\n  - b\n").insertItem(["s"], 0, "c")).toBe(false);
  });

  it("inserts first in a block sequence, and after a last item with no line break", () => {
    const e = editor("s:\n  - a\n  - b");
    expect(e.insertItem(["s"], -1, "first")).toBe(true);
    expect(e.insertItem(["s"], 1, "last")).toBe(true);
    expect(e.result()).toBe("s:\n  - first\n  - a\n  - b\n  - last\n");
  });

  it("keeps two insertions at one place in the order they were made", () => {
    const e = editor("s:\n  - a\n  - b\n");
    expect(e.insertItem(["s"], 0, "x")).toBe(true);
    expect(e.insertItem(["s"], 0, "y")).toBe(true);
    expect(e.result()).toBe("s:\n  - a\n  - x\n  - y\n  - b\n");
  });

  it("adds an entry to flow and empty mappings, after the key asked for", () => {
    const e = editor("m: { a: 1, b: 2 }\nn: {}\n");
    expect(e.insertEntry(["m"], "z", 3, "a")).toBe(true);
    expect(e.insertEntry(["n"], "k", [1])).toBe(true);
    expect(e.result()).toBe("m: { a: 1, z: 3, b: 2 }\nn: { k: [1] }\n");
    const last = editor("m: { a: 1 }\n");
    expect(last.insertEntry(["m"], "b", 2, "missing")).toBe(true);
    expect(last.result()).toBe("m: { a: 1, b: 2 }\n");
  });

  it("refuses to add an entry to a sequence, a scalar or a path not written", () => {
    const e = editor("s: [1]\nv: 1\n");
    expect(e.insertEntry(["s"], "k", 1)).toBe(false);
    expect(e.insertEntry(["v"], "k", 1)).toBe(false);
    expect(e.insertEntry(["x"], "k", 1)).toBe(false);
    expect(e.result()).toBe("s: [1]\nv: 1\n");
  });

  it("adds an entry after a last key with no line break", () => {
    const e = editor("m:\n  a: 1");
    expect(e.insertEntry(["m"], "b", "two")).toBe(true);
    expect(e.result()).toBe("m:\n  a: 1\n  b: two\n");
  });

  it("refuses to add an entry beside a key that shares its line with an anchor", () => {
    const e = editor("m:\n  &k a: 1\n  b: 2\n");
    expect(e.insertEntry(["m"], "c", 3, "a")).toBe(false);
  });
});
