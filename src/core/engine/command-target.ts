import type { Step } from "../format/types.js";
import { stepKind } from "../steps/registry.js";
import type { CommandArgs, CommandName } from "./events.js";
import { commandLines, type CommandLine } from "./lanes.js";
import { activeFrame, isFinished, RUN_ID_PATTERN, type RunState } from "./state.js";

/** A run a command may be for, with a way to find its steps (its playbook, as pinned). */
export interface CandidateRun {
  run: RunState;
  step(id: string | null): Step | undefined;
}

/** The run a command is for, or why none is (`findings`: a `/record` nobody waits for). */
export type CommandTarget<R extends CandidateRun> =
  { run: R } | { refused: string } | { unanswered: "record" };

/**
 * Whether one line of a run takes a command now, as the waiting step's kind says: an approval
 * (`/approve`, `/reject`) is taken by a step answered with an approval, or by any step held for
 * its approvers; findings and choices by a step answered with findings.
 */
export function lineTakes(
  command: CommandName,
  line: CommandLine,
  step: Step | undefined,
): boolean {
  const answeredWith = step ? stepKind(step.type)?.answeredWith : undefined;
  if (command === "approve" || command === "reject")
    return line.phase === "approval" || (line.phase === "waiting" && answeredWith === "approval");
  return line.phase === "waiting" && answeredWith === "findings";
}

const RUN_ID = new RegExp(RUN_ID_PATTERN);

/**
 * A vote's words with the run it names, if its first word is a run id (`/approve
 * 20261202-0330-42-k3f9q`, in any case: ids are lower-case): step ids start with a letter and run
 * ids with a digit, so the two never meet. `args` are the words after it, as the engine reads them.
 */
export function namedRun(args: CommandArgs): { run?: string; args: CommandArgs } {
  const first = args.positional[0]?.toLowerCase();
  if (first === undefined || !RUN_ID.test(first)) return { args };
  const word = /^(\S+)(\s+|$)/.exec(args.text);
  const text = word?.[1]?.toLowerCase() === first ? args.text.slice(word[0].length) : args.text;
  return { run: first, args: { ...args, positional: args.positional.slice(1), text } };
}

/**
 * Which run a command is for, among an issue's runs: `/retry` the one that failed or stalled,
 * `/cancel` the first open one, any other the one waiting for it — named by its step when several
 * wait. A first word names a step only when it names one that waits; otherwise it is the note or
 * the reason (`/reject too risky`), and the engine reads it so too. `run`: the id the command
 * named (see `namedRun`): only that run may take it.
 */
export function commandTarget<R extends CandidateRun>(
  command: CommandName,
  args: CommandArgs,
  runs: readonly R[],
  run?: string,
): CommandTarget<R> {
  if (run !== undefined) {
    const named = runs.filter((r) => r.run.id === run);
    if (named.length === 0) return { refused: `no run \`${run}\` is open on this issue` };
    const picked = commandTarget(command, args, named);
    return "refused" in picked || "unanswered" in picked
      ? { refused: `run \`${run}\` does not wait for /${command} now` }
      : picked;
  }
  const open = runs.filter((r) => !isFinished(r.run));
  if (command === "retry")
    return orRefused(runs.find(mayRetry), "no run on this issue has failed or stalled");
  if (command === "cancel") return orRefused(open[0], "no run on this issue is open");
  const waits = (r: R, line: CommandLine): boolean =>
    lineTakes(command, line, r.step(line.current));
  const waiting = open.filter((r) => commandLines(activeFrame(r.run)).some((l) => waits(r, l)));
  const named = args.positional[0];
  const chosen =
    (command === "approve" || command === "reject") && named !== undefined
      ? waiting.find((r) =>
          commandLines(activeFrame(r.run)).some((l) => l.current === named && waits(r, l)),
        )
      : undefined;
  if (!chosen && waiting.length > 1)
    return {
      refused: `${waiting.length} runs wait here; name the step: ${waiting.map((r) => `\`/${command} ${activeFrame(r.run).current}\``).join(" or ")}`,
    };
  const target = chosen ?? waiting[0];
  if (target) return { run: target };
  // Findings recorded with nothing waiting are kept as work done by hand.
  if (command === "record") return { unanswered: "record" };
  return { refused: `nothing on this issue waits for /${command}` };
}

/** A run `/retry` can take: failed (but not frozen by an edit: that takes `/run`) or stalled. */
function mayRetry(r: CandidateRun): boolean {
  return (
    (r.run.status === "failed" && r.run.error?.code !== "PB-STATE-EDITED") ||
    (!isFinished(r.run) && ["effect", "pending"].includes(activeFrame(r.run).phase))
  );
}

function orRefused<R>(run: R | undefined, reason: string): { run: R } | { refused: string } {
  return run ? { run } : { refused: reason };
}
