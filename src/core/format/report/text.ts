import type { Diagnostic } from "../diagnostics.js";
import type { FileReport } from "../../rules/validate.js";
import { countBySeverity } from "../../rules/validate.js";
import { inertLines, plainLine } from "../../util/log-line.js";

/** How the parts of the report look (a terminal colours them); each the identity by default. */
export interface TextStyle {
  /** `file:line:column:` */
  location(text: string): string;
  /** The underline of an error, and a summary with errors. */
  error(text: string): string;
  /** `warning:`, the underline of a warning, and a summary with warnings only. */
  warning(text: string): string;
  /** `[rule-code]` */
  rule(text: string): string;
  /** `= hint:` */
  hint(text: string): string;
  /** The summary when every playbook is valid. */
  ok(text: string): string;
}

const same = (text: string): string => text;

export const PLAIN_STYLE: TextStyle = {
  location: same,
  error: same,
  warning: same,
  rule: same,
  hint: same,
  ok: same,
};

/** A part of a line, and its style. */
type Piece = string | readonly [string, (text: string) => string];

/**
 * One line of pieces, each styled after it is made inert: the line stays one line whatever the
 * file holds, and in a workflow's log no text of the file becomes a workflow command (the line
 * reads as `plainLine` would make it; only its first piece can start it with `::`).
 */
function line(...pieces: Piece[]): string {
  return pieces
    .map((piece, i) => {
      const [text, style] = typeof piece === "string" ? [piece, same] : piece;
      const inert =
        i === 0 ? plainLine(text) : inertLines(text.replace(/\r/g, "\\r").replace(/\n/g, "\\n"));
      return style(inert);
    })
    .join("");
}

/** actionlint-style text: `file:line:col: message [rule]`, the source line, an underline, a hint. */
export function formatText(reports: readonly FileReport[], style: TextStyle = PLAIN_STYLE): string {
  const lines: string[] = [];
  for (const r of reports) {
    const source = r.text.split(/\r?\n/);
    // A finding in another file (a sidecar, a paired SOP) has no excerpt: its text is not here.
    for (const d of r.diagnostics)
      lines.push(...formatOne(d, d.file === r.file ? source : [], style));
  }
  const { errors, warnings } = countBySeverity(reports);
  const bad = reports.filter((r) => r.diagnostics.some((d) => d.severity === "error")).length;
  if (errors === 0 && warnings === 0)
    lines.push(style.ok(`${reports.length} ${plural(reports.length, "playbook")} valid`));
  else {
    const summary =
      `${errors} ${plural(errors, "error")} and ${warnings} ${plural(warnings, "warning")} in ${reports.length} ${plural(reports.length, "file")}` +
      (errors > 0 ? ` (${bad} invalid)` : "");
    lines.push(errors > 0 ? style.error(summary) : style.warning(summary));
  }
  return lines.join("\n") + "\n";
}

function formatOne(d: Diagnostic, source: string[], style: TextStyle): string[] {
  const warning = d.severity === "warning";
  const mark = warning ? style.warning : style.error;
  const out = [
    line(
      [`${d.file}:${d.line}:${d.column}:`, style.location],
      " ",
      ...(warning ? [["warning:", style.warning] as const, " "] : []),
      d.message,
      " ",
      [`[${d.rule}]`, style.rule],
    ),
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
      line(`${pad} |`),
      line(`${d.line} | `, shown),
      line(`${pad} | ${" ".repeat(Math.min(d.column - 1, 160))}`, [
        `^${"~".repeat(Math.min(width - 1, 80))}`,
        mark,
      ]),
    );
  }
  if (d.hint) out.push(line(["  = hint:", style.hint], " ", d.hint));
  return out;
}

function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
