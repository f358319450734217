import { describe, expect, it } from "vitest";
import { DiagnosticSeverity } from "vscode-languageserver";
import { loadSourceText, type SourceDocument } from "../../../src/core/format/source.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import {
  bomShift,
  loaderOffset,
  offsetsToRange,
  spanToRange,
  toLspDiagnostic,
} from "../../../src/entries/lsp/positions.js";

// Astral characters take two UTF-16 code units each: the unit LSP columns count in.
const EMOJI = `apiVersion: playbook-bot/v1
id: emoji
description: Columns after astral characters.
steps:
  - { id: greet, type: comment, description: "😀😀 greets", body: hi, next: nowhere }
`;

function doc(text: string): SourceDocument {
  const loaded = loadSourceText("f.yaml", text);
  if (!loaded.ok) throw new Error("fixture does not parse");
  return loaded.document;
}

describe("positions", () => {
  it("turns the CLI's 1-based span into a 0-based range, columns in UTF-16 code units", () => {
    const text = `x: 1\nlabel: "😀 {{ bad }}"\n`;
    expect(spanToRange({ line: 2, column: 13, endLine: 2, endColumn: 20 }, text)).toEqual({
      start: { line: 1, character: 12 },
      end: { line: 1, character: 19 },
    });
  });

  it("places a finding after astral characters where an editor counts them", () => {
    const report = validateSource("emoji.yaml", EMOJI);
    const unresolved = report.diagnostics.find((d) => d.rule === "goto-unresolved");
    expect(unresolved).toBeDefined();
    const range = toLspDiagnostic(unresolved!, EMOJI).range;
    const line = EMOJI.split("\n")[range.start.line] as string;
    // The editor's character index of 'nowhere' on its line is JavaScript's string index:
    // 2 code units per emoji, where a count of code points would land 2 characters early.
    expect(line.slice(range.start.character, range.end.character)).toBe("nowhere");
    expect(range.start.character).toBe(line.indexOf("nowhere"));
    expect([...line.slice(0, range.start.character)].length).toBe(range.start.character - 2);
  });

  it("shifts the first line by a byte-order mark the editor keeps and the loader drops", () => {
    const text = "\uFEFFid: [\n";
    expect(bomShift(text)).toBe(1);
    expect(bomShift("id: x")).toBe(0);
    expect(spanToRange({ line: 1, column: 5, endLine: 2, endColumn: 1 }, text)).toEqual({
      start: { line: 0, character: 5 },
      end: { line: 1, character: 0 },
    });
    expect(loaderOffset(5, text)).toBe(4);
    expect(loaderOffset(0, text)).toBe(0);
    expect(loaderOffset(3, "abc")).toBe(3);
  });

  it("maps loader offsets to a range, an empty one staying empty", () => {
    const d = doc("a: 1\nbb: two\n");
    expect(offsetsToRange(d, 9, 12, "a: 1\nbb: two\n")).toEqual({
      start: { line: 1, character: 4 },
      end: { line: 1, character: 7 },
    });
    expect(offsetsToRange(d, 9, 9, "a: 1\nbb: two\n")).toEqual({
      start: { line: 1, character: 4 },
      end: { line: 1, character: 4 },
    });
    expect(offsetsToRange(d, 3, 4, "\uFEFFa: 1\nbb: two\n").start).toEqual({
      line: 0,
      character: 4,
    });
  });

  it("keeps the rule as the code, the message as it is, and the hint where clients show it", () => {
    const d = {
      rule: "goto-unresolved" as const,
      severity: "error" as const,
      file: "f.yaml",
      path: "steps[0].next",
      message: "steps[0].next: 'b' names no step",
      hint: "write 'a'",
      line: 3,
      column: 2,
      endLine: 3,
      endColumn: 4,
    };
    const plain = toLspDiagnostic(d, "");
    expect(plain).toEqual({
      range: { start: { line: 2, character: 1 }, end: { line: 2, character: 3 } },
      severity: DiagnosticSeverity.Error,
      code: "goto-unresolved",
      source: "playbook-bot",
      message: "steps[0].next: 'b' names no step",
    });
    const hinted = toLspDiagnostic({ ...d, severity: "warning" }, "", "file:///f.yaml");
    expect(hinted.severity).toBe(DiagnosticSeverity.Warning);
    expect(hinted.relatedInformation).toEqual([
      { location: { uri: "file:///f.yaml", range: plain.range }, message: "hint: write 'a'" },
    ]);
    expect(
      toLspDiagnostic({ ...d, hint: undefined }, "", "file:///f.yaml").relatedInformation,
    ).toBeUndefined();
  });
});
