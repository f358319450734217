import "../../../adapters/local/yaml-library.js";
import { existsSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { loadConfig } from "../../../adapters/local/rule-config.js";
import { bundledPlaybooks, playbookFilesIn } from "../../../adapters/local/library.js";
import { playbookSource, rootFor, writeReportFile } from "../../../adapters/local/safe-files.js";
import { formatGithub, formatJson } from "../../../core/format/report/machine.js";
import { formatText } from "../../../core/format/report/text.js";
import { DEFAULT_LIMITS } from "../../../core/format/source.js";
import {
  countBySeverity,
  validateSet,
  type FileReport,
  type KnownPlaybook,
  type ValidateOptions,
} from "../../../core/rules/validate.js";
import { EXIT, readProcessStdin, textStyle, UsageError, type CliContext } from "../cli-io.js";
import { onDisk, resolvePlaybookFiles } from "../playbook-files.js";

export interface ValidateFlags {
  format: string;
  config?: string;
  library: boolean;
  quiet: boolean;
  maxWarnings?: number;
  outputFile?: string;
  stdin: boolean;
  stdinFilename?: string;
}

/** How much of standard input `validate -` reads: past the size limit, so the report says so. */
const STDIN_MAX = 16 * DEFAULT_LIMITS.maxBytes;

type Check = Pick<ValidateOptions, "fileExists" | "siblings" | "rules">;

/** `validate -`: one playbook from standard input, named as `--stdin-filename` says. */
async function validateStdin(
  ctx: CliContext,
  name: string | undefined,
  library: KnownPlaybook[],
  check: Check,
): Promise<FileReport[]> {
  const { io } = ctx;
  const read = io.readStdin ?? readProcessStdin;
  const source = await read(STDIN_MAX);
  const abs = resolve(io.cwd, name ?? "<stdin>");
  const file = name === undefined ? "<stdin>" : relative(io.cwd, abs) || name;
  // The playbooks beside the file it stands for are what its handoffs and delegates name.
  const beside =
    name !== undefined && existsSync(dirname(abs))
      ? (await playbookFilesIn(dirname(abs))).filter((f) => resolve(f) !== abs)
      : [];
  const near = validateSet(
    beside.map((f) => ({ file: f, source: playbookSource(f, { root: dirname(abs) }) })),
    { ...check, known: library },
  ).flatMap((r) => (r.playbook ? [{ id: r.playbook.id, playbook: r.playbook }] : []));
  return validateSet([{ file, source }], { ...check, known: [...near, ...library] });
}

/** The reports of the files or of standard input, as the flags say. */
async function reportsOf(
  ctx: CliContext,
  paths: string[],
  opts: ValidateFlags,
): Promise<FileReport[]> {
  const { io } = ctx;
  const config = loadConfig(io.cwd, opts.config ? resolve(io.cwd, opts.config) : undefined);
  const known = opts.library ? await bundledPlaybooks() : [];
  const check = { ...onDisk(io.cwd), rules: config.rules };
  const stdin = opts.stdin || paths.includes("-");
  if (!stdin && opts.stdinFilename !== undefined)
    throw new UsageError(
      "--stdin-filename names what standard input holds: use it with - or --stdin",
    );
  if (stdin) {
    if (paths.some((p) => p !== "-"))
      throw new UsageError("validate reads standard input or files, not both");
    return validateStdin(ctx, opts.stdinFilename, known, check);
  }
  const files = await resolvePlaybookFiles(paths, io.cwd);
  // Playbooks in the set win over bundled ones with the same id, as in discovery.
  // Each file read when its turn comes, and of each report only what is printed kept: validating
  // a thousand files holds a thousand reports, not a thousand documents.
  return validateSet(
    files.map((file) => ({
      file: relative(io.cwd, file) || file,
      source: () => playbookSource(file, { root: rootFor(file, io.cwd) }),
    })),
    { ...check, known, retain: "findings" },
  );
}

/** SARIF, with every rule's help: loaded only when asked for (the rules' docs are large). */
async function formattedSarif(ctx: CliContext, shown: FileReport[]): Promise<string> {
  const [{ formatSarif }, { findRepositoryRoot, sarifRoot, toolInfo }] = await Promise.all([
    import("../../../core/format/report/sarif.js"),
    import("../../../adapters/local/sarif-context.js"),
  ]);
  return formatSarif(shown, {
    ...toolInfo(),
    // Paths from the repository root, wherever in it the command runs.
    root: sarifRoot(findRepositoryRoot(ctx.io.cwd, process.env).dir, ctx.io.cwd),
  });
}

/** The report in the format asked for. */
async function formatted(
  ctx: CliContext,
  shown: FileReport[],
  opts: ValidateFlags,
  errors: number,
): Promise<string> {
  switch (opts.format) {
    case "json":
      return formatJson(shown);
    case "github":
      return formatGithub(shown);
    case "sarif":
      return formattedSarif(ctx, shown);
    default:
      if (opts.quiet && errors === 0) return "";
      return formatText(shown, textStyle(ctx, opts.outputFile !== undefined ? "file" : "out"));
  }
}

/** `--output-file`: the report written to a file, its folder made when missing. */
export function writeReport(file: string, text: string): void {
  try {
    writeReportFile(file, text);
  } catch (err) {
    throw new UsageError(`cannot write the report to ${file}: ${(err as Error).message}`);
  }
}

/** `playbook-bot validate`: every finding of every file, one report; 0 valid, 1 invalid. */
export async function validateCommand(
  ctx: CliContext,
  paths: string[],
  opts: ValidateFlags,
): Promise<number> {
  const { io } = ctx;
  const reports = await reportsOf(ctx, paths, opts);
  const { errors, warnings } = countBySeverity(reports);
  // --quiet shows errors only; --max-warnings still counts the warnings it hides.
  const shown = opts.quiet
    ? reports.map((r) => ({
        ...r,
        diagnostics: r.diagnostics.filter((d) => d.severity === "error"),
      }))
    : reports;
  const text = await formatted(ctx, shown, opts, errors);
  if (opts.outputFile !== undefined) writeReport(resolve(io.cwd, opts.outputFile), text);
  else io.out(text);
  if (opts.maxWarnings !== undefined && warnings > opts.maxWarnings) {
    io.err(
      `playbook-bot: ${warnings} ${warnings === 1 ? "warning" : "warnings"}${opts.quiet ? " (not shown: --quiet)" : ""}, more than --max-warnings ${opts.maxWarnings} allows\n`,
    );
    return EXIT.invalid;
  }
  return errors > 0 ? EXIT.invalid : EXIT.ok;
}
