import type { Diagnostic } from "../../../src/core/format/diagnostics.js";
import type { RuleCode } from "../../../src/core/rules/catalogue.js";
import type { PlaybookDocument } from "../../../src/core/format/types.js";
import { validateSource, type ValidateOptions } from "../../../src/core/rules/validate.js";

/**
 * A YAML document written inline: the first newline and the common indentation are removed, so
 * line 1 of the result is the first line written. Backslashes are kept as written (String.raw).
 */
export function yaml(strings: TemplateStringsArray, ...values: unknown[]): string {
  const raw = String.raw({ raw: strings.raw }, ...values);
  const lines = raw
    .replace(/^\n/, "")
    .replace(/\n[ ]*$/, "\n")
    .split("\n");
  const indents = lines.filter((l) => l.trim() !== "").map((l) => /^ */.exec(l)?.[0].length ?? 0);
  const cut = Math.min(...indents);
  return lines.map((l) => l.slice(cut)).join("\n");
}

/** All diagnostics of one file. */
export function diags(text: string | Uint8Array, options: ValidateOptions = {}): Diagnostic[] {
  return validateSource("pb.yaml", text, options).diagnostics;
}

/** Diagnostics of one rule. */
export function ofRule(
  text: string | Uint8Array,
  rule: RuleCode,
  options: ValidateOptions = {},
): Diagnostic[] {
  return diags(text, options).filter((d) => d.rule === rule);
}

/** The one diagnostic of a rule; fails when there is not exactly one. */
export function one(
  text: string | Uint8Array,
  rule: RuleCode,
  options: ValidateOptions = {},
): Diagnostic {
  const found = ofRule(text, rule, options);
  if (found.length !== 1) {
    const all = diags(text, options).map((d) => `${d.rule}@${d.line}:${d.column} ${d.message}`);
    throw new Error(`expected one ${rule}, got ${found.length}:\n${all.join("\n")}`);
  }
  return found[0] as Diagnostic;
}

/** [line, column, endLine, endColumn] of a diagnostic. */
export function span(d: Diagnostic): [number, number, number, number] {
  return [d.line, d.column, d.endLine, d.endColumn];
}

/** Rule codes of the errors (not warnings). */
export function errorRules(text: string, options: ValidateOptions = {}): string[] {
  return diags(text, options)
    .filter((d) => d.severity === "error")
    .map((d) => d.rule);
}

/** A schema-valid playbook from YAML (graph problems are fine). */
export function playbookOf(text: string): PlaybookDocument {
  const r = validateSource("pb.yaml", text);
  if (!r.playbook) throw new Error(JSON.stringify(r.diagnostics));
  return r.playbook;
}
