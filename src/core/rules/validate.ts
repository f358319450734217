import { compareDiagnostics } from "../format/diagnostics.js";
import { PlaybookGraph } from "../format/graph.js";
import {
  DEFAULT_LIMITS,
  decodeSource,
  loadSourceBytes,
  loadSourceText,
  type SourceDocument,
  type SourceLimits,
  type SourceProblem,
  isRefusedSource,
  refusedFile,
  type RefusedSource,
} from "../format/source.js";

/** What a playbook file holds as read: its text or bytes, or why it was not read. */
export type PlaybookSource = string | Uint8Array | RefusedSource;
import {
  DIALECTS,
  NO_SIBLINGS,
  dialectOf,
  type DialectId,
  type Siblings,
} from "../dialects/index.js";
import { dialectConversion, type DialectFinding } from "./syntax/dialect-conversion.js";
import type { PlaybookDocument } from "../format/types.js";
import type { DiagnosticInput } from "../format/diagnostics.js";
import { hasOneStepForm } from "./analysis/graph.js";
import {
  playbookFacts,
  type KnownPlaybook,
  type SetContext,
  type SetMember,
} from "./analysis/set.js";
import { makeDiagnostic, type RuleCode, type RuleDiagnostic, type Severity } from "./catalogue.js";
import type { RuleContext } from "./context.js";
import { RULE_MODULES } from "./index.js";
import type { FileRule, Finding, SetRule } from "./rule.js";
import { stepDuplicateId } from "./graph/step-duplicate-id.js";
import { jsonSchema } from "./schema/json-schema.js";
import { beyondSchema } from "./analysis/beyond-schema.js";
import { yamlSource } from "./syntax/yaml-source.js";

// Rules are registered in ./index.ts (one line per module); this file only runs them.

export type { KnownPlaybook };

export type RuleSetting = "off" | Severity;

export interface ValidateOptions {
  limits?: SourceLimits;
  /**
   * Files next to the one validated (a dialect's sidecars), or how to read them for each file of
   * a set; none when absent.
   */
  siblings?: Siblings | ((file: string) => Siblings);
  /** Whether `relativePath` exists next to playbook `file` (rules do no I/O themselves). */
  fileExists?: (file: string, relativePath: string) => boolean;
  /** Per-rule overrides from the config file. */
  rules?: Partial<Record<RuleCode, RuleSetting>>;
  /** Playbooks outside the set that targets may name (the bundled library). */
  known?: KnownPlaybook[];
  /**
   * What `validateSet`'s reports keep: everything (`all`, the default), or `findings`, what a
   * report prints: each file's diagnostics, id and dialect, and its text only when it has a
   * finding. A file's document is released once its own rules ran; the checks across files
   * keep its playbook and load the document again only to place a finding.
   */
  retain?: "all" | "findings";
}

/** A file of a set: what it holds, or how to read it when its turn comes (`retain: findings`). */
export interface SetFile {
  file: string;
  source: PlaybookSource | (() => PlaybookSource);
}

export interface FileReport {
  file: string;
  text: string;
  /** Set when the file parsed; positions for every value. */
  doc?: SourceDocument;
  /** Set when the file passed the schema: its value is a playbook. */
  playbook?: PlaybookDocument;
  /** With `retain: findings`, the playbook's id when it passed the schema (its playbook is dropped). */
  id?: string;
  /** The system whose dialect the file is written in, when it is not a v1 playbook. */
  dialect?: DialectId;
  /** Set when the file is its system's draft of a playbook: checked alone, not one of the set. */
  draft?: true;
  diagnostics: RuleDiagnostic[];
}

type RuleModule = (typeof RULE_MODULES)[number];

const FILE_RULES: readonly FileRule<RuleCode>[] = RULE_MODULES.filter(
  (m: RuleModule): m is Extract<RuleModule, FileRule<RuleCode>> => "code" in m && m.layer !== "set",
);

const SET_RULES: readonly SetRule<RuleCode>[] = RULE_MODULES.filter(
  (m: RuleModule): m is Extract<RuleModule, SetRule<RuleCode>> => "code" in m && m.layer === "set",
);

/** The graph is sound when none of these reports an error; references are checked only then. */
const GRAPH_ERROR_RULES = FILE_RULES.filter((r) => r.layer === "graph" && r.severity === "error");

/**
 * A playbook file's document: a v1 playbook as written, or a dialect's file converted to one (its
 * values still placed in the author's file), with what the conversion found.
 */
export function loadPlaybookSource(
  file: string,
  source: PlaybookSource,
  limits: SourceLimits = DEFAULT_LIMITS,
  siblings: Siblings = NO_SIBLINGS,
):
  | { ok: true; document: SourceDocument; dialect?: DialectId; problems: DialectFinding[] }
  | { ok: false; problems: SourceProblem[]; text: string } {
  if (isRefusedSource(source)) return refusedFile(source);
  const text = typeof source === "string" ? source : decodeSource(source);
  const dialect =
    text === null || text.length > limits.maxBytes ? undefined : dialectOf(file, text);
  if (dialect && text !== null) {
    const r = dialect.load(file, text, siblings, limits);
    if (!r.ok) return r.failure;
    return { ok: true, document: r.document, dialect: dialect.id, problems: r.problems };
  }
  const loaded =
    typeof source === "string"
      ? loadSourceText(file, source, limits)
      : loadSourceBytes(file, source, limits);
  return loaded.ok ? { ok: true, document: loaded.document, problems: [] } : loaded;
}

/** Validate one file through the single-file layers: syntax → schema → graph → templates, style. */
export function validateSource(
  file: string,
  source: PlaybookSource,
  options: ValidateOptions = {},
): FileReport {
  return checkSource(file, source, options).report;
}

/** `validateSource`, with the graph its rules walked (none when the file stopped at the schema). */
function checkSource(
  file: string,
  source: PlaybookSource,
  options: ValidateOptions,
): { report: FileReport; graph?: PlaybookGraph } {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const siblings =
    typeof options.siblings === "function" ? options.siblings(file) : options.siblings;
  const loaded = loadPlaybookSource(file, source, limits, siblings ?? NO_SIBLINGS);
  if (!loaded.ok) {
    const diagnostics = yamlSource.check(loaded.problems).map((d) => makeDiagnostic(file, d));
    return { report: finish({ file, text: loaded.text, diagnostics }, options) };
  }
  const doc = loaded.document;
  const report: FileReport = { file, text: doc.text, doc, diagnostics: [] };
  if (loaded.dialect) {
    report.dialect = loaded.dialect;
    if (DIALECTS.find((x) => x.id === loaded.dialect)?.isDraft?.(file, doc.text))
      report.draft = true;
    report.diagnostics.push(
      ...dialectConversion.check(loaded.problems).map((d) => makeDiagnostic(file, d)),
    );
  }
  const schemaFindings = jsonSchema.check(doc);
  report.diagnostics.push(...schemaFindings.map((d) => makeDiagnostic(file, d)));
  // A file that fails the schema is still checked beyond it, with the failing steps set aside, so
  // that one run reports every finding the file allows.
  const beyond = beyondSchema(doc, schemaFindings);
  if (!beyond) return { report: finish(report, options) };
  if (schemaFindings.length === 0) report.playbook = beyond.playbook;
  const exists = options.fileExists;
  const graph = new PlaybookGraph(beyond.playbook);
  const findings = runFileRules({
    doc,
    playbook: beyond.playbook,
    graph,
    stepsSetAside: beyond.setAside.length > 0,
    ...(exists ? { fileExists: (rel: string) => exists(file, rel) } : {}),
  });
  const seen = new Set(schemaFindings.map(findingKey));
  for (const { found } of findings)
    for (const d of found) {
      // A finding inside a step set aside is about the stand-in, not the file; each finding once.
      if (beyond.isSetAside(d) || seen.has(findingKey(d))) continue;
      seen.add(findingKey(d));
      report.diagnostics.push(makeDiagnostic(file, d));
    }
  return { report: finish(report, options), graph };
}

/**
 * Run every single-file rule over one playbook, each once, and return the findings by rule in
 * registration order. A rule runs only where its `requires` holds.
 */
export function runFileRules(
  document: Omit<RuleContext, "analyses" | "graphSound"> & { stepsSetAside?: boolean },
): { rule: FileRule<RuleCode>; found: Finding<RuleCode>[] }[] {
  const done = new Map<FileRule<RuleCode>, Finding<RuleCode>[]>();
  let sound: boolean | undefined;
  let judging = false;
  const ctx: RuleContext = {
    ...document,
    analyses: new Map(),
    graphSound: () => {
      if (sound === undefined) {
        if (judging) throw new Error("a graph-layer error rule may not depend on graphSound()");
        judging = true;
        sound = GRAPH_ERROR_RULES.every((r) =>
          findingsOf(r).every((d) => (d.severity ?? r.severity) !== "error"),
        );
        judging = false;
      }
      return sound;
    },
  };
  const oneStepForm = hasOneStepForm(ctx);
  const wholeGraph = (): boolean =>
    oneStepForm && !document.stepsSetAside && findingsOf(stepDuplicateId).length === 0;
  const applies = (rule: FileRule<RuleCode>): boolean => {
    if (rule.requires === undefined) return true;
    if (rule.requires === "one-step-form") return oneStepForm;
    return rule.requires === "whole-graph" ? wholeGraph() : ctx.graphSound();
  };
  function findingsOf(rule: FileRule<RuleCode>): Finding<RuleCode>[] {
    let found = done.get(rule);
    if (!found) {
      found = applies(rule) ? rule.check(ctx) : [];
      done.set(rule, found);
    }
    return found;
  }
  return FILE_RULES.map((rule) => ({ rule, found: findingsOf(rule) }));
}

/** Validate several files as one set: each file alone, then the checks across files. */
export function validateSet(files: SetFile[], options: ValidateOptions = {}): FileReport[] {
  const members: SetMember[] = [];
  const reports = files.map((f) => {
    const read = typeof f.source === "function" ? f.source : () => f.source as PlaybookSource;
    const { report, graph } = checkSource(f.file, read(), options);
    if (report.doc && report.playbook && !report.draft)
      members.push(
        options.retain === "findings"
          ? releasedMember(report.playbook, graph, () => reloaded(f.file, read(), options))
          : { doc: report.doc, playbook: report.playbook },
      );
    return options.retain === "findings" ? findingsOnly(report) : report;
  });
  const set: SetContext = { members, known: options.known ?? [], analyses: new Map() };
  const byFile = new Map(reports.map((r) => [r.file, r]));
  for (const rule of SET_RULES)
    for (const { doc, d } of rule.check(set)) {
      const r = byFile.get(doc.file);
      if (!r) continue;
      r.diagnostics.push(makeDiagnostic(doc.file, d));
      if (r.text === "") r.text = doc.text;
    }
  for (const r of reports) finish(r, options);
  return reports;
}

/** What a report of `retain: findings` keeps: no document, no playbook, no text without findings. */
function findingsOnly(report: FileReport): FileReport {
  const { doc, playbook, text, ...kept } = report;
  void doc;
  return {
    ...kept,
    ...(playbook ? { id: playbook.id } : {}),
    text: report.diagnostics.length > 0 ? text : "",
  };
}

/**
 * A member that keeps its facts only: its document and playbook are loaded again when a check
 * across files places a finding in it (or compares it whole, as set-locked-id does).
 */
function releasedMember(
  playbook: PlaybookDocument,
  graph: PlaybookGraph | undefined,
  load: () => { doc: SourceDocument; playbook: PlaybookDocument },
): SetMember {
  let again: { doc: SourceDocument; playbook: PlaybookDocument } | undefined;
  return {
    // The graph the file's rules walked, when it was of this playbook (it passed the schema).
    facts: playbookFacts(playbook, graph?.playbook === playbook ? graph : undefined),
    get doc() {
      again ??= load();
      return again.doc;
    },
    get playbook() {
      again ??= load();
      return again.playbook;
    },
  };
}

/** A file's document and playbook read again (it passed the schema before, so it loads). */
function reloaded(
  file: string,
  source: PlaybookSource,
  options: ValidateOptions,
): { doc: SourceDocument; playbook: PlaybookDocument } {
  const siblings =
    typeof options.siblings === "function" ? options.siblings(file) : options.siblings;
  const loaded = loadPlaybookSource(file, source, options.limits, siblings ?? NO_SIBLINGS);
  if (!loaded.ok) throw new Error(`${file} changed while it was validated`);
  // It passed the schema: its value is the playbook, as validateSource took it.
  return { doc: loaded.document, playbook: loaded.document.value as PlaybookDocument };
}

/** Apply the rule config and sort: errors first, then by position. */
function finish(report: FileReport, options: ValidateOptions): FileReport {
  const settings = options.rules ?? {};
  const dialect = DIALECTS.find((x) => x.id === report.dialect);
  const soft = new Set<RuleCode>(dialect?.softRules ?? []);
  const quiet = new Set<RuleCode>(dialect?.quietRules ?? []);
  report.diagnostics = report.diagnostics
    .filter((d) => !quiet.has(d.rule))
    .map((d) =>
      soft.has(d.rule) && d.severity === "error"
        ? {
            ...d,
            severity: "warning" as const,
            hint: `${d.hint ? `${d.hint}; ` : ""}its system resolves this when the run gets there, so it is only a warning here`,
          }
        : d,
    )
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

/** What makes two findings the same: their rule, where they are, and what they say. */
function findingKey(d: DiagnosticInput): string {
  return `${d.rule}\n${d.span.line}:${d.span.column}\n${d.message}`;
}
