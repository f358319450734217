import "../../../adapters/local/yaml-library.js";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { loadConfig } from "../../../adapters/local/rule-config.js";
import {
  bundledLibraryDir,
  bundledPlaybooks,
  loadBundledReports,
  SYSTEM_PLAYBOOKS,
} from "../../../adapters/local/library.js";
import { playbookSource, rootFor } from "../../../adapters/local/safe-files.js";
import { validateSet } from "../../../core/rules/validate.js";
import { coloursFor, EXIT, UsageError, type CliContext } from "../cli-io.js";
import { listPlaybooks, listTable } from "../list-command.js";
import { DEFAULT_PATHS, onDisk, resolvePlaybookFiles } from "../playbook-files.js";

export interface ListFlags {
  format: "table" | "json";
  config?: string;
  library: boolean;
}

/** The files to list: named paths must exist; the default folders are looked in when they do. */
async function filesToList(paths: string[], cwd: string): Promise<string[]> {
  if (paths.length === 0 && !DEFAULT_PATHS.some((p) => existsSync(resolve(cwd, p)))) return [];
  return resolvePlaybookFiles(paths, cwd).catch((err: unknown) => {
    if (paths.length === 0 && err instanceof UsageError) return [];
    throw err;
  });
}

/** `playbook-bot list`: the playbooks found, with their tier and status. */
export async function listCommand(
  ctx: CliContext,
  paths: string[],
  opts: ListFlags,
): Promise<number> {
  const { io } = ctx;
  const config = loadConfig(io.cwd, opts.config ? resolve(io.cwd, opts.config) : undefined);
  const files = await filesToList(paths, io.cwd);
  const library = opts.library ? await loadBundledReports() : [];
  const reports = validateSet(
    files.map((file) => ({ file, source: playbookSource(file, { root: rootFor(file, io.cwd) }) })),
    {
      ...onDisk(io.cwd),
      rules: config.rules,
      known: opts.library ? await bundledPlaybooks() : [],
    },
  );
  const named = new Set(files);
  const rows = listPlaybooks(
    [...reports, ...library.filter((r) => !named.has(r.file))],
    io.cwd,
    bundledLibraryDir(),
    SYSTEM_PLAYBOOKS,
  );
  io.out(
    opts.format === "json"
      ? JSON.stringify(rows, null, 2) + "\n"
      : listTable(rows, coloursFor(ctx, "out")),
  );
  return EXIT.ok;
}
