import { existsSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { fileExistsNextTo, IGNORED_GLOBS, playbookFilesIn } from "../../adapters/local/library.js";
import { filesUnder, sidecarRoot } from "../../adapters/local/safe-files.js";
import { siblingsOnDisk } from "../../adapters/local/siblings.js";
import { PLAYBOOK_FOLDERS } from "../../core/dialects/folders.js";
import type { ValidateOptions } from "../../core/rules/validate.js";
import { UsageError } from "./cli-io.js";

export const DEFAULT_PATHS = [...PLAYBOOK_FOLDERS];

/** Files named by the arguments: files as given, folders searched, globs expanded. */
export async function resolvePlaybookFiles(
  args: readonly string[],
  cwd: string,
): Promise<string[]> {
  const explicit = args.length > 0;
  const targets = explicit ? args : DEFAULT_PATHS;
  const files = new Set<string>();
  for (const target of targets) {
    const abs = isAbsolute(target) ? target : resolve(cwd, target);
    if (existsSync(abs)) {
      if (statSync(abs).isDirectory()) for (const f of await playbookFilesIn(abs)) files.add(f);
      else files.add(abs);
    } else if (/[*?{[]/.test(target)) {
      for (const f of await filesUnder(cwd, [target], { ignore: IGNORED_GLOBS }))
        files.add(resolve(cwd, f));
    } else if (explicit) {
      throw new UsageError(`${target}: no such file or folder`);
    }
  }
  if (files.size === 0) {
    throw new UsageError(
      explicit
        ? `no playbook files (*.yaml, *.yml, or another system's playbooks) found in ${args.join(", ")}`
        : `no playbook files found: looked in ${DEFAULT_PATHS.join(" and ")} (pass paths to look elsewhere)`,
    );
  }
  return [...files].sort();
}

/**
 * What validation reads beside a playbook on disk (templates, sidecars), paths from `cwd`. The
 * sidecars are looked up from the playbook, never from the working folder, and read within its
 * repository (outside any, see `sidecarRoot`), so a system's own layout reads the same from
 * any working folder.
 */
export function onDisk(cwd: string): Pick<ValidateOptions, "fileExists" | "siblings"> {
  return {
    fileExists: (file, rel) => fileExistsNextTo(resolve(cwd, file), rel, sidecarRoot(file, cwd)),
    siblings: (file) => siblingsOnDisk(resolve(cwd, file), sidecarRoot(file, cwd)),
  };
}
