import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import type { AiAdapter } from "../../runtime/ai.js";
import { AiConfigError, aiAdapterFromEnv } from "../../adapters/ai/config.js";
import { aiConsole } from "./ai-output.js";
import { beginRun } from "../../runtime/run-service/driver.js";
import { describeUnmet, unmetRequirements } from "../../core/engine/requirements.js";
import { localHost } from "../../runtime/host.js";
import { toolRunnerOf } from "../../runtime/tools.js";
import { LOCAL_GITHUB_TOOLS, localRepositoryTools } from "../../adapters/tools/local-repository.js";
import {
  loadDeploymentTools,
  ToolsConfigError,
  type DeploymentTools,
} from "../../adapters/tools/registry.js";
import { tokenChars } from "../../core/engine/state.js";
import { argsOfWords, collectInputs } from "../../core/engine/inputs.js";
import type { Effect } from "../../core/engine/events.js";
import { LocalEffects } from "../../adapters/local/effects.js";
import type { OctokitPort } from "../../adapters/github/octokit-port.js";
import { localGitHub } from "./github-remote.js";
import { formatText } from "../../core/format/report/text.js";
import { FileRunStore, StateError, type LocalRunRecord } from "../../adapters/local/file-store.js";
import { FileTraceLog } from "../../adapters/local/trace-file.js";
import {
  delegateClosure,
  disabledBy,
  findTarget,
  playbookFileArgument,
  loadLocalPlaybooks,
  localProblems,
  loadPinned,
  pinBundles,
} from "./local-playbooks.js";
import {
  LocalContextError,
  localRunContext,
  missingLocalContext,
  readAlertFile,
  type LocalAlert,
} from "./local-context.js";
import { RUN_EXIT, Runner, type RunnerDeps, type RunnerIo } from "./runner.js";
import { terminalLines } from "../../core/util/log-line.js";

export interface RunOptions {
  mode: "manual" | "autonomous";
  dryRun: boolean;
  repo?: string;
  scratch?: boolean;
  /** `--issue <n>`: the GitHub issue the run is for (`issue.number` in templates). */
  issue?: number;
  /** `--alert <file>`: the alert the run triages (`alert.*`, and inputs `from: labels.*`). */
  alert?: string;
  /** `--allow-scripts`: `script` steps run (otherwise they are refused). */
  allowScripts?: boolean;
}

export interface CommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
  cwd: string;
  /** Whether a person can answer questions (stdin and stdout are terminals). */
  interactive?: boolean;
  ask?: (question: string) => Promise<string | null>;
  clock?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** What makes a new run's id unique (random characters; tests fix them). */
  runToken?: () => string;
}

/** Six random characters: runs started in one minute (in any clone) get different ids. */
export function randomRunToken(): string {
  return tokenChars(randomBytes(6), 6);
}

/** A throwaway git repository with one commit: where the README's first command runs (its main job). */
export function makeScratchRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), "playbook-bot-scratch-"));
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  writeFileSync(
    join(dir, "README.md"),
    "# Scratch repository\n\nMade by `playbook-bot run --scratch`.\n",
  );
  git("add", "README.md");
  execFileSync(
    "git",
    [
      "-c",
      "user.name=playbook-bot",
      "-c",
      "user.email=playbook-bot@localhost",
      "commit",
      "-q",
      "-m",
      "Initial commit",
    ],
    { cwd: dir, stdio: "ignore" },
  );
  return dir;
}

function terminalAsk(io: CommandIo): (q: string) => Promise<string | null> {
  if (io.ask) return io.ask;
  if (!io.interactive) return async () => null;
  return async (q) => {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    try {
      return await rl.question(q);
    } finally {
      rl.close();
    }
  };
}

function runnerIo(io: CommandIo): RunnerIo {
  const clock = io.clock ?? (() => new Date());
  const r: RunnerIo = {
    // Lines carry values (a comment's body, an issue's title): no terminal sequence, no workflow command.
    log: (line) => io.out(`[${clock().toISOString().slice(11, 19)}] ${terminalLines(line)}\n`),
    out: io.out,
    ask: terminalAsk(io),
  };
  if (io.interactive) {
    r.progress = (line) => process.stdout.write(line === null ? "\r\x1b[K" : `\r⠿ ${line}`);
  }
  return r;
}

/** `PLAYBOOK_BOT_FAULT=crash-after-effect:<kind>`: die right after an effect, before its result is saved. */
function faultHook(): ((effect: Effect) => void) | undefined {
  const spec = process.env.PLAYBOOK_BOT_FAULT;
  const m = spec ? /^crash-after-effect:([a-z_]+)$/.exec(spec) : null;
  if (!m) return undefined;
  return (effect) => {
    if (effect.kind === m[1]) process.kill(process.pid, "SIGKILL");
  };
}

function operator(): string {
  try {
    return userInfo().username || "operator";
  } catch {
    return "operator";
  }
}

/** `playbook-bot run <playbook> [k=v …]` */
export async function runCommand(
  target: string,
  args: string[],
  opts: RunOptions,
  io: CommandIo,
): Promise<number> {
  // Each argument is one input, whole: the shell already split and unquoted them.
  const inputArgs = argsOfWords(args);
  if (inputArgs.positional.length > 0) {
    io.err(
      `playbook-bot: '${inputArgs.positional[0]}' is not an input: write key=value (quote a value with spaces: 'title=My Feature')\n`,
    );
    return RUN_EXIT.invalid;
  }
  let alert: LocalAlert | undefined;
  try {
    if (opts.alert !== undefined) alert = readAlertFile(io.cwd, opts.alert);
  } catch (err) {
    if (!(err instanceof LocalContextError)) throw err;
    io.err(`playbook-bot: ${err.message}\n`);
    return RUN_EXIT.invalid;
  }
  const repo = opts.scratch ? makeScratchRepo() : resolve(io.cwd, opts.repo ?? ".");
  if (opts.scratch) io.out(`Scratch repository: ${repo}\n`);
  const explicit = playbookFileArgument(target, io.cwd);
  const set = await loadLocalPlaybooks(repo, explicit);
  const found = findTarget(set, explicit ?? target, repo);
  if (!found.bundle) {
    if (found.report) {
      io.err(formatText([found.report]));
      return RUN_EXIT.invalid;
    }
    const disabled = disabledBy(set, explicit ?? target, repo);
    if (disabled) {
      io.err(`playbook-bot: playbook '${target}' is disabled (active: false in ${disabled})\n`);
      return RUN_EXIT.invalid;
    }
    io.err(
      `playbook-bot: no playbook '${target}' (looked in ${join(repo, ".github/playbooks")} and the bundled library; ids: ${[...set.bundles.keys()].join(", ")})\n`,
    );
    return RUN_EXIT.invalid;
  }
  const bundle = found.bundle;
  let tools: DeploymentTools;
  try {
    tools = loadDeploymentTools(process.env);
  } catch (err) {
    if (!(err instanceof ToolsConfigError)) throw err;
    io.err(`playbook-bot: ${err.message}\n`);
    return RUN_EXIT.invalid;
  }
  // The AI adapter (PLAYBOOK_AI_PROVIDER, …): a bad configuration stops the run before it starts.
  let ai: AiAdapter;
  try {
    ai = aiAdapterFromEnv(process.env);
  } catch (err) {
    if (!(err instanceof AiConfigError)) throw err;
    io.err(`playbook-bot: ${err.message}\n`);
    return RUN_EXIT.invalid;
  }
  // The GitHub tools need GitHub: locally, a token and a GitHub origin.
  const github = opts.dryRun ? undefined : await localGitHub(repo, process.env);
  const host = localHost(
    process.env,
    (name) =>
      tools.has(name) &&
      (github !== undefined || LOCAL_GITHUB_TOOLS.includes(name) || !name.startsWith("github/")),
  );
  const unmet = unmetRequirements(bundle, (id) => set.bundles.get(id), host);
  if (unmet.length > 0) {
    io.err(
      `playbook-bot: ${bundle.playbook.id} cannot start here (PB-REQUIREMENT-MISSING); nothing was run:\n${describeUnmet(
        unmet,
        host,
      )
        .map((line) => `  - ${line}`)
        .join("\n")}\n`,
    );
    return RUN_EXIT.invalid;
  }
  const local = localRunContext({
    repo,
    ...(opts.issue !== undefined ? { issue: opts.issue } : {}),
    ...(alert ? { alert } : {}),
  });
  const raw = collectInputs(bundle.playbook.inputs, { args: inputArgs.values, ...local.sources });
  const clock = io.clock ?? (() => new Date());
  const store = new FileRunStore(join(repo, ".playbook-runs"));
  const started = beginRun(
    {
      bundle,
      inputs: raw,
      initiator: { login: "local-cli", permission: "admin" },
      eventId: `cli-start-${clock().getTime()}`,
      runToken: (io.runToken ?? randomRunToken)(),
      context: local.context,
    },
    { now: clock(), playbooks: (id) => set.bundles.get(id) },
  );
  if (!started.ok) {
    io.err(
      `playbook-bot: ${bundle.playbook.id}: invalid inputs\n${started.problems.map((p) => `  - ${p.message}`).join("\n")}\n`,
    );
    return RUN_EXIT.invalid;
  }
  const ids = delegateClosure(bundle.playbook.id, set.bundles);
  // Before any step runs: a template naming what a local run lacks would stop it half-way.
  const missing = missingLocalContext(
    started.result.run,
    ids.flatMap((id) => set.bundles.get(id) ?? []),
    io.cwd,
  );
  if (missing.length > 0) {
    io.err(formatText(missing));
    io.err(
      `playbook-bot: ${bundle.playbook.id} uses values a local run does not have; nothing was run (see the hints above)\n`,
    );
    return RUN_EXIT.invalid;
  }
  let playbooks: LocalRunRecord["playbooks"];
  try {
    playbooks = pinBundles(store, ids, set.bundles);
  } catch (err) {
    return stateErrorExit(io, err);
  }
  const record: LocalRunRecord = {
    run: started.result.run,
    mode: opts.mode,
    dryRun: opts.dryRun,
    repo,
    playbooks,
  };
  const runner = makeRunner(
    record,
    store,
    new Map(
      ids.map((id) => [id, set.bundles.get(id) as NonNullable<ReturnType<typeof set.bundles.get>>]),
    ),
    io,
    github,
    opts.allowScripts === true,
    tools,
    ai,
    (id) => localProblems(set, id, io.cwd),
  );
  io.out(
    `Run ${record.run.id}: ${bundle.playbook.name ?? bundle.playbook.id} (${opts.mode}${opts.dryRun ? ", dry run" : ""})\n`,
  );
  return runner.start(started.result).catch((err: unknown) => stateErrorExit(io, err));
}

/** A run store that cannot be read or written stops the command with its way out. */
function stateErrorExit(io: CommandIo, err: unknown): number {
  if (!(err instanceof StateError)) throw err;
  io.err(`playbook-bot: ${err.message}\n  how to recover: ${err.hint}\n`);
  return RUN_EXIT.state;
}

function makeRunner(
  record: LocalRunRecord,
  store: FileRunStore,
  bundles: Map<string, import("../../core/steps/types.js").PlaybookBundle>,
  io: CommandIo,
  github?: OctokitPort,
  allowScripts = false,
  tools?: DeploymentTools,
  ai: AiAdapter = aiAdapterFromEnv(process.env),
  invalidPlaybook?: RunnerDeps["invalidPlaybook"],
): Runner {
  const rio = runnerIo(io);
  const options: ConstructorParameters<typeof LocalEffects>[0] = {
    repo: record.repo,
    dryRun: record.dryRun,
    ai,
    log: rio.log,
    // The answer is printed as it arrives.
    aiMessage: aiConsole(io.out, rio.log),
    allowScripts,
    ...(tools
      ? { tools: toolRunnerOf(tools.forRun(github?.repository, localRepositoryTools(record.repo))) }
      : {}),
  };
  if (github) options.github = github;
  const effects = new LocalEffects(options);
  const deps: ConstructorParameters<typeof Runner>[1] = {
    store,
    effects,
    bundles,
    io: rio,
    clock: io.clock ?? (() => new Date()),
    operator: operator(),
    trace: new FileTraceLog(store),
  };
  if (github) deps.github = github;
  if (invalidPlaybook) deps.invalidPlaybook = invalidPlaybook;
  const hook = faultHook();
  if (hook) deps.afterEffect = hook;
  if (io.sleep) deps.sleep = io.sleep;
  return new Runner(record, deps);
}

/** `playbook-bot resume <runId>`: continue from the last completed step, never redoing one. */
export async function resumeCommand(
  runId: string,
  opts: { mode?: "manual" | "autonomous"; repo?: string; allowScripts?: boolean },
  io: CommandIo,
): Promise<number> {
  const repo = resolve(io.cwd, opts.repo ?? ".");
  const store = new FileRunStore(join(repo, ".playbook-runs"));
  try {
    const record = store.load(runId);
    const bundles = loadPinned(store, record.playbooks);
    io.out(
      `Resuming run ${runId} at ${record.run.stack[record.run.stack.length - 1]?.current ?? "?"}\n`,
    );
    const github = record.dryRun ? undefined : await localGitHub(record.repo, process.env);
    const runner = makeRunner(
      record,
      store,
      bundles,
      io,
      github,
      opts.allowScripts === true,
      loadDeploymentTools(process.env),
    );
    return await runner.resume(opts.mode ?? record.mode);
  } catch (err) {
    if (err instanceof StateError) return stateErrorExit(io, err);
    if (err instanceof ToolsConfigError || err instanceof AiConfigError) {
      io.err(`playbook-bot: ${err.message}\n`);
      return RUN_EXIT.invalid;
    }
    throw err;
  }
}
