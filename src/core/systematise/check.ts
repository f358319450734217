/**
 * The one gate a drafted or changed playbook passes before it is proposed: the project's own
 * validation, every layer (YAML → schema → graph → templates → across files, the last with the
 * playbooks the caller knows), exactly as `playbook-bot validate` runs it. Pure.
 */
import type { PlaybookDocument } from "../format/types.js";
import { yamlLibrary } from "../format/yaml-library.js";
import { validateSet, type KnownPlaybook } from "../rules/validate.js";

export interface CheckOptions {
  /** Playbooks a handoff or delegate may name, and the system playbooks whose ids are locked. */
  known?: KnownPlaybook[];
}

export type CheckResult =
  | {
      ok: true;
      playbook: PlaybookDocument;
      warnings: string[];
      /** The system whose dialect the text is written in, when it is not a v1 playbook. */
      dialect?: string;
    }
  | { ok: false; problems: string[] };

/** `file:line:column: message [rule]`, as the CLI's text format reads. */
function line(file: string, d: { line: number; column: number; message: string; rule: string }) {
  return `${file}:${d.line}:${d.column}: ${d.message} [${d.rule}]`;
}

/** Validate a playbook's YAML text as the CLI does; errors refuse it, warnings are reported. */
export function checkPlaybookText(
  file: string,
  text: string,
  options: CheckOptions = {},
): CheckResult {
  const [report] = validateSet([{ file, source: text }], { known: options.known ?? [] });
  if (!report) return { ok: false, problems: [`${file}: nothing was validated`] };
  const errors = report.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0 || !report.playbook)
    return {
      ok: false,
      problems: errors.length > 0 ? errors.map((d) => line(file, d)) : [`${file}: not a playbook`],
    };
  return {
    ok: true,
    playbook: report.playbook,
    warnings: report.diagnostics.map((d) => line(file, d)),
    ...(report.dialect !== undefined ? { dialect: report.dialect } : {}),
  };
}

/**
 * A playbook object as YAML text: built as data and serialised by js-yaml (the core schema the
 * parser reads with), so no value — whatever people wrote in it — can become YAML structure.
 */
export function serialisePlaybook(value: unknown): string {
  const y = yamlLibrary();
  return y.dump(value, {
    schema: y.CORE_SCHEMA,
    noRefs: true,
    lineWidth: 100,
    quoteStyle: "double",
  });
}

/** Deep equality of plain data (YAML values): mapping key order does not matter. */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === "number" && typeof b === "number") return Number.isNaN(a) && Number.isNaN(b);
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => sameData(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every(
      (k) =>
        Object.hasOwn(b, k) &&
        sameData((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    )
  );
}

/**
 * Serialise, then validate what was serialised, and make sure it reads back as the very object
 * that was built: the text proposed is the playbook described.
 */
export function checkPlaybookValue(
  file: string,
  value: unknown,
  options: CheckOptions = {},
):
  | { ok: true; yaml: string; playbook: PlaybookDocument; warnings: string[] }
  | { ok: false; problems: string[] } {
  const yaml = serialisePlaybook(value);
  const checked = checkPlaybookText(file, yaml, options);
  if (!checked.ok) return checked;
  if (!sameData(checked.playbook, value))
    return {
      ok: false,
      problems: [`${file}: the YAML text does not read back as the playbook built`],
    };
  return { ok: true, yaml, playbook: checked.playbook, warnings: checked.warnings };
}
