import { main } from "../../src/entries/cli/main.js";
import { FIXED_NOW, ROOT } from "./git-repo.js";

/** The CLI run in-process at a fixed time: its exit code and what it printed. */
export async function runCli(
  argv: string[],
  cwd = ROOT,
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(argv, {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    cwd,
    clock: () => new Date(FIXED_NOW),
  });
  return { code, out, err };
}
