import type { Diagnostic } from "../diagnostics.js";
import { RULES } from "../rules.js";
import type { FileReport } from "../validate.js";
import { countBySeverity } from "../validate.js";

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
          id: r.playbook?.id ?? null,
          valid: !r.diagnostics.some((d) => d.severity === "error"),
          diagnostics: r.diagnostics,
        })),
      },
      null,
      2,
    ) + "\n"
  );
}

function escapeData(s: string): string {
  return s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** One GitHub workflow command; the Action and `--format github` share it. */
export function workflowCommand(d: Diagnostic): string {
  const props = [
    `file=${escapeProperty(d.file)}`,
    `line=${d.line}`,
    `endLine=${d.endLine}`,
    `col=${d.column}`,
    `endColumn=${d.endColumn}`,
    `title=${escapeProperty(d.rule)}`,
  ].join(",");
  const body = d.hint ? `${d.message}\n${d.hint}` : d.message;
  return `::${d.severity} ${props}::${escapeData(body)}`;
}

export function formatGithub(reports: readonly FileReport[]): string {
  return (
    reports.flatMap((r) => r.diagnostics.map(workflowCommand)).join("\n") +
    (reports.some((r) => r.diagnostics.length) ? "\n" : "")
  );
}

/** SARIF 2.1.0 for code scanning and editors. */
export function formatSarif(reports: readonly FileReport[], version: string): string {
  const used = [...new Set(reports.flatMap((r) => r.diagnostics.map((d) => d.rule)))].sort();
  const sarif = {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "playbook-bot",
            version,
            rules: used.map((id) => ({
              id,
              shortDescription: { text: RULES[id].summary },
              defaultConfiguration: { level: RULES[id].severity },
            })),
          },
        },
        results: reports.flatMap((r) =>
          r.diagnostics.map((d) => ({
            ruleId: d.rule,
            level: d.severity,
            message: { text: d.hint ? `${d.message}\nHint: ${d.hint}` : d.message },
            locations: [
              {
                physicalLocation: {
                  artifactLocation: { uri: d.file.replace(/\\/g, "/") },
                  region: {
                    startLine: d.line,
                    startColumn: d.column,
                    endLine: d.endLine,
                    endColumn: d.endColumn,
                  },
                },
              },
            ],
          })),
        ),
      },
    ],
  };
  return JSON.stringify(sarif, null, 2) + "\n";
}
