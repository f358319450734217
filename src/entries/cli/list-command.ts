import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { FileReport } from "../../core/rules/validate.js";
import { plainLine } from "../../core/util/log-line.js";
import type { Colours } from "./colour.js";

/**
 * Where a playbook sits among the places the bot looks, nearest first: the repository's
 * `.github/playbooks/`, files named on the command line outside it, the bundled library.
 */
export type ListTier = "repository" | "named" | "library";

const TIER_ORDER: readonly ListTier[] = ["repository", "named", "library"];

export interface ListedPlaybook {
  /** The id the file declares; null when it declares none that can be read. */
  id: string | null;
  name: string | null;
  tier: ListTier;
  file: string;
  errors: number;
  warnings: number;
  /** `false` when the file disables its id (`active: false`). */
  active: boolean;
  /** A nearer file that defines the same id, which runs in this one's place. */
  replacedBy: string | null;
  /** `valid`, `N errors`, `N warnings` or both, then `disabled` or `replaced` when they hold. */
  status: string;
}

/** The tier of a file, from its absolute path. */
export function tierOf(file: string, cwd: string, libraryDir: string): ListTier {
  const inside = (dir: string) => file.startsWith(dir.endsWith(sep) ? dir : dir + sep);
  if (inside(resolve(libraryDir))) return "library";
  if (inside(join(resolve(cwd), ".github", "playbooks"))) return "repository";
  return "named";
}

/** A file as the listing names it: relative to the current folder when inside it. */
export function shownFile(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}

function declared(report: FileReport, key: "id" | "name"): string | null {
  const fromPlaybook = report.playbook?.[key];
  if (typeof fromPlaybook === "string") return fromPlaybook;
  const value = report.doc?.value;
  const written =
    value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)[key]
      : undefined;
  return typeof written === "string" ? written : null;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * The playbooks of reports (absolute file paths), nearest tier first, each with its status. The
 * first file of an id (in tier and file order) is the one a run takes; the others say so, except
 * a locked system playbook of the library, which nothing replaces.
 */
export function listPlaybooks(
  reports: readonly FileReport[],
  cwd: string,
  libraryDir: string,
  locked: ReadonlySet<string> = new Set(),
): ListedPlaybook[] {
  const rows = reports
    .map((r) => ({ r, tier: tierOf(r.file, cwd, libraryDir) }))
    .sort(
      (a, b) =>
        TIER_ORDER.indexOf(a.tier) - TIER_ORDER.indexOf(b.tier) || (a.r.file < b.r.file ? -1 : 1),
    );
  const firstOf = new Map<string, string>();
  return rows.map(({ r, tier }) => {
    const id = declared(r, "id");
    const file = shownFile(r.file, cwd);
    const errors = r.diagnostics.filter((d) => d.severity === "error").length;
    const warnings = r.diagnostics.length - errors;
    const active = r.playbook?.active !== false;
    // A system playbook runs whatever a nearer file says (that file has an error for it).
    const earlier =
      id === null || (tier === "library" && locked.has(id)) ? undefined : firstOf.get(id);
    if (id !== null && earlier === undefined) firstOf.set(id, file);
    const parts =
      errors === 0 && warnings === 0
        ? ["valid"]
        : [
            ...(errors ? [plural(errors, "error")] : []),
            ...(warnings ? [plural(warnings, "warning")] : []),
          ];
    if (!active) parts.push("disabled");
    if (earlier !== undefined) parts.push("replaced");
    return {
      id,
      name: declared(r, "name"),
      tier,
      file,
      errors,
      warnings,
      active,
      replacedBy: earlier ?? null,
      status: parts.join(", "),
    };
  });
}

const MAX_NAME = 48;

/** One cell: one line, no control characters, a name cut to fit. */
function cell(value: string | null, max = Infinity): string {
  const one = plainLine(value ?? "-");
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The listing as aligned columns, the status coloured by what it says. */
export function listTable(rows: readonly ListedPlaybook[], c: Colours): string {
  if (rows.length === 0) return "no playbooks found\n";
  const head = ["ID", "NAME", "TIER", "STATUS", "FILE"];
  const cells = rows.map((r) => [
    cell(r.id),
    cell(r.name, MAX_NAME),
    r.tier,
    r.status,
    cell(r.file),
  ]);
  const widths = head.map((h, i) =>
    Math.max(h.length, ...cells.map((row) => (row[i] as string).length)),
  );
  const paint = (r: ListedPlaybook): ((t: string) => string) =>
    r.errors > 0
      ? c.red
      : r.replacedBy !== null || !r.active
        ? c.dim
        : r.warnings > 0
          ? c.yellow
          : c.green;
  const line = (values: string[], status: (t: string) => string) =>
    values
      .map((v, i) => {
        const padded = i === values.length - 1 ? v : v.padEnd(widths[i] as number);
        return i === 3 ? status(padded) : padded;
      })
      .join("  ");
  return (
    [
      c.bold(line(head, (t) => t)),
      ...cells.map((values, i) => line(values, paint(rows[i] as ListedPlaybook))),
    ].join("\n") + "\n"
  );
}
