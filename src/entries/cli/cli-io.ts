import { ownPackage } from "../../adapters/local/own-package.js";
import type { CommandIo } from "./run-command.js";
import { colours, colourWanted, reportStyle, type Colours } from "./colour.js";
import type { TextStyle } from "../../core/format/report/text.js";

/**
 * Exit codes: 0 valid / done, 1 invalid playbooks (or more warnings than `--max-warnings`), 2 the
 * tool itself failed (bad use, I/O).
 */
export const EXIT = { ok: 0, invalid: 1, failure: 2 } as const;

const TOOL_FAILED =
  "2 the tool itself failed (bad arguments, a missing path, a bad config, an unwritable file)";
const VALIDATING = `0 valid (warnings allowed), 1 invalid or more warnings than --max-warnings, ${TOOL_FAILED}`;

/** The exit codes each command's help ends with: what scripts and CI act on. */
export const EXIT_CODES: Readonly<Record<string, string>> = {
  "": `0 done, 1 invalid playbooks or a failed case or run, ${TOOL_FAILED}; a command's --help gives its own`,
  validate: VALIDATING,
  list: `0 listed (invalid playbooks are listed with their status), ${TOOL_FAILED}`,
  run: "0 completed, 1 a validation error (the playbook or its inputs), 2 the run failed or was cancelled, or bad arguments, 3 a state error, 4 paused waiting for a person (resume continues it)",
  resume:
    "0 completed, 1 a validation error, 2 the run failed or was cancelled, or bad arguments, 3 no such run or a damaged state, 4 paused again waiting for a person",
  trace: `0 written, 1 a bad --installation, 3 no such run or a state that cannot be read, ${TOOL_FAILED}`,
  test: `0 every case passed, 1 a playbook is invalid or a case failed, ${TOOL_FAILED}`,
  simulate: `0 the thread was replayed, 1 the playbook is unknown or invalid, ${TOOL_FAILED}, or a script that cannot be replayed`,
  playground: `0 stopped (Ctrl-C), ${TOOL_FAILED}`,
  graph: `0 drawn, 1 the playbook is invalid or has no such step, ${TOOL_FAILED}`,
  import: `0 converted, 1 the file does not convert as it is (nothing written), ${TOOL_FAILED}`,
  schema: `0 printed, ${TOOL_FAILED}`,
  lsp: `0 the editor closed the connection, ${TOOL_FAILED}`,
  rules: `0 printed, ${TOOL_FAILED} or an unknown rule code`,
};

/** The help text after a command's options: its exit codes, wrapped for a terminal. */
export function exitCodesHelp(command: string): string {
  const words = `Exit codes: ${EXIT_CODES[command] ?? EXIT_CODES[""]}.`.split(" ");
  const lines = [""];
  for (const word of words) {
    const last = lines.length - 1;
    if ((lines[last] + " " + word).trim().length > 100) lines.push(word);
    else lines[last] = (lines[last] + " " + word).trim();
  }
  return "\n" + lines.join("\n");
}

/** A mistake in how the command was called: printed as one line, exit code 2. */
export class UsageError extends Error {}

export interface CliIo extends CommandIo {
  /** What says how to print (`NO_COLOR`, `FORCE_COLOR`, `TERM`); nothing when absent. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Which of standard output and standard error are terminals (colour goes only there). */
  terminal?: { out: boolean; err: boolean };
  /** Standard input, read whole up to `max` bytes and one more (`validate -`). */
  readStdin?: (max: number) => Promise<Uint8Array>;
}

/** A command's world: its I/O and how the global `--color` flag was given. */
export interface CliContext {
  io: CliIo;
  env: Readonly<Record<string, string | undefined>>;
  colourFlag: () => boolean | undefined;
}

/**
 * Colours for standard output, standard error or a file, as the flag, environment and terminal
 * say (a file is no terminal: coloured only when `--color` asks).
 */
export function coloursFor(ctx: CliContext, stream: "out" | "err" | "file"): Colours {
  const terminal = stream !== "file" && ctx.io.terminal?.[stream] === true;
  return colours(colourWanted(terminal, ctx.env, ctx.colourFlag()));
}

/** The report style for a stream or a file. */
export function textStyle(ctx: CliContext, stream: "out" | "err" | "file"): TextStyle {
  return reportStyle(coloursFor(ctx, stream));
}

/** Standard input up to `max` bytes and one more: enough to say a playbook is too big. */
export async function readProcessStdin(max: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > max) break;
  }
  return Buffer.concat(chunks).subarray(0, max + 1);
}

/** A reader that stopped reading (`| head`) ends the output, not the process with a stack. */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  if (stream.listenerCount("error") > 0) return;
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw err;
  });
}

export const defaultIo = (): CliIo => {
  quietOnClosedPipe(process.stdout);
  return defaultStreams();
};

const defaultStreams = (): CliIo => ({
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
  cwd: process.cwd(),
  interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
  env: process.env,
  terminal: { out: process.stdout.isTTY === true, err: process.stderr.isTTY === true },
  readStdin: readProcessStdin,
});

/** `--max-warnings <n>` and the like: a whole number from 0. */
export function count(option: string, value: string): number {
  if (!/^[0-9]{1,9}$/.test(value))
    throw new UsageError(`${option} ${value}: give a whole number from 0, e.g. ${option} 0`);
  return Number(value);
}

/** `--issue <n>`: an issue number, 1 or more. */
export function issueNumber(value: string): number {
  if (!/^[1-9][0-9]{0,9}$/.test(value))
    throw new UsageError(
      `--issue ${value}: an issue number is a whole number from 1, e.g. --issue 42`,
    );
  return Number(value);
}

/** The package's version, from its `package.json`, wherever the build put this module. */
export function packageVersion(): string {
  const version = ownPackage()?.version;
  if (version === undefined) throw new Error("the playbook-bot package.json was not found");
  return version;
}
