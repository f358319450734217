import { createHash } from "node:crypto";
import { posix } from "node:path";
import type { PlaybookBundle } from "../core/steps/types.js";
import { PlaybookGraph } from "../core/format/graph.js";
import type { PlaybookDocument } from "../core/format/types.js";
import { validateSet, type FileReport, type PlaybookSource } from "../core/rules/validate.js";
import { filesOfStep } from "../core/steps/registry.js";

/** A playbook bundle that remembers where it came from. */
export type SourcedBundle = PlaybookBundle & { file: string; source: string };

/** One tier of playbooks: files, and how to read a file a step refers to (relative to the playbook). */
export interface Tier {
  files: { file: string; source: PlaybookSource }[];
  read(file: string, relative: string): string | undefined;
  /** The commit the tier was read at (GitHub), pinned into runs. */
  commit?: string;
  /** Ids of system playbooks in this tier: a nearer tier may not define (or disable) them. */
  locked?: ReadonlySet<string>;
}

export interface Tiered {
  /** Valid playbooks by id; the nearest tier that defines an id wins, `active: false` disables it. */
  bundles: Map<string, SourcedBundle>;
  reports: FileReport[];
}

/** Files a playbook's steps read (templates, prompts): loaded with it so the engine stays pure. */
export function stepFileRefs(playbook: PlaybookDocument): string[] {
  const refs: string[] = [];
  for (const s of new PlaybookGraph(playbook).steps)
    for (const { rel } of filesOfStep(s.step)) if (rel) refs.push(rel);
  return refs;
}

export function bundleHash(source: string, files: Record<string, string>): string {
  return createHash("sha256").update(JSON.stringify({ source, files })).digest("hex");
}

/** A bundle for a report without errors: the playbook, its hash and the files its steps read. */
export function bundleOf(
  report: FileReport,
  read: Tier["read"],
  commit?: string,
): SourcedBundle | undefined {
  if (!report.playbook || report.diagnostics.some((d) => d.severity === "error")) return undefined;
  const files: Record<string, string> = {};
  for (const rel of stepFileRefs(report.playbook)) {
    const text = read(report.file, rel);
    if (text !== undefined) files[rel] = text;
  }
  const bundle: SourcedBundle = {
    playbook: report.playbook,
    hash: bundleHash(report.text, files),
    files,
    file: report.file,
    source: report.text,
  };
  if (commit !== undefined) bundle.commit = commit;
  return bundle;
}

/**
 * Several tiers as one catalogue, nearest first (a repository, its organisation, the bundled
 * library). Tiers are validated from the farthest up, so a nearer playbook may delegate to a
 * farther one; ids are then taken nearest first.
 */
export function resolveTiers(tiers: Tier[]): Tiered {
  const known: { id: string; playbook: PlaybookDocument }[] = [];
  const validated: { tier: Tier; reports: FileReport[] }[] = [];
  for (const tier of [...tiers].reverse()) {
    const reports = validateSet(tier.files, {
      fileExists: (file, rel) => tier.read(file, rel) !== undefined,
      // A dialect's sidecars sit next to its file, in the same tier.
      siblings: (file) => ({ read: (rel) => tier.read(file, rel) }),
      known: [...known],
    });
    validated.unshift({ tier, reports });
    known.unshift(
      ...reports.flatMap((r) =>
        r.playbook
          ? [
              {
                id: r.playbook.id,
                playbook: r.playbook,
                locked: tier.locked?.has(r.playbook.id) === true,
              },
            ]
          : [],
      ),
    );
  }
  const bundles = new Map<string, SourcedBundle>();
  // Ids a nearer tier disabled, or wrote in a file with errors: a farther playbook of that id
  // does not run in their place (the file's report says why the id is unavailable).
  const disabled = new Set<string>();
  const locked = new Set(validated.flatMap(({ tier }) => [...(tier.locked ?? [])]));
  const reports: FileReport[] = [];
  for (const { tier, reports: tierReports } of validated) {
    for (const r of tierReports) {
      reports.push(r);
      // A draft (Triagent's proposal) is no playbook of the catalogue.
      if (r.draft) continue;
      const b = bundleOf(r, tier.read, tier.commit);
      const id = b?.playbook.id ?? writtenId(r);
      if (id === undefined || bundles.has(id) || disabled.has(id)) continue;
      // A system playbook's id is taken from its own tier only (set-locked-id reports the rest).
      if (locked.has(id) && !tier.locked?.has(id)) continue;
      if (!b || b.playbook.active === false) disabled.add(id);
      else bundles.set(id, b);
    }
  }
  return { bundles, reports };
}

/** The id a file names, even when it has errors (so its id does not fall to a farther tier). */
/**
 * The report of a file with errors that is the playbook of this id (the id it writes, or its file's
 * name): why that playbook is not in the catalogue.
 */
export function invalidReportOf(
  reports: readonly FileReport[],
  id: string,
): FileReport | undefined {
  return reports.find(
    (r) =>
      r.diagnostics.some((d) => d.severity === "error") &&
      (writtenId(r) === id || r.file.replace(/^.*[/\\]/, "").replace(/\.ya?ml$/, "") === id),
  );
}

function writtenId(report: FileReport): string | undefined {
  const value = report.doc?.value;
  const id =
    report.playbook?.id ??
    (value !== null && typeof value === "object" ? (value as { id?: unknown }).id : undefined);
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** A path relative to a playbook file, inside a tree listed with '/' separators. */
export function joinRelative(file: string, relative: string): string {
  return posix.normalize(posix.join(posix.dirname(file), relative));
}
