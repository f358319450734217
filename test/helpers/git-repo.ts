import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { resumeCommand, runCommand, type RunOptions } from "../../src/entries/cli/run-command.js";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BIN = join(ROOT, "bin", "playbook-bot.js");

const made: string[] = [];

/** A temporary git repository on `main` with one commit (README.md). */
export function makeRepo(prefix = "pb-run-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir });
  writeFileSync(join(dir, "README.md"), "# test\n");
  execFileSync("git", ["add", "README.md"], { cwd: dir });
  execFileSync(
    "git",
    ["-c", "user.name=Test", "-c", "user.email=test@example.com", "commit", "-q", "-m", "init"],
    { cwd: dir },
  );
  return dir;
}

/** A temporary folder that is removed by cleanup(). */
export function makeDir(prefix = "pb-dir-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function cleanup(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
}

export function branches(cwd: string): string[] {
  return git(cwd, "for-each-ref", "--format=%(refname:short)", "refs/heads/")
    .split("\n")
    .filter(Boolean)
    .sort();
}

export function write(dir: string, rel: string, text: string): string {
  const file = join(dir, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

/** The built command, as a user runs it. */
export function spawnCli(args: string[], cwd: string, env: Record<string, string> = {}): CliRun {
  const env0 = { ...process.env };
  delete env0.PLAYBOOK_BOT_FAULT;
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...env0, ...env },
    encoding: "utf8",
  });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

export interface InProcessRun {
  code: number;
  out: string;
  err: string;
  questions: string[];
}

export const FIXED_NOW = new Date("2024-03-05T10:20:30Z");
/** The run token in-process runs get, unless they ask for random ones. */
export const FIXED_TOKEN = "t3st01";
export const FIXED_ID = `20240305-1020-${FIXED_TOKEN}`;

export interface IoOptions {
  answers?: (string | null)[];
  interactive?: boolean;
  clock?: () => Date;
  sleeps?: number[];
  /** Use the real clock (no io.clock). */
  realClock?: boolean;
  /** Keep the clock still while sleeping (by default a sleep moves the clock on). */
  frozen?: boolean;
  /** Random run tokens, as a real run has (by default every run gets FIXED_TOKEN). */
  randomToken?: boolean;
}

function makeIo(cwd: string, o: IoOptions) {
  const res: InProcessRun = { code: -1, out: "", err: "", questions: [] };
  const answers = o.answers ? [...o.answers] : undefined;
  let now = FIXED_NOW.getTime();
  const io = {
    out: (t: string) => void (res.out += t),
    err: (t: string) => void (res.err += t),
    cwd,
    ...(o.realClock ? {} : { clock: o.clock ?? (() => new Date(now)) }),
    ...(o.randomToken ? {} : { runToken: () => FIXED_TOKEN }),
    sleep: async (ms: number) => {
      o.sleeps?.push(ms);
      if (!o.frozen) now += ms;
    },
    ...(o.interactive !== undefined ? { interactive: o.interactive } : {}),
    ...(answers
      ? {
          ask: async (q: string) => {
            res.questions.push(q);
            return answers.length > 0 ? (answers.shift() as string | null) : null;
          },
        }
      : {}),
  };
  return { io, res };
}

/** `run` in this process, with a fixed clock and scripted answers. */
export async function runIn(
  cwd: string,
  target: string,
  args: string[] = [],
  opts: Partial<RunOptions> = {},
  io: IoOptions = {},
): Promise<InProcessRun> {
  const { io: cio, res } = makeIo(cwd, io);
  res.code = await runCommand(target, args, { mode: "manual", dryRun: false, ...opts }, cio);
  return res;
}

/** `resume` in this process. */
export async function resumeIn(
  cwd: string,
  id: string,
  opts: { mode?: "manual" | "autonomous"; repo?: string } = {},
  io: IoOptions = {},
): Promise<InProcessRun> {
  const { io: cio, res } = makeIo(cwd, io);
  res.code = await resumeCommand(id, opts, cio);
  return res;
}
