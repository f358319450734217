import type { Diagnostic } from "../diagnostics.js";
import type { FileReport } from "../../rules/validate.js";
import { countBySeverity } from "../../rules/validate.js";
import { plainLine } from "../../util/log-line.js";

/** actionlint-style text: `file:line:col: message [rule]`, the source line, an underline, a hint. */
export function formatText(reports: readonly FileReport[]): string {
  const lines: string[] = [];
  for (const r of reports) {
    const source = r.text.split(/\r?\n/);
    // Each line stays one line whatever the file holds: in a workflow's log, a file's text must
    // not become a workflow command.
    for (const d of r.diagnostics) lines.push(...formatOne(d, source).map(plainLine));
  }
  const { errors, warnings } = countBySeverity(reports);
  const bad = reports.filter((r) => r.diagnostics.some((d) => d.severity === "error")).length;
  if (errors === 0 && warnings === 0)
    lines.push(`${reports.length} ${plural(reports.length, "playbook")} valid`);
  else {
    lines.push(
      `${errors} ${plural(errors, "error")} and ${warnings} ${plural(warnings, "warning")} in ${reports.length} ${plural(reports.length, "file")}` +
        (errors > 0 ? ` (${bad} invalid)` : ""),
    );
  }
  return lines.join("\n") + "\n";
}

function formatOne(d: Diagnostic, source: string[]): string[] {
  const out = [
    `${d.file}:${d.line}:${d.column}: ${d.severity === "warning" ? "warning: " : ""}${d.message} [${d.rule}]`,
  ];
  const text = source[d.line - 1];
  if (text !== undefined && text.trim() !== "") {
    const gutter = String(d.line).length;
    const width =
      d.endLine === d.line
        ? Math.max(1, d.endColumn - d.column)
        : Math.max(1, text.length - d.column + 1);
    const shown = text.length > 160 ? `${text.slice(0, 157)}...` : text;
    const pad = " ".repeat(gutter);
    out.push(
      `${pad} |`,
      `${d.line} | ${shown}`,
      `${pad} | ${" ".repeat(Math.min(d.column - 1, 160))}^${"~".repeat(Math.min(width - 1, 80))}`,
    );
  }
  if (d.hint) out.push(`  = hint: ${d.hint}`);
  return out;
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
