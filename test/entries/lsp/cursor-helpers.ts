import { loadSourceText, type SourceDocument } from "../../../src/core/format/source.js";

/** A text with the cursor written as `§`: the text without it, and where it was. */
export const CURSOR = "§";

export function withCursor(marked: string): {
  text: string;
  offset: number;
  lines: string[];
  line: number;
  character: number;
} {
  const offset = marked.indexOf(CURSOR);
  if (offset === -1) throw new Error("no cursor in the fixture");
  const text = marked.slice(0, offset) + marked.slice(offset + 1);
  const before = marked.slice(0, offset).split("\n");
  return {
    text,
    offset,
    lines: text.split("\n"),
    line: before.length - 1,
    character: (before[before.length - 1] as string).length,
  };
}

export function parsed(text: string): SourceDocument {
  const loaded = loadSourceText("playbook.yaml", text);
  if (!loaded.ok) throw new Error(`fixture does not parse: ${loaded.problems[0]?.message}`);
  return loaded.document;
}
