import { parseCommands } from "../../core/engine/commands.js";
import { playbookError, type PlaybookError } from "../../core/engine/errors.js";
import { atLeast, DEFAULT_RUN_PERMISSION } from "../../core/engine/policy.js";
import type { Permission } from "../../core/format/types.js";
import type { GitHubPort, ThreadComment } from "../github-port.js";
import { hasStateBlock } from "./status-comment.js";

/**
 * A `/cancel` as a fact the run re-reads before each effect, for a host whose state secret the
 * people it guards against can read (the Actions bot: anyone who can push a workflow can read
 * `state-secret`, and any workflow's token writes as github-actions[bot]). Such a person can seal
 * any state — put back one from before a `/cancel`, say — so nothing the state says can show that
 * the run was cancelled. What they cannot rewrite is GitHub's record of the thread: who wrote a
 * comment, when, its id, and whether it was edited since. So before each effect the thread is
 * read, and a run is held cancelled when a `/cancel` stands against it there:
 *
 * - a person's comment (not a bot's), never edited (its text is the one it was created with), with
 *   a `/cancel` line;
 * - written after the run's status comment, and that status comment is the newest of the issue's
 *   status comments written before it — a bare `/cancel` is for the newest open run, so it is tied
 *   to this run by the order of ids alone, no clock and no state compared;
 * - by someone who may cancel the run's playbook now (`permissions.cancel`, triage by default).
 *
 * What it cannot see: a `/cancel` that was deleted (write users may delete anyone's comment;
 * GitHub's audit log keeps that), and a bare `/cancel` meant for an older run while a newer one
 * had already ended. It errs towards holding a run: after a bare `/cancel` written when this run
 * had failed, `/retry` of it is refused at its first effect (start it again with `/run`).
 */

/** The facts the guard reads: the issue's thread and people's roles, as GitHub says now. */
export type CancelFactsPort = Pick<GitHubPort, "comments" | "permission">;

/** The `/cancel` comments of a thread that stand against the run of `statusCommentId`. */
export function cancelsAgainst(
  thread: readonly ThreadComment[],
  statusCommentId: string,
): ThreadComment[] {
  const own = Number(statusCommentId);
  const statuses = thread
    .filter((c) => c.byThisApp && hasStateBlock(c.body))
    .map((c) => Number(c.id))
    .sort((a, b) => a - b);
  return thread.filter((c) => {
    const id = Number(c.id);
    if (c.bot || c.byThisApp || !(id > own)) return false;
    if (c.updatedAt !== undefined && c.updatedAt !== c.createdAt) return false;
    if (!parseCommands(c.body).some((x) => x.kind === "command" && x.name === "cancel"))
      return false;
    // The newest status comment written before it is this run's.
    return statuses.filter((s) => s < id).at(-1) === own;
  });
}

/**
 * Before an effect of a run (`statusCommentId`, of playbook `least` may cancel): the error that
 * stops it when a `/cancel` stands against it on the thread, else undefined. The thread is read
 * once per `cache` (one event's work).
 */
export async function cancelStands(
  port: CancelFactsPort,
  o: {
    issue: number;
    statusCommentId: string;
    least?: Permission;
    cache: { thread?: Promise<ThreadComment[]> };
  },
): Promise<PlaybookError | undefined> {
  o.cache.thread ??= port.comments(o.issue);
  const least = o.least ?? DEFAULT_RUN_PERMISSION;
  for (const c of cancelsAgainst(await o.cache.thread, o.statusCommentId)) {
    const permission = await port.permission(c.author);
    if (!atLeast({ login: c.author, ...(permission ? { permission } : {}) }, least)) continue;
    return playbookError(
      "PB-CANCELLED",
      `@${c.author} cancelled this run (comment ${c.id}); its state says otherwise, so it was put back since, and nothing more is done`,
    );
  }
  return undefined;
}
