import "../../adapters/local/yaml-library.js";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { Command, CommanderError, Option } from "commander";
import { yamlLibrary } from "../../core/format/yaml-library.js";

const dumpYaml: ReturnType<typeof yamlLibrary>["dump"] = (...args) => yamlLibrary().dump(...args);
import { ConfigError, loadConfig } from "../../adapters/local/rule-config.js";
import {
  bundledLibraryDir,
  bundledPlaybooks,
  fileExistsNextTo,
  IGNORED_GLOBS,
  loadBundledReports,
  playbookFilesIn,
  SYSTEM_PLAYBOOKS,
} from "../../adapters/local/library.js";
import { renderMermaid } from "../../core/format/mermaid.js";
import { formatGithub, formatJson, formatSarif } from "../../core/format/report/machine.js";
import { formatText, type TextStyle } from "../../core/format/report/text.js";
import { ruleHelpText, rulesMarkdown, ruleUrl } from "../../core/format/report/rule-help.js";
import { didYouMean } from "../../core/util/suggest.js";
import { findRepositoryRoot, sarifRoot, toolInfo } from "../../adapters/local/sarif-context.js";
import { DEFAULT_LIMITS, isRefusedSource } from "../../core/format/source.js";
import {
  filesUnder,
  FileRefusedError,
  playbookSource,
  readConfined,
  rootFor,
} from "../../adapters/local/safe-files.js";
import { distance } from "fastest-levenshtein";
import { graphOf } from "../../core/format/graph.js";
import { plainLine } from "../../core/util/log-line.js";
import { colours, colourWanted, reportStyle, type Colours } from "./colour.js";
import { listPlaybooks, listTable } from "./list-command.js";
import { RULES, RULE_CODES, isRuleCode } from "../../core/rules/catalogue.js";
import { PLAYBOOK_SCHEMA } from "../../core/format/schema.js";
import { GENERIC_ALERT_SCHEMA } from "../../core/alerts/generic-schema.js";
import {
  countBySeverity,
  loadPlaybookSource,
  validateSet,
  validateSource,
  type FileReport,
  type KnownPlaybook,
  type ValidateOptions,
} from "../../core/rules/validate.js";
import { DIALECTS } from "../../core/dialects/index.js";
import { PLAYBOOK_FOLDERS } from "../../core/dialects/files.js";
import { siblingsOnDisk } from "../../adapters/local/siblings.js";
import { resumeCommand, runCommand, type CommandIo, type RunOptions } from "./run-command.js";
import {
  bundleOf,
  findTarget,
  loadLocalPlaybooks,
  localProblems,
  playbookFileArgument,
} from "./local-playbooks.js";
import { parseScript, ScriptError, simulate } from "./simulate.js";
import { runCase } from "../../adapters/local/playbook-tests.js";
import { traceCommand } from "./trace-command.js";
import { issueTraceCommand, parseIssueRef } from "./issue-trace-command.js";
import type { PlaybookBundle } from "../../core/steps/types.js";

/**
 * Exit codes: 0 valid / done, 1 invalid playbooks (or more warnings than `--max-warnings`), 2 the
 * tool itself failed (bad use, I/O).
 */
export const EXIT = { ok: 0, invalid: 1, failure: 2 } as const;

export const DEFAULT_PATHS = [...PLAYBOOK_FOLDERS];

export interface CliIo extends CommandIo {
  /** What says how to print (`NO_COLOR`, `FORCE_COLOR`, `TERM`); nothing when absent. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Which of standard output and standard error are terminals (colour goes only there). */
  terminal?: { out: boolean; err: boolean };
  /** Standard input, read whole up to `max` bytes and one more (`validate -`). */
  readStdin?: (max: number) => Promise<Uint8Array>;
}

/**
 * The other ways in that the package's one binary also starts (`bin/playbook-bot.js` hands them
 * over, loaded only when asked for): the playground's page and the language server.
 */
export interface OtherEntries {
  playground?: () => Promise<
    (
      opts: { port: number; playbooks?: string },
      io: Pick<CliIo, "out" | "err" | "cwd">,
    ) => Promise<{ close(): Promise<void> }>
  >;
  lsp?: () => Promise<() => void>;
}

/** Standard input up to `max` bytes and one more: enough to say a playbook is too big. */
async function readProcessStdin(max: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > max) break;
  }
  return Buffer.concat(chunks).subarray(0, max + 1);
}

const defaultIo = (): CliIo => ({
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  cwd: process.cwd(),
  interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
  env: process.env,
  terminal: { out: process.stdout.isTTY === true, err: process.stderr.isTTY === true },
  readStdin: readProcessStdin,
});

/** How much of standard input `validate -` reads: past the size limit, so the report says so. */
const STDIN_MAX = 16 * DEFAULT_LIMITS.maxBytes;

class UsageError extends Error {}

/**
 * What validation reads beside a playbook on disk (templates, sidecars), paths from `cwd`. The
 * sidecars are confined as the playbook itself is read: to the working folder, or, for a file
 * outside it, to the file's own folder — never looked up from the working folder.
 */
function onDisk(cwd: string): Pick<ValidateOptions, "fileExists" | "siblings"> {
  return {
    fileExists: (file, rel) => fileExistsNextTo(resolve(cwd, file), rel),
    siblings: (file) => siblingsOnDisk(resolve(cwd, file), rootFor(resolve(cwd, file), cwd)),
  };
}

function version(): string {
  const pkg = JSON.parse(
    readFileSync(new URL("../../../package.json", import.meta.url), "utf8"),
  ) as {
    version: string;
  };
  return pkg.version;
}

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

/** `--issue <n>`: an issue number, 1 or more. */
function issueNumber(value: string): number {
  if (!/^[1-9][0-9]{0,9}$/.test(value))
    throw new UsageError(
      `--issue ${value}: an issue number is a whole number from 1, e.g. --issue 42`,
    );
  return Number(value);
}

/** `playbook-bot simulate`: the issue thread a script of events would produce. */
async function simulateCommand(
  target: string,
  eventsFile: string,
  io: CliIo,
  style: TextStyle,
): Promise<number> {
  const file = resolve(io.cwd, eventsFile);
  if (!existsSync(file)) throw new UsageError(`${eventsFile}: no such file`);
  const explicit = playbookFileArgument(target, io.cwd);
  const set = await loadLocalPlaybooks(io.cwd, explicit);
  const found = findTarget(set, explicit ?? target, io.cwd);
  if (!found.bundle) {
    if (found.report) io.err(formatText([found.report], style));
    else io.err(`playbook-bot: no playbook '${target}'\n`);
    return EXIT.invalid;
  }
  let script;
  try {
    const read = readConfined(file, { root: rootFor(file, io.cwd) });
    if (!read.ok) throw new UsageError(`${eventsFile}: ${read.refusal.message}`);
    script = parseScript(eventsFile, read.bytes.toString("utf8"));
  } catch (err) {
    if (err instanceof ScriptError) throw new UsageError(err.message);
    throw err;
  }
  io.out(await simulate(set.bundles, script, (id) => localProblems(set, id, io.cwd)));
  return EXIT.ok;
}

/** `playbook-bot test`: golden cases of every playbook in the set; 0 all pass, 1 any fails. */
async function testCommand(paths: readonly string[], io: CliIo, c: Colours): Promise<number> {
  const files = await resolvePlaybookFiles(paths, io.cwd);
  const known = await bundledPlaybooks();
  const reports = validateSet(
    files.map((file) => ({
      file: relative(io.cwd, file) || file,
      source: playbookSource(file, { root: rootFor(file, io.cwd) }),
    })),
    {
      ...onDisk(io.cwd),
      known,
    },
  );
  if (countBySeverity(reports).errors > 0) {
    io.out(
      formatText(
        reports.filter((r) => r.diagnostics.some((d) => d.severity === "error")),
        reportStyle(c),
      ),
    );
    return EXIT.invalid;
  }
  const bundles = new Map<string, PlaybookBundle>();
  for (const r of reports) {
    const b = bundleOf({ ...r, file: resolve(io.cwd, r.file) });
    if (b && !bundles.has(b.playbook.id)) bundles.set(b.playbook.id, b);
  }
  for (const r of await loadBundledReports()) {
    const b = bundleOf(r);
    if (b && !bundles.has(b.playbook.id)) bundles.set(b.playbook.id, b);
  }
  let passed = 0;
  let failed = 0;
  let without = 0;
  for (const r of reports) {
    const bundle = r.playbook && bundles.get(r.playbook.id);
    if (!bundle || bundle.playbook !== r.playbook) continue;
    if (!r.playbook?.tests?.length) {
      without++;
      continue;
    }
    for (const tc of r.playbook.tests) {
      const result = await runCase(bundle, (id) => bundles.get(id), tc);
      if (result.ok) {
        passed++;
        io.out(`${c.green("✔")} ${result.playbook}: ${result.name}\n`);
      } else {
        failed++;
        io.out(
          `${c.red("✖")} ${result.playbook}: ${result.name}\n${result.problems.map((p) => `    ${p}`).join("\n")}\n`,
        );
      }
    }
  }
  io.out(
    `${passed} ${passed === 1 ? "case" : "cases"} passed, ${failed} failed${without ? ` (${without} ${without === 1 ? "playbook has" : "playbooks have"} no tests)` : ""}\n`,
  );
  return failed > 0 ? EXIT.invalid : EXIT.ok;
}

interface ValidateFlags {
  format: string;
  config?: string;
  library: boolean;
  quiet: boolean;
  maxWarnings?: number;
  outputFile?: string;
  stdin: boolean;
  stdinFilename?: string;
}

/** A count given to an option: a whole number from 0. */
function count(option: string, value: string): number {
  if (!/^[0-9]{1,9}$/.test(value))
    throw new UsageError(`${option} ${value}: give a whole number from 0, e.g. ${option} 0`);
  return Number(value);
}

/**
 * Why `graph --current <step>` is refused: the file has no such step. The ids nearest it (by
 * edit distance, close enough to be a typo) as "did you mean", then the steps it has.
 */
export function unknownStep(file: string, step: string, steps: readonly string[]): string {
  const typed = step.toLowerCase();
  const allowed = Math.max(1, Math.floor(Math.max(step.length, 3) / 3));
  const near = steps
    .map((id) => ({ id, d: distance(typed, id.toLowerCase()) }))
    .filter((c) => c.d <= allowed)
    .sort((a, b) => a.d - b.d || (a.id < b.id ? -1 : 1))
    .slice(0, 3)
    .map((c) => `'${c.id}'`);
  const guess = near.length
    ? ` — did you mean ${near.length === 1 ? near[0] : `one of ${near.join(", ")}`}?`
    : "";
  const listed = steps.slice(0, 20).join(", ") + (steps.length > 20 ? ", …" : "");
  return plainLine(`${file} has no step '${step}'${guess} (its steps: ${listed})`);
}

/** `--output-file`: the report written to a file, its folder made when missing. */
function writeReport(file: string, text: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  } catch (err) {
    throw new UsageError(`cannot write the report to ${file}: ${(err as Error).message}`);
  }
}

export async function main(
  argv: readonly string[],
  io: CliIo = defaultIo(),
  entries: OtherEntries = {},
): Promise<number> {
  let code: number = EXIT.ok;
  const program = new Command()
    .name("playbook-bot")
    .description("Validate, draw and run Playbook Bot playbooks.")
    .version(version())
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .option("--color", "colour the output (default: on a terminal, unless NO_COLOR is set)")
    .option("--no-color", "do not colour the output");

  const env = io.env ?? {};
  const flags = () => program.opts<{ color?: boolean }>();
  /** Colours for standard output or standard error, as the flag, environment and terminal say. */
  const coloursFor = (stream: "out" | "err"): Colours =>
    colours(colourWanted(io.terminal?.[stream] === true, env, flags().color));
  const textStyle = (stream: "out" | "err"): TextStyle => reportStyle(coloursFor(stream));

  /** `validate -`: one playbook from standard input, named as `--stdin-filename` says. */
  const validateStdin = async (
    name: string | undefined,
    library: KnownPlaybook[],
    check: Parameters<typeof validateSource>[2],
  ): Promise<FileReport[]> => {
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
  };

  program
    .command("validate")
    .description("validate playbooks (default: .github/playbooks and playbooks)")
    .argument("[paths...]", "files, folders or globs; - reads one playbook from standard input")
    .addOption(
      new Option("-f, --format <format>", "output format")
        .choices(["text", "json", "github", "sarif"])
        .default("text"),
    )
    .option("-c, --config <file>", "config file (default: .playbook-bot.yml in the current folder)")
    .option("--no-library", "do not resolve targets against the bundled library")
    .option("-q, --quiet", "report errors only", false)
    .option("--max-warnings <n>", "exit 1 when there are more than n warnings", (value: string) =>
      count("--max-warnings", value),
    )
    .option("-o, --output-file <file>", "write the report to this file instead of standard output")
    .option("--stdin", "read one playbook from standard input (as the path -)", false)
    .option(
      "--stdin-filename <path>",
      "the path standard input stands for: what diagnostics name, where its files are found",
    )
    .addHelpText(
      "after",
      "\nExit codes: 0 valid (warnings allowed), 1 invalid or more warnings than --max-warnings,\n2 the tool itself failed (bad arguments, a missing path, a bad config, an unwritable report).",
    )
    .action(async (paths: string[], opts: ValidateFlags) => {
      const config = loadConfig(io.cwd, opts.config ? resolve(io.cwd, opts.config) : undefined);
      const known = opts.library ? await bundledPlaybooks() : [];
      const check = {
        ...onDisk(io.cwd),
        rules: config.rules,
      };
      const stdin = opts.stdin || paths.includes("-");
      if (!stdin && opts.stdinFilename !== undefined)
        throw new UsageError(
          "--stdin-filename names what standard input holds: use it with - or --stdin",
        );
      let reports: FileReport[];
      if (stdin) {
        if (paths.some((p) => p !== "-"))
          throw new UsageError("validate reads standard input or files, not both");
        reports = await validateStdin(opts.stdinFilename, known, check);
      } else {
        const files = await resolvePlaybookFiles(paths, io.cwd);
        // Playbooks in the set win over bundled ones with the same id, as in discovery.
        reports = validateSet(
          files.map((file) => ({
            file: relative(io.cwd, file) || file,
            source: playbookSource(file, { root: rootFor(file, io.cwd) }),
          })),
          { ...check, known },
        );
      }
      const { errors, warnings } = countBySeverity(reports);
      // --quiet shows errors only; --max-warnings still counts the warnings it hides.
      const shown = opts.quiet
        ? reports.map((r) => ({
            ...r,
            diagnostics: r.diagnostics.filter((d) => d.severity === "error"),
          }))
        : reports;
      const toFile = opts.outputFile !== undefined;
      const style = toFile
        ? reportStyle(colours(colourWanted(false, env, flags().color)))
        : textStyle("out");
      const formatted =
        opts.format === "json"
          ? formatJson(shown)
          : opts.format === "github"
            ? formatGithub(shown)
            : opts.format === "sarif"
              ? formatSarif(shown, {
                  ...toolInfo(),
                  // Paths from the repository root, wherever in it the command runs.
                  root: sarifRoot(findRepositoryRoot(io.cwd, process.env).dir, io.cwd),
                })
              : opts.quiet && errors === 0
                ? ""
                : formatText(shown, style);
      if (opts.outputFile !== undefined) writeReport(resolve(io.cwd, opts.outputFile), formatted);
      else io.out(formatted);
      code = errors > 0 ? EXIT.invalid : EXIT.ok;
      if (opts.maxWarnings !== undefined && warnings > opts.maxWarnings) {
        io.err(
          `playbook-bot: ${warnings} ${warnings === 1 ? "warning" : "warnings"}${opts.quiet ? " (not shown: --quiet)" : ""}, more than --max-warnings ${opts.maxWarnings} allows\n`,
        );
        code = EXIT.invalid;
      }
    });

  program
    .command("list")
    .description(
      "list the playbooks found, with their tier and status (default: .github/playbooks and playbooks, then the bundled library)",
    )
    .argument("[paths...]", "files, folders or globs")
    .addOption(
      new Option("-f, --format <format>", "output format")
        .choices(["table", "json"])
        .default("table"),
    )
    .option("-c, --config <file>", "config file (default: .playbook-bot.yml in the current folder)")
    .option("--no-library", "leave out the bundled library")
    .action(
      async (
        paths: string[],
        opts: { format: "table" | "json"; config?: string; library: boolean },
      ) => {
        const config = loadConfig(io.cwd, opts.config ? resolve(io.cwd, opts.config) : undefined);
        // Named paths must exist; the default folders are looked in when they do.
        const files =
          paths.length > 0 || DEFAULT_PATHS.some((p) => existsSync(resolve(io.cwd, p)))
            ? await resolvePlaybookFiles(paths, io.cwd).catch((err: unknown) => {
                if (paths.length === 0 && err instanceof UsageError) return [];
                throw err;
              })
            : [];
        const library = opts.library ? await loadBundledReports() : [];
        const reports = validateSet(
          files.map((file) => ({
            file,
            source: playbookSource(file, { root: rootFor(file, io.cwd) }),
          })),
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
            : listTable(rows, coloursFor("out")),
        );
      },
    );

  program
    .command("run")
    .description("run a playbook locally (by id, on.command or file)")
    .argument("<playbook>", "playbook id or file")
    .argument("[inputs...]", "inputs as key=value")
    .addOption(
      new Option("--mode <mode>", "manual waits for ENTER at checkpoints; autonomous approves")
        .choices(["manual", "autonomous"])
        .default("manual"),
    )
    .option("--dry-run", "perform nothing; print every effect", false)
    .option("--repo <dir>", "git work tree to act on (default: the current folder)")
    .option("--scratch", "run in a new scratch git repository", false)
    .option("--issue <n>", "the GitHub issue the run is for (issue.number)", issueNumber)
    .option("--alert <file>", "the alert the run triages (YAML or JSON, as a test's alert:)")
    .option(
      "--allow-scripts",
      "run the playbook's script steps (bash, sh, powershell, node)",
      false,
    )
    .action(
      async (
        target: string,
        inputs: string[],
        opts: {
          mode: "manual" | "autonomous";
          dryRun: boolean;
          repo?: string;
          scratch: boolean;
          issue?: number;
          alert?: string;
          allowScripts: boolean;
        },
      ) => {
        const runOpts: RunOptions = { mode: opts.mode, dryRun: opts.dryRun, scratch: opts.scratch };
        if (opts.repo) runOpts.repo = opts.repo;
        if (opts.issue !== undefined) runOpts.issue = opts.issue;
        if (opts.alert !== undefined) runOpts.alert = opts.alert;
        if (opts.allowScripts) runOpts.allowScripts = true;
        code = await runCommand(target, inputs, runOpts, io);
      },
    );

  program
    .command("resume")
    .description("continue an interrupted or paused local run")
    .argument("<runId>", "run id (see .playbook-runs/)")
    .addOption(
      new Option("--mode <mode>", "override the run's mode").choices(["manual", "autonomous"]),
    )
    .option("--repo <dir>", "git work tree of the run (default: the current folder)")
    .option("--allow-scripts", "run the playbook's script steps", false)
    .action(
      async (
        runId: string,
        opts: { mode?: "manual" | "autonomous"; repo?: string; allowScripts: boolean },
      ) => {
        const o: { mode?: "manual" | "autonomous"; repo?: string; allowScripts?: boolean } = {};
        if (opts.mode) o.mode = opts.mode;
        if (opts.repo) o.repo = opts.repo;
        if (opts.allowScripts) o.allowScripts = true;
        code = await resumeCommand(runId, o, io);
      },
    );

  program
    .command("trace")
    .description(
      "export a trace as JSON or OTLP/JSON: a local run's (every act of it), or an issue's (owner/repo#n: its runs and work by hand, read with GITHUB_TOKEN)",
    )
    .argument("<run>", "run id (see .playbook-runs/), the run's state file, or owner/repo#n")
    .addOption(
      new Option("-f, --format <format>", "output format")
        .choices(["json", "otlp"])
        .default("json"),
    )
    .option("-o, --output <file>", "write the trace to this file instead of standard output")
    .option("--repo <dir>", "git work tree of the run (default: the current folder)")
    .option(
      "--installation <id>",
      "owner/repo#n: the app's installation id, with STATE_SECRET, to check the state seals (0, the default, for the Actions runtime)",
    )
    .action(
      async (
        run: string,
        opts: { format: "json" | "otlp"; output?: string; repo?: string; installation?: string },
      ) => {
        const issue = parseIssueRef(run);
        if (issue) {
          const installation = Number(opts.installation ?? 0);
          if (!Number.isSafeInteger(installation) || installation < 0) {
            io.err("playbook-bot: --installation takes a number, the app's installation id\n");
            code = 1;
            return;
          }
          code = await issueTraceCommand(
            issue,
            {
              format: opts.format,
              installation,
              version: version(),
              ...(opts.output ? { output: opts.output } : {}),
            },
            io,
            process.env,
          );
          return;
        }
        code = await traceCommand(run, { ...opts, version: version() }, io);
      },
    );

  program
    .command("test")
    .description("run the golden cases (tests:) of playbooks, every effect simulated")
    .argument("[paths...]", "files, folders or globs (default: .github/playbooks and playbooks)")
    .action(async (paths: string[]) => {
      code = await testCommand(paths, io, coloursFor("out"));
    });

  program
    .command("simulate")
    .description(
      "replay scripted events (labels, comments, merges) against an in-memory GitHub and print the thread",
    )
    .argument("<playbook>", "playbook id or file (the run starts from the script's label or /run)")
    .requiredOption("-e, --events <file>", "events file (YAML)")
    .action(async (target: string, opts: { events: string }) => {
      code = await simulateCommand(target, opts.events, io, textStyle("err"));
    });

  program
    .command("playground")
    .description(
      "start a local sandbox — an in-memory GitHub with the app — and a web page to edit playbooks and act in issues",
    )
    .option("-p, --port <port>", "port of the page (0: any free one)", "3000")
    .option(
      "--playbooks <dir>",
      "folder whose playbooks the sandbox repository holds (default: .github/playbooks)",
    )
    .action(async (opts: { port: string; playbooks?: string }) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new UsageError(`--port ${opts.port}: a port number from 0 to 65535`);
      if (!entries.playground) throw new UsageError("this build has no playground");
      const startPlayground = await entries.playground();
      const playground = await startPlayground(
        { port, ...(opts.playbooks !== undefined ? { playbooks: opts.playbooks } : {}) },
        io,
      );
      // Runs until interrupted.
      await new Promise<void>((done) => {
        const stop = () => void playground.close().then(done, done);
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
    });

  program
    .command("graph")
    .description("print a playbook as a Mermaid flowchart")
    .argument("<file>", "playbook file")
    .option("--current <step>", "mark this step as current")
    .action((file: string, opts: { current?: string }) => {
      const abs = resolve(io.cwd, file);
      if (!existsSync(abs)) throw new UsageError(`${file}: no such file`);
      const report = validateSource(
        file,
        playbookSource(abs, { root: rootFor(abs, io.cwd) }),
        onDisk(io.cwd),
      );
      if (!report.playbook) {
        io.err(formatText([report], textStyle("err")));
        code = EXIT.invalid;
        return;
      }
      const steps = [...graphOf(report.playbook).byId.keys()];
      if (opts.current !== undefined && !steps.includes(opts.current)) {
        io.err(`playbook-bot: ${unknownStep(file, opts.current, steps)}\n`);
        code = EXIT.invalid;
        return;
      }
      io.out(renderMermaid(report.playbook, opts.current ? { current: opts.current } : {}));
    });

  program
    .command("import")
    .description(
      "print the v1 YAML of another system's playbook (Triagent, runbook, Mindscape, Catalyst)",
    )
    .argument("<file>", "the other system's playbook file (its sidecars are read from beside it)")
    .action((file: string) => {
      const abs = resolve(io.cwd, file);
      if (!existsSync(abs)) throw new UsageError(`${file}: no such file`);
      const siblings = siblingsOnDisk(abs, rootFor(abs, io.cwd));
      const source = playbookSource(abs, { root: rootFor(abs, io.cwd) });
      const report = validateSource(file, source, onDisk(io.cwd));
      if (isRefusedSource(source)) {
        io.err(formatText([report], textStyle("err")));
        code = EXIT.invalid;
        return;
      }
      if (!report.dialect) {
        io.err(
          `playbook-bot: ${file} is not a playbook of another system this reads (${DIALECTS.map((d) => d.title).join(", ")}); a v1 playbook needs no import\n`,
        );
        code = EXIT.invalid;
        return;
      }
      const errors = report.diagnostics.filter((d) => d.severity === "error");
      const loaded = loadPlaybookSource(file, source, undefined, siblings);
      if (errors.length > 0 || !loaded.ok) {
        io.err(formatText([report], textStyle("err")));
        io.err(`playbook-bot: ${file} does not convert as it is; nothing was written\n`);
        code = EXIT.invalid;
        return;
      }
      const title = DIALECTS.find((d) => d.id === report.dialect)?.title ?? report.dialect;
      io.out(`# Converted from ${file} (${title}) by playbook-bot import.\n`);
      io.out(dumpYaml(loaded.document.value, { lineWidth: 100, noRefs: true }));
      if (report.diagnostics.length) io.err(formatText([report], textStyle("err")));
    });

  program
    .command("schema")
    .description("print the playbook JSON Schema (draft-07)")
    .option("--generic-alert", "print the generic alert format's schema instead")
    .action((opts: { genericAlert?: boolean }) =>
      io.out(
        JSON.stringify(opts.genericAlert ? GENERIC_ALERT_SCHEMA : PLAYBOOK_SCHEMA, null, 2) + "\n",
      ),
    );

  program
    .command("lsp")
    .description(
      "run the language server for editors: the validator's diagnostics, completion, hover and go to definition",
    )
    .option("--stdio", "talk over standard input and output (the default and only transport)")
    .action(async () => {
      // Loaded only here: the other commands start without the protocol library.
      if (!entries.lsp) throw new UsageError("this build has no language server");
      (await entries.lsp())();
    });

  program
    .command("rules")
    .description("list the validation rules and their default severity, or explain one")
    .argument("[code]", "a rule code: what it checks, why, how to fix it, an example")
    .option("--markdown", "print every rule's documentation as Markdown (docs/rules.md)")
    .action((code: string | undefined, opts: { markdown?: boolean }) => {
      if (opts.markdown) return io.out(rulesMarkdown());
      if (code !== undefined) {
        if (!isRuleCode(code)) {
          const near = didYouMean(code, RULE_CODES);
          throw new UsageError(
            `no rule '${code}'${near ? ` — did you mean '${near}'?` : ""} (playbook-bot rules lists them)`,
          );
        }
        const { repositoryUrl } = toolInfo();
        return io.out(ruleHelpText(code, repositoryUrl && ruleUrl(repositoryUrl, code)));
      }
      const width = Math.max(...RULE_CODES.map((c) => c.length));
      for (const c of RULE_CODES)
        io.out(
          `${c.padEnd(width)}  ${RULES[c].severity.padEnd(7)}  ${RULES[c].layer.padEnd(9)}  ${RULES[c].summary}\n`,
        );
    });

  try {
    await program.parseAsync([...argv], { from: "user" });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) {
      return err.exitCode === 0 ? EXIT.ok : EXIT.failure;
    }
    if (
      err instanceof UsageError ||
      err instanceof ConfigError ||
      err instanceof FileRefusedError
    ) {
      io.err(`playbook-bot: ${err.message}\n`);
      return EXIT.failure;
    }
    io.err(
      `playbook-bot: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    return EXIT.failure;
  }
}
