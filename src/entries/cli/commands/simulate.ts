import "../../../adapters/local/yaml-library.js";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { readConfined, rootFor } from "../../../adapters/local/safe-files.js";
import { formatText } from "../../../core/format/report/text.js";
import { EXIT, textStyle, UsageError, type CliContext } from "../cli-io.js";
import {
  findTarget,
  loadLocalPlaybooks,
  localProblems,
  playbookFileArgument,
} from "../local-playbooks.js";
import { parseScript, ScriptError, simulate } from "../simulate.js";

/** The events script: read inside its folder, parsed with each mistake located. */
function scriptOf(cwd: string, eventsFile: string): ReturnType<typeof parseScript> {
  const file = resolve(cwd, eventsFile);
  const read = readConfined(file, { root: rootFor(file, cwd) });
  if (!read.ok) throw new UsageError(`${eventsFile}: ${read.refusal.message}`);
  try {
    return parseScript(eventsFile, read.bytes.toString("utf8"));
  } catch (err) {
    if (err instanceof ScriptError) throw new UsageError(err.message);
    throw err;
  }
}

/** `playbook-bot simulate`: the issue thread a script of events would produce. */
export async function simulateCommand(
  ctx: CliContext,
  target: string,
  eventsFile: string,
): Promise<number> {
  const { io } = ctx;
  if (!existsSync(resolve(io.cwd, eventsFile))) throw new UsageError(`${eventsFile}: no such file`);
  const explicit = playbookFileArgument(target, io.cwd);
  const set = await loadLocalPlaybooks(io.cwd, explicit);
  const found = findTarget(set, explicit ?? target, io.cwd);
  if (!found.bundle) {
    if (found.report) io.err(formatText([found.report], textStyle(ctx, "err")));
    else io.err(`playbook-bot: no playbook '${target}'\n`);
    return EXIT.invalid;
  }
  const script = scriptOf(io.cwd, eventsFile);
  io.out(await simulate(set.bundles, script, (id) => localProblems(set, id, io.cwd)));
  return EXIT.ok;
}
