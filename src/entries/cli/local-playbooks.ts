import { existsSync } from "node:fs";
import { basename, dirname, extname, join, relative, resolve } from "node:path";
import type { PlaybookBundle } from "../../core/steps/types.js";
import {
  bundledLibraryDir,
  playbookFilesIn,
  SYSTEM_PLAYBOOKS,
} from "../../adapters/local/library.js";
import {
  playbookSource,
  readConfinedText,
  rootFor,
  sidecarRoot,
} from "../../adapters/local/safe-files.js";
import { PlaybookGraph } from "../../core/format/graph.js";
import {
  bundleHash,
  bundleOf as bundleFromReport,
  invalidReportOf,
  resolveTiers,
  type SourcedBundle,
} from "../../runtime/tiers.js";

export { bundleHash };
import { validateSource, type FileReport } from "../../core/rules/validate.js";
import { StateError, type FileRunStore } from "../../adapters/local/file-store.js";

export interface LoadedSet {
  /** Valid playbooks by id; the first tier that defines an id wins, `active: false` disables it. */
  bundles: Map<string, SourcedBundle>;
  /** Reports with errors, to show when the requested playbook is among them. */
  reports: FileReport[];
}

/** Read a file a playbook refers to, relative to the playbook's folder and inside it. */
function readNextTo(file: string, rel: string, root = dirname(file)): string | undefined {
  return readConfinedText(join(dirname(file), rel), { root });
}

/** A bundle for a valid report read from disk. */
export function bundleOf(report: FileReport): SourcedBundle | undefined {
  return bundleFromReport(report, readNextTo);
}

/**
 * Playbooks the way the app finds them: the repository's `.github/playbooks/`, then the bundled
 * library. A file named on the command line comes first, with the playbooks beside it.
 */
export async function loadLocalPlaybooks(repo: string, explicitFile?: string): Promise<LoadedSet> {
  // Each tier's files are read inside its folder.
  const tiers: { root: string; files: string[]; sidecars?: string }[] = [];
  if (explicitFile) {
    const dir = dirname(explicitFile);
    tiers.push({
      root: rootFor(explicitFile, repo),
      sidecars: sidecarRoot(explicitFile, repo),
      files: [
        explicitFile,
        ...(await playbookFilesIn(dir)).filter((f) => resolve(f) !== resolve(explicitFile)),
      ],
    });
  }
  const local = join(repo, ".github", "playbooks");
  if (existsSync(local)) tiers.push({ root: repo, files: await playbookFilesIn(local) });
  const library = bundledLibraryDir();
  tiers.push({ root: library, files: await playbookFilesIn(library) });
  const { bundles, reports } = resolveTiers(
    tiers.map(({ root, files, sidecars }, i) => ({
      files: files.map((file) => ({ file, source: playbookSource(file, { root }) })),
      read: (file: string, rel: string) => readNextTo(file, rel, sidecars ?? root),
      // The last tier is the bundled library, whose system playbooks nothing replaces.
      ...(i === tiers.length - 1 ? { locked: SYSTEM_PLAYBOOKS } : {}),
    })),
  );
  return { bundles, reports };
}

/** Why the playbook of this id did not load: its file's report, the file named from `cwd`. */
export function localProblems(set: LoadedSet, id: string, cwd: string): FileReport | undefined {
  const report = invalidReportOf(set.reports, id);
  return report && { ...report, file: relative(cwd, report.file) };
}

/** A command's playbook argument as a file: one with a playbook's extension (v1 or a dialect's). */
export function playbookFileArgument(target: string, cwd: string): string | undefined {
  return /\.(ya?ml|json|md)$/i.test(target) ? resolve(cwd, target) : undefined;
}

/** Resolve `run <target>`: an existing file, or an id (or `on.command`) in the loaded set. */
export function findTarget(
  set: LoadedSet,
  target: string,
  repo: string,
): { bundle?: PlaybookBundle & { file: string; source: string }; report?: FileReport } {
  const asFile = resolve(repo, target);
  if (existsSync(asFile) && [".yaml", ".yml", ".json", ".md"].includes(extname(asFile))) {
    const bundle = [...set.bundles.values()].find((b) => resolve(b.file) === asFile);
    const report = set.reports.find((r) => resolve(r.file) === asFile && hasErrors(r));
    return bundle ? { bundle } : report ? { report } : {};
  }
  const byId =
    set.bundles.get(target) ??
    [...set.bundles.values()].find((b) => b.playbook.on?.command === target);
  if (byId) return { bundle: byId };
  const report = set.reports.find(
    (r) =>
      hasErrors(r) && (r.playbook?.id === target || basename(r.file, extname(r.file)) === target),
  );
  return report ? { report } : {};
}

/** Only a report with errors explains why a playbook cannot run; a valid one (disabled) does not. */
function hasErrors(report: FileReport): boolean {
  return report.diagnostics.some((d) => d.severity === "error");
}

/** The file that disables a playbook (`active: false`) the target names, if any. */
export function disabledBy(set: LoadedSet, target: string, repo: string): string | undefined {
  const asFile = resolve(repo, target);
  return set.reports.find(
    (r) =>
      r.playbook?.active === false &&
      !hasErrors(r) &&
      (r.playbook.id === target || resolve(r.file) === asFile),
  )?.file;
}

/** The playbooks a run may enter: the root and everything it delegates to, transitively. */
export function delegateClosure(rootId: string, bundles: Map<string, PlaybookBundle>): string[] {
  const out: string[] = [];
  const stack = [rootId];
  while (stack.length > 0) {
    const id = stack.pop() as string;
    if (out.includes(id)) continue;
    const b = bundles.get(id);
    if (!b) continue;
    out.push(id);
    for (const s of new PlaybookGraph(b.playbook).steps)
      if (s.step.type === "playbook" && s.step.mode === "delegate") stack.push(s.step.playbook);
  }
  return out;
}

/** Pin the playbooks of a run into the store (content-addressed), so `resume` runs the same versions. */
export function pinBundles(
  store: FileRunStore,
  ids: string[],
  bundles: LoadedSet["bundles"],
): Record<string, string> {
  const pinned: Record<string, string> = {};
  for (const id of ids) {
    const b = bundles.get(id);
    if (b)
      pinned[id] = store.pinPlaybook(
        b.hash,
        JSON.stringify({ file: b.file, source: b.source, files: b.files ?? {} }),
      );
  }
  return pinned;
}

/** Load pinned playbooks back; a copy that no longer matches its hash is a state error. */
export function loadPinned(
  store: FileRunStore,
  pinned: Record<string, string>,
): Map<string, PlaybookBundle> {
  const out = new Map<string, PlaybookBundle>();
  for (const [id, rel] of Object.entries(pinned)) {
    let copy: { file: string; source: string; files: Record<string, string> };
    try {
      copy = JSON.parse(store.readPinned(rel)) as typeof copy;
    } catch (err) {
      if (err instanceof StateError) throw err;
      throw new StateError(
        `the pinned copy of playbook '${id}' (${rel}) is damaged`,
        "delete the run's state file and start a new run",
      );
    }
    const hash = bundleHash(copy.source, copy.files);
    const report = validateSource(copy.file, copy.source);
    if (!report.playbook || !rel.includes(hash)) {
      throw new StateError(
        `the pinned copy of playbook '${id}' (${rel}) does not match the run`,
        "delete the run's state file and start a new run",
      );
    }
    out.set(id, { playbook: report.playbook, hash, files: copy.files });
  }
  return out;
}
