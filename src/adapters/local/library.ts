import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { confinedFileExists, filesUnder, playbookSource, readConfinedText } from "./safe-files.js";
import { isPlaybookFile } from "../../core/dialects/files.js";
import { siblingsOnDisk } from "./siblings.js";
import { validateSet, type FileReport, type KnownPlaybook } from "../../core/rules/validate.js";
import { cachedLibrary } from "./library-cache.js";
import { ownPackageDir } from "./own-package.js";

/** The bundled library: `playbooks/` in this package, the lowest discovery tier. */
export function bundledLibraryDir(): string {
  const root = ownPackageDir();
  if (root === undefined)
    throw new Error("playbook-bot's package.json was not found above its modules");
  return join(root, "playbooks");
}

export const PLAYBOOK_GLOBS = ["**/*.yaml", "**/*.yml"];
export const IGNORED_GLOBS = ["**/node_modules/**", "**/templates/**"];

/** Files other systems keep playbooks in, taken only when a dialect recognises them. */
export const DIALECT_GLOBS = ["**/*.json", "**/*.md"];

/**
 * Playbook files under a folder: YAML files (v1, or a dialect's), and the JSON and Markdown files
 * a dialect recognises — never a dialect's sidecar, which loads with its playbook.
 */
export async function playbookFilesIn(dir: string): Promise<string[]> {
  // Linked folders are not walked; links, pipes and devices are listed, to be refused when read.
  const found = await filesUnder(dir, [...PLAYBOOK_GLOBS, ...DIALECT_GLOBS], {
    ignore: IGNORED_GLOBS,
  });
  return found
    .filter((f) =>
      isPlaybookFile(
        f,
        () => readConfinedText(join(dir, f), { root: dir }) ?? "",
        siblingsOnDisk(join(dir, f), dir),
      ),
    )
    .sort()
    .map((f) => join(dir, f));
}

/**
 * The bot's system playbooks: a contract other playbooks and the app rely on (the default alert
 * triage). A repository cannot replace or disable them (set-locked-id).
 */
export const SYSTEM_PLAYBOOKS: ReadonlySet<string> = new Set(["alert-triage"]);

/**
 * Whether `rel` next to playbook `file` is a file that would be read inside `root`: a link, a
 * pipe or a path out of the root counts as missing, as the run that reads it finds it.
 */
export function fileExistsNextTo(file: string, rel: string, root: string): boolean {
  return confinedFileExists(join(dirname(file), rel), root);
}

let bundled: Promise<FileReport[]> | undefined;

/** The bundled playbooks, validated once per process. */
export function loadBundledReports(): Promise<FileReport[]> {
  bundled ??= (async () => {
    const dir = bundledLibraryDir();
    if (!existsSync(dir)) return [];
    const files = await playbookFilesIn(dir);
    return validateSet(
      files.map((file) => ({ file, source: playbookSource(file, { root: dir }) })),
      { fileExists: (file, rel) => fileExistsNextTo(file, rel, dir) },
    );
  })();
  return bundled;
}

/**
 * Valid bundled playbooks, for resolving targets that a repository's playbooks name: from the
 * build's cache when it matches the library's files, else validated here.
 */
export async function bundledPlaybooks(): Promise<KnownPlaybook[]> {
  const cached = cachedLibrary(bundledLibraryDir());
  if (cached) return cached;
  return validatedLibrary();
}

/** The library's valid playbooks, validated now (what the cache holds). */
export async function validatedLibrary(): Promise<KnownPlaybook[]> {
  const reports = await loadBundledReports();
  return reports.flatMap((r) =>
    r.playbook && !r.diagnostics.some((d) => d.severity === "error")
      ? [{ id: r.playbook.id, playbook: r.playbook, locked: SYSTEM_PLAYBOOKS.has(r.playbook.id) }]
      : [],
  );
}
