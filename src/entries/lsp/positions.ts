import {
  DiagnosticSeverity,
  type Diagnostic as LspDiagnostic,
  type Position,
  type Range,
} from "vscode-languageserver";
import type { Diagnostic, Span } from "../../core/format/diagnostics.js";
import type { SourceDocument } from "../../core/format/source.js";

/**
 * The project counts lines and columns from 1 with the end exclusive, and its columns are string
 * offsets, so UTF-16 code units: the unit LSP positions use by default. Both therefore differ by
 * one, except on the first line of a text that starts with a byte-order mark, which the loader
 * drops before it counts while an editor may keep it.
 */
const BOM = "\uFEFF";

/** How many code units the editor's text has before the loader's text begins. */
export function bomShift(editorText: string): number {
  return editorText.startsWith(BOM) ? 1 : 0;
}

function position(line: number, column: number, shift: number): Position {
  return {
    line: Math.max(0, line - 1),
    character: Math.max(0, column - 1 + (line === 1 ? shift : 0)),
  };
}

/** A diagnostic's (or any) span as the editor's range. */
export function spanToRange(span: Span, editorText: string): Range {
  const shift = bomShift(editorText);
  return {
    start: position(span.line, span.column, shift),
    end: position(span.endLine, span.endColumn, shift),
  };
}

/** Offsets of the loader's text (a value's range) as the editor's range; an empty range stays empty. */
export function offsetsToRange(
  doc: SourceDocument,
  start: number,
  end: number,
  editorText: string,
): Range {
  const shift = bomShift(editorText);
  const a = doc.position(start);
  const b = doc.position(Math.max(start, end));
  return { start: position(a.line, a.column, shift), end: position(b.line, b.column, shift) };
}

/** The loader's offset for an editor offset (the two differ by a byte-order mark). */
export function loaderOffset(editorOffset: number, editorText: string): number {
  return Math.max(0, editorOffset - bomShift(editorText));
}

/**
 * A validator diagnostic as an LSP one: the same range, severity, rule code and message. The
 * hint, which the CLI prints under a finding, goes into related information where the client
 * shows it (`hintAt`: the document's URI).
 */
export function toLspDiagnostic(d: Diagnostic, editorText: string, hintAt?: string): LspDiagnostic {
  const range = spanToRange(d, editorText);
  const out: LspDiagnostic = {
    range,
    severity: d.severity === "error" ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: d.rule,
    source: "playbook-bot",
    message: d.message,
  };
  if (d.hint && hintAt)
    out.relatedInformation = [{ location: { uri: hintAt, range }, message: `hint: ${d.hint}` }];
  return out;
}
