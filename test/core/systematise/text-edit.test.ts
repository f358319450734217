import { describe, expect, it } from "vitest";
import { editor, value } from "./source-helpers.js";
import { blockLines, flowText } from "../../../src/core/systematise/text-edit.js";

describe("SourceEditor", () => {
  it("replaces a quoted scalar with its quotes, leaving the line's comment", () => {
    const e = editor('a: "old: value" # keep me\nb: 1\n');
    expect(e.setValue(["a"], "new")).toBe(true);
    expect(e.result()).toBe("a: new # keep me\nb: 1\n");
  });

  it("replaces a flow collection spread over lines, with brackets inside quotes and comments", () => {
    const text = "x:\n  [\n    \"a]\", # a ] in a comment\n    'b}',\n  ] # after\ny: 2\n";
    const e = editor(text);
    expect(e.setValue(["x"], ["c", "d: e"])).toBe(true);
    expect(e.result()).toBe('x:\n  [c, "d: e"] # after\ny: 2\n');
  });

  it("writes a block collection or block scalar again in flow style after its key", () => {
    const e = editor("a:\n  - 1\n  - 2 # two\nb: |\n  text\n  more\nc: 3\n");
    expect(e.setValue(["a"], [3])).toBe(true);
    expect(e.setValue(["b"], "one line")).toBe(true);
    const out = e.result() as string;
    expect(value(out)).toEqual({ a: [3], b: "one line", c: 3 });
    expect(out).toContain("c: 3\n");
  });

  it("removes block items with their own lines and comment lines above, and an only item as []", () => {
    const e = editor(
      "s:\n  # about x\n  - id: x\n    k: [1,\n      2]\n  - id: y # y stays\nt:\n  - only\n",
    );
    expect(e.remove(["s", 0])).toBe(true);
    expect(e.remove(["t", 0])).toBe(true);
    expect(e.result()).toBe("s:\n  - id: y # y stays\nt: []\n");
  });

  it("removes an entry of a flow mapping by writing the mapping again, and nothing else", () => {
    const e = editor("m: { a: 1, b: 2 } # c\nn: 1\n");
    expect(e.remove(["m", "a"])).toBe(true);
    expect(e.result()).toBe("m: { b: 2 } # c\nn: 1\n");
  });

  it("inserts items and entries indented like their neighbours", () => {
    const text = "steps:\n    - id: a\n      type: end\nmap:\n  x: 1\n  y: 2\n";
    const e = editor(text);
    expect(
      e.insertItem(["steps"], 0, {
        id: "b",
        type: "comment",
        tags: ["p", "q"],
        next: [{ goto: "a" }],
      }),
    ).toBe(true);
    expect(e.insertEntry(["map"], "z", { deep: [1] }, "x")).toBe(true);
    expect(e.insertEntry(["steps", 0], "description", "after type", "type")).toBe(true);
    const out = e.result() as string;
    expect(out).toBe(
      [
        "steps:",
        "    - id: a",
        "      type: end",
        "      description: after type",
        "    - id: b",
        "      type: comment",
        "      tags: [p, q]",
        "      next:",
        "        - { goto: a }",
        "map:",
        "  x: 1",
        "  z:",
        "    deep: [1]",
        "  y: 2",
        "",
      ].join("\n"),
    );
  });

  it("refuses what it cannot edit safely, and overlapping edits", () => {
    const anchored = editor("s:\n  - &a\n    id: x\n  - id: y\n");
    expect(anchored.remove(["s", 0])).toBe(false);
    const e = editor("a: [1, 2]\n");
    expect(e.setValue(["a"], [3])).toBe(true);
    expect(e.setValue(["a", 0], 4)).toBe(true);
    expect(e.result()).toBeUndefined();
  });

  it("writes values from data: quoted where YAML would read them otherwise", () => {
    expect(flowText({ a: "x: y", b: ["- z", "#c"], c: "{{ t }}", d: true, e: "true" })).toBe(
      '{ a: "x: y", b: ["- z", "#c"], c: "{{ t }}", d: true, e: "true" }',
    );
    expect(value(`v: ${flowText({ s: "line\nbreak", n: null })}\n`)).toEqual({
      v: { s: "line\nbreak", n: null },
    });
    expect(blockLines({ a: { b: { c: 1 } } }, 1)).toEqual(["a: { b: { c: 1 } }"]);
  });
});
