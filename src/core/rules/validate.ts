import {
  compareDiagnostics,
  makeDiagnostic,
  type Diagnostic,
  type DiagnosticInput,
} from "../format/diagnostics.js";
import type { Gate, GateContext } from "./gates/context.js";
import { graphGate } from "./gates/graph-gate.js";
import { inputsGate } from "./gates/inputs-gate.js";
import { referenceGate } from "./gates/reference-gate.js";
import { stepsGate } from "./gates/steps-gate.js";
import { styleGate } from "./gates/style-gate.js";
import { PlaybookGraph } from "../format/graph.js";
import { RULES, type RuleCode, type Severity } from "./catalogue.js";
import { schemaGate } from "./schema-gate.js";
import { setGate, type KnownPlaybook } from "./set-gate.js";
import {
  DEFAULT_LIMITS,
  loadSourceBytes,
  loadSourceText,
  type SourceDocument,
  type SourceLimits,
  type SourceProblemKind,
} from "../format/source.js";
import type { PlaybookDocument } from "../format/types.js";

export type RuleSetting = "off" | Severity;

export interface ValidateOptions {
  limits?: SourceLimits;
  /** Whether `relativePath` exists next to playbook `file` (gates do no I/O themselves). */
  fileExists?: (file: string, relativePath: string) => boolean;
  /** Per-rule overrides from the config file. */
  rules?: Partial<Record<RuleCode, RuleSetting>>;
  /** Playbooks outside the set that targets may name (the bundled library). */
  known?: KnownPlaybook[];
}

export interface FileReport {
  file: string;
  text: string;
  /** Set when the file parsed; positions for every value. */
  doc?: SourceDocument;
  /** Set when the file passed the schema: its value is a playbook. */
  playbook?: PlaybookDocument;
  diagnostics: Diagnostic[];
}

const SOURCE_RULES: Record<SourceProblemKind, RuleCode> = {
  syntax: "yaml-syntax",
  "duplicate-key": "yaml-duplicate-key",
  limit: "yaml-limit",
  encoding: "yaml-encoding",
};

/** Validate one file through the single-file layers: syntax → schema → graph → templates. */
export function validateSource(
  file: string,
  source: string | Uint8Array,
  options: ValidateOptions = {},
): FileReport {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const loaded =
    typeof source === "string"
      ? loadSourceText(file, source, limits)
      : loadSourceBytes(file, source, limits);
  if (!loaded.ok) {
    const diagnostics = loaded.problems.map((p) =>
      makeDiagnostic(file, {
        rule: SOURCE_RULES[p.kind],
        path: "(document)",
        span: p.span,
        message: p.message,
        hint: p.hint,
      }),
    );
    return finish({ file, text: loaded.text, diagnostics }, options);
  }
  const doc = loaded.document;
  const report: FileReport = { file, text: doc.text, doc, diagnostics: [] };
  const value = doc.value;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    report.diagnostics.push(
      makeDiagnostic(file, {
        rule: "schema-type",
        path: "(document)",
        span: doc.span([]),
        message:
          value === null
            ? "file is empty: a playbook is a YAML mapping"
            : "a playbook is a YAML mapping of fields, not a list or a single value",
        hint: "start with `apiVersion: playbook-bot/v1` and `id: …`",
      }),
    );
    return finish(report, options);
  }
  const schemaErrors = schemaGate(doc);
  if (schemaErrors.length > 0) {
    report.diagnostics.push(...schemaErrors.map((d) => makeDiagnostic(file, d)));
    return finish(report, options);
  }
  const playbook = value as PlaybookDocument;
  report.playbook = playbook;
  const ctx: GateContext = { doc, playbook, graph: new PlaybookGraph(playbook) };
  if (options.fileExists) {
    const exists = options.fileExists;
    ctx.fileExists = (rel) => exists(file, rel);
  }
  const run = (gate: Gate): DiagnosticInput[] => gate(ctx);
  const graphFindings = run(graphGate);
  report.diagnostics.push(...graphFindings.map((d) => makeDiagnostic(file, d)));
  const later: Gate[] = [inputsGate, stepsGate, styleGate];
  // References need a sound graph (dominators over unresolved targets would only add noise).
  if (!graphFindings.some((d) => (d.severity ?? RULES[d.rule].severity) === "error"))
    later.push(referenceGate);
  for (const gate of later)
    report.diagnostics.push(...run(gate).map((d) => makeDiagnostic(file, d)));
  return finish(report, options);
}

/** Validate several files as one set: each file alone, then the checks across files. */
export function validateSet(
  files: { file: string; source: string | Uint8Array }[],
  options: ValidateOptions = {},
): FileReport[] {
  const reports = files.map((f) => validateSource(f.file, f.source, options));
  const members = reports.flatMap((r) =>
    r.doc && r.playbook ? [{ doc: r.doc, playbook: r.playbook }] : [],
  );
  const byFile = new Map(reports.map((r) => [r.file, r]));
  for (const { doc, d } of setGate(members, options.known ?? [])) {
    const r = byFile.get(doc.file);
    if (r) r.diagnostics.push(makeDiagnostic(doc.file, d));
  }
  for (const r of reports) finish(r, options);
  return reports;
}

/** Apply the rule config and sort: errors first, then by position. */
function finish(report: FileReport, options: ValidateOptions): FileReport {
  const settings = options.rules ?? {};
  report.diagnostics = report.diagnostics
    .flatMap((d) => {
      const s = settings[d.rule];
      if (s === "off") return [];
      return s ? [{ ...d, severity: s }] : [d];
    })
    .sort(compareDiagnostics);
  return report;
}

export function countBySeverity(reports: readonly FileReport[]): {
  errors: number;
  warnings: number;
} {
  let errors = 0;
  let warnings = 0;
  for (const r of reports)
    for (const d of r.diagnostics) {
      if (d.severity === "error") errors++;
      else warnings++;
    }
  return { errors, warnings };
}
