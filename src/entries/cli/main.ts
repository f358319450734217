import { Command, CommanderError, Option } from "commander";
import {
  count,
  defaultIo,
  EXIT,
  exitCodesHelp,
  issueNumber,
  packageVersion,
  UsageError,
  type CliContext,
  type CliIo,
} from "./cli-io.js";
import type { RunOptions } from "./run-command.js";

// Each command's module is imported when that command runs, so `--help`, `--version` and
// `validate` start without the app, AI, tools, Redis or the language server.

export { EXIT, type CliIo } from "./cli-io.js";

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

type Program = { program: Command; ctx: CliContext; done: (code: number) => void };

const formatOption = (choices: string[], fallback: string) =>
  new Option("-f, --format <format>", "output format").choices(choices).default(fallback);

function validateCommandOf({ program, ctx, done }: Program): void {
  program
    .command("validate")
    .description("validate playbooks (default: .github/playbooks and playbooks)")
    .argument("[paths...]", "files, folders or globs; - reads one playbook from standard input")
    .addOption(formatOption(["text", "json", "github", "sarif"], "text"))
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
    .action(async (paths: string[], opts: import("./commands/validate.js").ValidateFlags) => {
      done(await (await import("./commands/validate.js")).validateCommand(ctx, paths, opts));
    });
}

function listCommandOf({ program, ctx, done }: Program): void {
  program
    .command("list")
    .description(
      "list the playbooks found, with their tier and status (default: .github/playbooks and playbooks, then the bundled library)",
    )
    .argument("[paths...]", "files, folders or globs")
    .addOption(formatOption(["table", "json"], "table"))
    .option("-c, --config <file>", "config file (default: .playbook-bot.yml in the current folder)")
    .option("--no-library", "leave out the bundled library")
    .action(async (paths: string[], opts: import("./commands/list.js").ListFlags) => {
      done(await (await import("./commands/list.js")).listCommand(ctx, paths, opts));
    });
}

interface RunFlags {
  mode: "manual" | "autonomous";
  dryRun: boolean;
  repo?: string;
  scratch: boolean;
  issue?: number;
  alert?: string;
  allowScripts: boolean;
}

function runCommandOf({ program, ctx, done }: Program): void {
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
    .action(async (target: string, inputs: string[], opts: RunFlags) => {
      const runOpts: RunOptions = { mode: opts.mode, dryRun: opts.dryRun, scratch: opts.scratch };
      if (opts.repo) runOpts.repo = opts.repo;
      if (opts.issue !== undefined) runOpts.issue = opts.issue;
      if (opts.alert !== undefined) runOpts.alert = opts.alert;
      if (opts.allowScripts) runOpts.allowScripts = true;
      const { runCommand } = await import("./run-command.js");
      done(await runCommand(target, inputs, runOpts, ctx.io));
    });
}

type ResumeFlags = { mode?: "manual" | "autonomous"; repo?: string; allowScripts: boolean };

function resumeCommandOf({ program, ctx, done }: Program): void {
  program
    .command("resume")
    .description("continue an interrupted or paused local run")
    .argument("<runId>", "run id (see .playbook-runs/)")
    .addOption(
      new Option("--mode <mode>", "override the run's mode").choices(["manual", "autonomous"]),
    )
    .option("--repo <dir>", "git work tree of the run (default: the current folder)")
    .option("--allow-scripts", "run the playbook's script steps", false)
    .action(async (runId: string, opts: ResumeFlags) => {
      const o: { mode?: "manual" | "autonomous"; repo?: string; allowScripts?: boolean } = {};
      if (opts.mode) o.mode = opts.mode;
      if (opts.repo) o.repo = opts.repo;
      if (opts.allowScripts) o.allowScripts = true;
      const { resumeCommand } = await import("./run-command.js");
      done(await resumeCommand(runId, o, ctx.io));
    });
}

function traceCommandOf({ program, ctx, done }: Program): void {
  program
    .command("trace")
    .description(
      "export a trace as JSON or OTLP/JSON: a local run's (every act of it), or an issue's (owner/repo#n: its runs and work by hand, read with GITHUB_TOKEN)",
    )
    .argument("<run>", "run id (see .playbook-runs/), the run's state file, or owner/repo#n")
    .addOption(formatOption(["json", "otlp"], "json"))
    .option("-o, --output <file>", "write the trace to this file instead of standard output")
    .option("--repo <dir>", "git work tree of the run (default: the current folder)")
    .option(
      "--installation <id>",
      "owner/repo#n: the app's installation id, with STATE_SECRET, to check the state seals (0, the default, for the Actions runtime)",
    )
    .action(async (run: string, opts: import("./commands/trace.js").TraceFlags) => {
      done(await (await import("./commands/trace.js")).traceAny(ctx, run, opts));
    });
}

function testCommandOf({ program, ctx, done }: Program): void {
  program
    .command("test")
    .description("run the golden cases (tests:) of playbooks, every effect simulated")
    .argument("[paths...]", "files, folders or globs (default: .github/playbooks and playbooks)")
    .addOption(formatOption(["text", "json", "junit"], "text"))
    .option("-o, --output-file <file>", "write the results to this file instead of standard output")
    .action(async (paths: string[], opts: import("./commands/test.js").TestFlags) => {
      done(await (await import("./commands/test.js")).testCommand(ctx, paths, opts));
    });
}

function simulateCommandOf({ program, ctx, done }: Program): void {
  program
    .command("simulate")
    .description(
      "replay scripted events (labels, comments, merges) against an in-memory GitHub and print the thread",
    )
    .argument("<playbook>", "playbook id or file (the run starts from the script's label or /run)")
    .requiredOption("-e, --events <file>", "events file (YAML) — required")
    .action(async (target: string, opts: { events: string }) => {
      const { simulateCommand } = await import("./commands/simulate.js");
      done(await simulateCommand(ctx, target, opts.events));
    });
}

function playgroundCommandOf({ program, ctx }: Program, entries: OtherEntries): void {
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
        ctx.io,
      );
      // Runs until interrupted.
      await new Promise<void>((stopped) => {
        const stop = () => void playground.close().then(stopped, stopped);
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
    });
}

function graphCommandOf({ program, ctx, done }: Program): void {
  program
    .command("graph")
    .description("print a playbook as a Mermaid flowchart")
    .argument("<playbook>", "playbook file, or an id (or on.command) as run takes it")
    .option("--current <step>", "mark this step as current")
    .action(async (target: string, opts: { current?: string }) => {
      done(await (await import("./commands/graph.js")).graphCommand(ctx, target, opts));
    });
}

function importCommandOf({ program, ctx, done }: Program): void {
  program
    .command("import")
    .description(
      "print the v1 YAML of another system's playbook (Triagent, runbook, Mindscape, Catalyst)",
    )
    .argument("<file>", "the other system's playbook file (its sidecars are read from beside it)")
    .action(async (file: string) => {
      done((await import("./commands/import.js")).importCommand(ctx, file));
    });
}

function referenceCommandsOf({ program, ctx, done }: Program, entries: OtherEntries): void {
  program
    .command("schema")
    .description("print the playbook JSON Schema (draft-07)")
    .option("--generic-alert", "print the generic alert format's schema instead")
    .action(async (opts: { genericAlert?: boolean }) => {
      done((await import("./commands/reference.js")).schemaCommand(ctx, opts));
    });
  program
    .command("lsp")
    .description(
      "run the language server for editors: the validator's diagnostics, completion, hover and go to definition",
    )
    .option("--stdio", "talk over standard input and output (the default and only transport)")
    .action(async () => {
      if (!entries.lsp) throw new UsageError("this build has no language server");
      (await entries.lsp())();
    });
  program
    .command("rules")
    .description("list the validation rules and their default severity, or explain one")
    .argument("[code]", "a rule code: what it checks, why, how to fix it, an example")
    .option("--markdown", "print every rule's documentation as Markdown (docs/rules.md)")
    .action(async (code: string | undefined, opts: { markdown?: boolean }) => {
      done((await import("./commands/reference.js")).rulesCommand(ctx, code, opts));
    });
}

/** The program and its commands; `done` records the exit code a command's action returns. */
function programOf(io: CliIo, entries: OtherEntries, done: (code: number) => void): Command {
  const program = new Command()
    .name("playbook-bot")
    .description("Validate, draw and run Playbook Bot playbooks.")
    .version(packageVersion())
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .option("--color", "colour the output (default: on a terminal, unless NO_COLOR is set)")
    .option("--no-color", "do not colour the output");
  const ctx: CliContext = {
    io,
    env: io.env ?? {},
    colourFlag: () => program.opts<{ color?: boolean }>().color,
  };
  const p: Program = { program, ctx, done };
  for (const add of [
    validateCommandOf,
    listCommandOf,
    runCommandOf,
    resumeCommandOf,
    traceCommandOf,
    testCommandOf,
    simulateCommandOf,
    graphCommandOf,
    importCommandOf,
  ])
    add(p);
  playgroundCommandOf(p, entries);
  referenceCommandsOf(p, entries);
  program.addHelpText("after", exitCodesHelp(""));
  for (const command of program.commands)
    command.addHelpText("after", exitCodesHelp(command.name()));
  return program;
}

/** An error the person can act on (a bad argument, file or config): one line, exit code 2. */
async function isUsageError(err: unknown): Promise<boolean> {
  if (err instanceof UsageError) return true;
  if (!(err instanceof Error)) return false;
  // Loaded only on this path: the modules that throw them were loaded already.
  const [{ ConfigError }, { FileRefusedError }] = await Promise.all([
    import("../../adapters/local/rule-config.js"),
    import("../../adapters/local/safe-files.js"),
  ]);
  return err instanceof ConfigError || err instanceof FileRefusedError;
}

export async function main(
  argv: readonly string[],
  io: CliIo = defaultIo(),
  entries: OtherEntries = {},
): Promise<number> {
  let code: number = EXIT.ok;
  const program = programOf(io, entries, (c) => (code = c));
  try {
    await program.parseAsync([...argv], { from: "user" });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT.ok : EXIT.failure;
    if (await isUsageError(err)) {
      io.err(`playbook-bot: ${(err as Error).message}\n`);
      return EXIT.failure;
    }
    io.err(
      `playbook-bot: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    return EXIT.failure;
  }
}
