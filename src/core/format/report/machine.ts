import type { Diagnostic } from "../diagnostics.js";
import type { FileReport } from "../../rules/validate.js";
import { countBySeverity } from "../../rules/validate.js";
import { visibleControls } from "../../util/log-line.js";

/** JSON: one entry per file, every diagnostic with its rule, position, found/expected and hint. */
export function formatJson(reports: readonly FileReport[]): string {
  const { errors, warnings } = countBySeverity(reports);
  return (
    JSON.stringify(
      {
        valid: errors === 0,
        errors,
        warnings,
        files: reports.map((r) => ({
          file: r.file,
          id: r.id ?? r.playbook?.id ?? null,
          valid: !r.diagnostics.some((d) => d.severity === "error"),
          diagnostics: r.diagnostics,
        })),
      },
      null,
      2,
    ) + "\n"
  );
}

/** The fields of an annotation as `@actions/core`'s `error()`/`warning()` take them. */
export interface AnnotationFields {
  title: string;
  file: string;
  startLine: number;
  endLine: number;
  startColumn: number;
  endColumn: number;
}

/** What the Action hands to `core.error`/`core.warning` for a diagnostic, and `--format github` prints. */
export function annotation(d: Diagnostic): { message: string; properties: AnnotationFields } {
  return {
    // A playbook's text (an id, a name) carries no terminal sequence into the runner's log; the
    // line breaks and tabs are the workflow command's own escaping to make.
    message: visibleControls(d.hint ? `${d.message}\n${d.hint}` : d.message, "\t\n\r"),
    properties: {
      title: d.rule,
      file: visibleControls(d.file, "\t\n\r"),
      startLine: d.line,
      endLine: d.endLine,
      startColumn: d.column,
      endColumn: d.endColumn,
    },
  };
}

// The escaping of @actions/core's command.ts (the package exports neither `issueCommand` nor
// `toCommandProperties`): data keeps `%`, CR and LF from ending the command or the line;
// properties also keep `:` and `,` from ending a property. test/playbook/report.test.ts checks
// that every line here is byte for byte what `core.error`/`core.warning` print.
function escapeData(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/**
 * One annotation as a workflow command, for `validate --format github`: the line
 * `core.error(message, properties)` (or `core.warning`) writes, in its property order
 * (title, file, line, endLine, col, endColumn) and without its empty properties.
 * The Action itself calls `@actions/core`.
 */
export function workflowCommand(d: Diagnostic): string {
  const { message, properties: p } = annotation(d);
  const props = (
    [
      ["title", p.title],
      ["file", p.file],
      ["line", p.startLine],
      ["endLine", p.endLine],
      ["col", p.startColumn],
      ["endColumn", p.endColumn],
    ] as const
  )
    .filter(([, v]) => v)
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(",");
  return `::${d.severity}${props ? ` ${props}` : ""}::${escapeData(message)}`;
}

export function formatGithub(reports: readonly FileReport[]): string {
  return (
    reports.flatMap((r) => r.diagnostics.map(workflowCommand)).join("\n") +
    (reports.some((r) => r.diagnostics.length) ? "\n" : "")
  );
}
