// The rules module imports this one (a rule's findings are diagnostics), never the other way: a
// diagnostic names its rule by code, and the catalogue (../rules/catalogue.ts) says what the code is.

/** What a finding does to validation: an error fails it, a warning is reported only. */
export type Severity = "error" | "warning";

/** 1-based line and column, end exclusive: the span an editor or annotation underlines. */
export interface Span {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /**
   * The file the span is in, when it is not the playbook's own file (a dialect's sidecar: the
   * value was converted from there).
   */
  file?: string;
}

export interface Diagnostic extends Span {
  /** The code of the rule that found it: a RuleCode of the catalogue (../rules/catalogue.ts). */
  rule: string;
  severity: Severity;
  file: string;
  /** Where in the document, written as people read it: `steps[2].type`. */
  path: string;
  message: string;
  found?: string;
  expected?: string;
  hint?: string;
}

export interface DiagnosticInput {
  rule: string;
  message: string;
  path: string;
  span: Span;
  found?: string;
  expected?: string;
  hint?: string;
  severity?: Severity;
}

/** Errors first, then by file and position: what a reader (and GitHub's annotation cap) needs first. */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  if (a.severity !== b.severity) return a.severity === "error" ? -1 : 1;
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0);
}

export { describeValue } from "./describe.js";
