import { main, type CliIo } from "../../src/entries/cli/main.js";
import { FIXED_NOW, ROOT } from "./git-repo.js";

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/**
 * The CLI run in-process in `cwd`: its exit code and what it printed. `io` gives what else a
 * test sets (standard input, a terminal, a clock).
 */
export async function cliIn(argv: string[], cwd: string, io: Partial<CliIo> = {}): Promise<CliRun> {
  let out = "";
  let err = "";
  const code = await main(argv, {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    cwd,
    ...io,
  });
  return { code, out, err };
}

/** The CLI run in-process at a fixed time. */
export function runCli(argv: string[], cwd = ROOT): Promise<CliRun> {
  return cliIn(argv, cwd, { clock: () => new Date(FIXED_NOW) });
}
