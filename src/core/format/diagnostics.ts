import { RULES, type RuleCode, type Severity } from "../rules/catalogue.js";

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
  rule: RuleCode;
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
  rule: RuleCode;
  message: string;
  path: string;
  span: Span;
  found?: string;
  expected?: string;
  hint?: string;
  severity?: Severity;
}

export function makeDiagnostic(file: string, input: DiagnosticInput): Diagnostic {
  const d: Diagnostic = {
    rule: input.rule,
    severity: input.severity ?? RULES[input.rule].severity,
    path: input.path,
    message: input.message,
    ...input.span,
    file: input.span.file ?? file,
  };
  if (input.found !== undefined) d.found = input.found;
  if (input.expected !== undefined) d.expected = input.expected;
  if (input.hint !== undefined) d.hint = input.hint;
  return d;
}

/** Errors first, then by file and position: what a reader (and GitHub's annotation cap) needs first. */
export function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  if (a.severity !== b.severity) return a.severity === "error" ? -1 : 1;
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return a.line - b.line || a.column - b.column || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0);
}

// Rule modules import it from ./describe.js: this module reads the rule catalogue, which loads them.
export { describeValue } from "./describe.js";
