import { describe, expect, it } from "vitest";
import {
  DEFAULT_LIMITS,
  decodeSource,
  formatPath,
  loadSourceBytes,
  loadSourceText,
  parsePointer,
  pointerOf,
  type SourceDocument,
} from "../../../src/core/format/source.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { diags, span, yaml } from "./helpers.js";

function loaded(text: string): SourceDocument {
  const r = loadSourceText("f.yaml", text);
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
  return r.document;
}

describe("YAML syntax", () => {
  it("reports a syntax error at js-yaml's position with a hint", () => {
    const [d, ...rest] = diags("id: t\n\tx: 1\n");
    expect(rest).toEqual([]);
    expect(d?.rule).toBe("yaml-syntax");
    expect(d?.message).toBe("tab characters must not be used in indentation");
    expect(span(d!)).toEqual([2, 1, 2, 2]);
    expect(d?.path).toBe("(document)");
    expect(d?.hint).toContain("indentation");
  });

  it("reports an unclosed flow collection at the end of the stream", () => {
    const [d] = diags("{ a: 1\n");
    expect(d?.rule).toBe("yaml-syntax");
    expect(d?.message).toBe("unexpected end of the stream within a flow collection");
    expect(span(d!)).toEqual([2, 1, 2, 2]);
  });

  it("refuses a second document in the file", () => {
    const [d] = diags("id: a\n---\nid: b\n");
    expect(d?.rule).toBe("yaml-syntax");
    expect(d?.message).toBe("file holds more than one YAML document");
    expect(d?.hint).toBe("put one playbook in each file");
  });

  it("refuses a list or mapping used as a key", () => {
    const [d] = diags("? [a, b]\n: 1\n");
    expect(d?.rule).toBe("yaml-syntax");
    expect(d?.message).toBe("a mapping key must be a plain string, not a list or mapping");
    expect([d?.line, d?.column]).toEqual([1, 3]);
  });

  it("refuses an alias used as a key", () => {
    const [d] = diags("a: &k x\n*k : 1\n");
    expect(d?.rule).toBe("yaml-syntax");
    expect(d?.message).toBe("an alias cannot be used as a mapping key");
    expect(span(d!)).toEqual([2, 1, 2, 3]);
  });

  it("reports an alias whose anchor is not defined", () => {
    const [d] = diags("a: *nowhere\n");
    expect(d?.rule).toBe("yaml-syntax");
    expect(d?.message).toBe("alias *nowhere refers to an anchor that is not defined before it");
    expect(span(d!)).toEqual([1, 4, 1, 12]);
  });
});

describe("duplicate keys", () => {
  it("points at the second key and names the first", () => {
    const text = yaml`
      apiVersion: playbook-bot/v1
      id: t
      name: one
      description: x
      name: two
    `;
    const ds = diags(text);
    expect(ds).toHaveLength(1);
    const d = ds[0]!;
    expect(d.rule).toBe("yaml-duplicate-key");
    expect(span(d)).toEqual([5, 1, 5, 5]);
    expect(d.message).toBe("key 'name' appears twice in this mapping (first at line 3, column 1)");
  });

  it("finds duplicates inside a nested flow mapping", () => {
    const [d] = diags("a:\n  - { x: 1, y: 2, x: 3 }\n");
    expect(d?.rule).toBe("yaml-duplicate-key");
    expect(span(d!)).toEqual([2, 19, 2, 20]);
    expect(d?.message).toContain("first at line 2, column 7");
  });

  it("does not confuse equal keys in sibling mappings", () => {
    expect(loaded("a: { x: 1 }\nb: { x: 2 }\n").value).toEqual({ a: { x: 1 }, b: { x: 2 } });
  });
});

describe("limits", () => {
  it("stops deep nesting with yaml-limit and does not throw", () => {
    const text = "a: " + "[".repeat(5000) + "]".repeat(5000) + "\n";
    let ds: ReturnType<typeof diags> = [];
    expect(() => (ds = diags(text))).not.toThrow();
    expect(ds).toHaveLength(1);
    expect(ds[0]?.rule).toBe("yaml-limit");
    expect(ds[0]?.message).toMatch(/^nesting is too deep/);
    expect(ds[0]?.hint).toContain("flatten");
  });

  it("honours a smaller maxDepth", () => {
    const text = "a: { b: { c: { d: 1 } } }\n";
    expect(loadSourceText("f", text).ok).toBe(true);
    const r = loadSourceText("f", text, { ...DEFAULT_LIMITS, maxDepth: 2 });
    expect(r.ok ? [] : r.problems.map((p) => p.kind)).toEqual(["limit"]);
  });

  it("stops a billion-laughs alias bomb before expanding it", () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 10; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(",")}]`);
    }
    const text = lines.join("\n") + "\n";
    let ds: ReturnType<typeof diags> = [];
    expect(() => (ds = diags(text))).not.toThrow();
    expect(ds).toHaveLength(1);
    expect(ds[0]?.rule).toBe("yaml-limit");
    expect(ds[0]?.message).toBe(
      "document expands to more than 100000 nodes once its aliases are expanded",
    );
    // The expansion crosses the limit in the line of "f" (9^6 > 100000 nodes).
    expect(ds[0]?.line).toBe(6);
  });

  it("limits the number of aliases", () => {
    const text = "a: &x 1\nb: [" + Array(20).fill("*x").join(", ") + "]\n";
    const ds = diags(text, { limits: { ...DEFAULT_LIMITS, maxAliases: 5 } });
    expect(ds.map((d) => [d.rule, d.message])).toEqual([
      ["yaml-limit", "document uses more than 5 aliases"],
    ]);
    // The sixth alias, at its name (just after the '*').
    expect([ds[0]?.line, ds[0]?.column]).toEqual([2, 26]);
  });

  it("limits plain node count without aliases, saying so without mentioning aliases", () => {
    const text = "a: [" + Array(50).fill("1").join(", ") + "]\n";
    const ds = diags(text, { limits: { ...DEFAULT_LIMITS, maxNodes: 10 } });
    expect(ds.map((d) => d.message)).toEqual(["document expands to more than 10 nodes"]);
  });

  it("refuses a 50 MB buffer without parsing it", () => {
    const bytes = new Uint8Array(50 * 1024 * 1024).fill(0x61);
    const r = validateSource("big.yaml", bytes);
    expect(r.diagnostics).toHaveLength(1);
    const d = r.diagnostics[0]!;
    expect(d.rule).toBe("yaml-limit");
    expect(d.message).toBe("file is 50.0 MiB, more than the 1.0 MiB a playbook may be");
    expect(span(d)).toEqual([1, 1, 1, 1]);
    expect(r.text).toBe("");
  });

  it("refuses text longer than the limit", () => {
    const ds = diags("x".repeat(3000), { limits: { ...DEFAULT_LIMITS, maxBytes: 2048 } });
    expect(ds.map((d) => [d.rule, d.message])).toEqual([
      ["yaml-limit", "file is more than the 2.0 KiB a playbook may be"],
    ]);
  });

  it("reports small limits in bytes", () => {
    const r = loadSourceBytes("f", new Uint8Array(600), { ...DEFAULT_LIMITS, maxBytes: 500 });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.problems[0]?.message).toBe(
        "file is 600 bytes, more than the 500 bytes a playbook may be",
      );
  });
});

describe("encoding", () => {
  it("refuses binary garbage with NUL bytes", () => {
    const bytes = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x00, 0xff]);
    let ds: ReturnType<typeof diags> = [];
    expect(() => (ds = diags(bytes))).not.toThrow();
    expect(ds.map((d) => d.rule)).toEqual(["yaml-encoding"]);
    expect(ds[0]?.hint).toContain("UTF-8");
  });

  it("refuses invalid UTF-8 without NUL bytes", () => {
    const bytes = new Uint8Array([0x69, 0x64, 0x3a, 0x20, 0xc3, 0x28, 0x0a]);
    expect(diags(bytes).map((d) => d.rule)).toEqual(["yaml-encoding"]);
    expect(decodeSource(bytes)).toBeNull();
  });

  it("decodes UTF-8 and drops a byte order mark", () => {
    const text =
      "\ufeffapiVersion: playbook-bot/v1\nid: t\nname: Grüße\nsteps: [{ id: e, type: end, name: E }]\n";
    const r = validateSource("f.yaml", new TextEncoder().encode(text));
    expect(r.diagnostics).toEqual([]);
    expect(r.playbook?.name).toBe("Grüße");
    expect(r.text.startsWith("apiVersion")).toBe(true);
  });
});

describe("empty values", () => {
  it("places a value left empty at the end of its key, and an empty list item after its dash", () => {
    const doc = loaded("steps:\n  - id: a\n    next:\n  -\n");
    expect(doc.span(["steps", 0, "next"])).toEqual({
      line: 3,
      column: 9,
      endLine: 3,
      endColumn: 10,
    });
    expect(doc.span(["steps", 1]).line).toBe(4);
    const found = diags(
      "apiVersion: playbook-bot/v1\nid: x\nsteps:\n  - id: a\n    type: investigate\n    next:\n",
    );
    expect(found.find((d) => d.path === "steps[0].next")).toMatchObject({ line: 6, column: 9 });
  });
});

describe("positions", () => {
  const doc = loaded(
    yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: a
          type: comment
          body: "x"
      "odd/key": { "~tilde": 1 }
    `,
  );

  it("maps offsets to 1-based lines and columns", () => {
    expect(doc.position(0)).toEqual({ line: 1, column: 1 });
    const offset = doc.text.indexOf("type");
    expect(doc.position(offset)).toEqual({ line: 5, column: 5 });
    expect(doc.lineStarts.slice(0, 3)).toEqual([0, 28, 34]);
  });

  it("spans values and keys", () => {
    expect(doc.span(["steps", 0, "type"])).toEqual({
      line: 5,
      column: 11,
      endLine: 5,
      endColumn: 18,
    });
    expect(doc.span(["steps", 0, "type"], true)).toEqual({
      line: 5,
      column: 5,
      endLine: 5,
      endColumn: 9,
    });
    expect(doc.span(["steps", 0, "body"])).toEqual({
      line: 6,
      column: 12,
      endLine: 6,
      endColumn: 13,
    });
  });

  it("falls back to the key of the nearest ancestor for a missing path", () => {
    // A list item has no key: its first line stands for it.
    expect(doc.span(["steps", 0, "missing"])).toEqual({
      line: 4,
      column: 5,
      endLine: 4,
      endColumn: 10,
    });
    expect(doc.span(["steps", 5])).toEqual({ line: 3, column: 1, endLine: 3, endColumn: 6 });
    expect(doc.span(["nope"])).toEqual({ line: 1, column: 1, endLine: 1, endColumn: 28 });
    expect(doc.has(["steps", 0, "missing"])).toBe(false);
    expect(doc.has(["steps", 0, "type"])).toBe(true);
  });

  it("falls back to the first line of a mapping without a key", () => {
    expect(doc.span(["steps", 0, "x", "y"])).toEqual(doc.span(["steps", 0, "x"]));
    const noKey = doc.span(["steps", 0, "nothing"]);
    expect(noKey.endLine).toBe(noKey.line);
  });

  it("escapes keys with / and ~ in pointers", () => {
    expect(doc.has(["odd/key", "~tilde"])).toBe(true);
    expect(pointerOf(["odd/key", "~tilde", 3])).toBe("/odd~1key/~0tilde/3");
    expect(parsePointer("/odd~1key/~0tilde/3")).toEqual(["odd/key", "~tilde", 3]);
    expect(parsePointer("/steps/03")).toEqual(["steps", "03"]);
    expect(parsePointer("")).toEqual([]);
  });

  it("formats paths as people read them", () => {
    expect(formatPath(["steps", 2, "next", 0, "goto"])).toBe("steps[2].next[0].goto");
    expect(formatPath(["inputs", "bad key"])).toBe('inputs["bad key"]');
    expect(formatPath([0])).toBe("[0]");
    expect(formatPath([])).toBe("(document)");
  });

  it("returns the text of a line and nothing past the end", () => {
    expect(doc.lineText(3)).toBe("steps:");
    expect(doc.lineText(99)).toBe("");
    const crlf = loaded("a: 1\r\nb: 2\r\n");
    expect(crlf.lineText(1)).toBe("a: 1");
    expect(crlf.value).toEqual({ a: 1, b: 2 });
  });

  it("spans a multi-line value from its first line", () => {
    const s = doc.span(["steps", 0]);
    expect([s.line, s.column, s.endLine]).toEqual([4, 5, 6]);
  });

  it("gives an empty document the null value", () => {
    expect(loaded("").value).toBeNull();
    expect(loaded("# only a comment\n").value).toBeNull();
    expect(loaded("").span(["x"])).toEqual({ line: 1, column: 1, endLine: 1, endColumn: 1 });
  });

  it("keeps values of aliases", () => {
    expect(loaded("a: &x { k: 1 }\nb: *x\n").value).toEqual({ a: { k: 1 }, b: { k: 1 } });
  });
});
