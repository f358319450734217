import { commandTarget, type CandidateRun } from "../../core/engine/command-target.js";
import type { CommandArgs, Reply } from "../../core/engine/events.js";
import { code, paragraph, renderMarkdown, strong } from "../../core/markdown/comment.js";

/**
 * Approvals that name their run, for a host whose state secret the people it guards against can
 * read (the Actions bot: anyone who can push a workflow can read `state-secret` and seal any
 * state). Such a state can claim any approval comment on the issue as its own; what it cannot
 * rewrite is what a maintainer wrote. So there an approval counts for a run only when its words
 * name that run (`/approve 20261202-0330-42-k3f9q`), whatever the issue's history: how many runs
 * an issue had is told by comments a write user may forge or delete, the words of an approval
 * are not. The request for approval says the command to copy; a bare `/approve` is answered
 * with it.
 */

/**
 * A run's token where approvals name their run: the id of its status comment, then the token it
 * would have had (its unguessable part). Anyone who can read the state secret can seal any state
 * into any comment, with any run id; GitHub's id of the comment they cannot change. So a run id
 * counts only in the comment it names (`runNamesComment`), and an approval naming it is for that
 * comment's run alone.
 */
export function commentRunToken(commentId: string, token: string): string {
  return `${commentId}-${token.slice(token.lastIndexOf("-") + 1)}`;
}

/** Whether run id `runId` names status comment `commentId` (see `commentRunToken`). */
export function runNamesComment(runId: string, commentId: string): boolean {
  return runId.split("-")[2] === commentId;
}

/** The command that approves run `runId`, with the words that followed a bare `/approve`. */
export function approveCommand(runId: string, words = ""): string {
  return `/approve ${runId}${words.trim() ? ` ${words.trim()}` : ""}`;
}

/** The line added to a request for approval: the command to copy. */
export function approvalPromptLine(runId: string): string {
  return renderMarkdown(
    paragraph(
      strong("Here an approval names its run"),
      " (a bare ",
      code("/approve"),
      " does not count) — copy: ",
      code(approveCommand(runId)),
    ),
  );
}

/** Why a bare `/approve` is refused where approvals name their run: the command to write. */
export function unnamedApproval<R extends CandidateRun>(
  args: CommandArgs,
  runs: readonly R[],
): string {
  const waiting = runs.filter((r) => "run" in commandTarget("approve", args, [r]));
  if (waiting.length === 0) return "nothing on this issue waits for /approve";
  // The words that followed, as they can sit in a code span.
  const words = args.text.replace(/`/g, "").slice(0, 200);
  const commands = waiting.map((r) => `\`${approveCommand(r.run.id, words)}\``);
  return `here an approval names the run it is for; write ${commands.join(" or ")}`;
}

/**
 * A refusal, with the open runs no vote can be for: begun before approvals named their run (their
 * ids name no status comment), or sealed by someone else. They must be started again.
 */
export function withOlderRuns(
  reason: string,
  older: readonly { run: { id: string }; commentId: string }[],
): Reply {
  if (older.length === 0) return { outcome: "refused", reason };
  const runs = older.map((r) => `\`${r.run.id}\` (status comment ${r.commentId})`).join(", ");
  return {
    outcome: "refused",
    reason: `${reason}; no approval counts for ${runs}: a run's id here names its own status comment, and this one's does not (begun before approvals named their run, or sealed by someone else), so start it again with /run`,
  };
}
