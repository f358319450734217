import { parseCommands } from "../core/engine/commands.js";
import { activeFrame, isFinished, type RunState } from "../core/engine/state.js";

/**
 * The level-triggered reconcile of an issue, as pure decisions: given what the issue shows (its
 * recent comments and label events, the bot's answers to them, its runs' states), what was asked
 * for and never answered, to be done again. The Actions bot reconciles the issue of each event;
 * the app sweeps its repositories every few minutes. Each replay carries a stable id
 * (`comment-<id>`, `label-<id>`) under which it is done once, however many sweeps find it.
 */

/**
 * The ids replays are handled under (`comment-<id>`, `label-<id>`: GitHub's ids of the comment
 * and of the label event; `opening:<label>`, see `openingLabelEventId`). Never a webhook
 * delivery's: its id is a header no signature covers, so the webhook route refuses these (a
 * signed label sent again under `label-<id>` would pass for a replay of another label event).
 */
export const REPLAY_ID = /^(?:(?:comment|label)-[0-9]+|opening:[A-Za-z0-9_.-]*)$/;

/** How far back unanswered commands and labels are looked for (and replayed). */
export const RECONCILE_WINDOW_MS = 24 * 3_600_000;

export interface ReconcileUser {
  login: string;
  type: string;
}

/** A comment as the reconcile needs it (REST field names). */
export interface ReconcileComment {
  id: number;
  body?: string | null;
  created_at: string;
  /** Absent when the reader does not know: then the comment counts as never edited. */
  updated_at?: string;
  user: ReconcileUser | null;
  /** Reaction counts by content, as GitHub lists them with the comment. */
  reactions?: Record<string, unknown>;
}

/** A label added to an issue (`GET /issues/{n}/events`, event `labeled`). */
export interface ReconcileLabelEvent {
  id: number;
  event: string;
  created_at: string;
  actor: ReconcileUser | null;
  label?: { name: string };
}

/** One thing to do again, at the time it was asked for, under its stable id. */
export type Replay<C extends ReconcileComment = ReconcileComment, E = ReconcileLabelEvent> =
  | { id: string; at: string; kind: "command"; comment: C }
  | { id: string; at: string; kind: "label"; event: E };

/** The reactions by which the bot answers a command: it accepted (🚀) or refused (👎) it. */
export const ANSWER_REACTIONS = ["rocket", "-1"] as const;

/**
 * Whether a comment is a command the bot would obey: a person's (never a bot's), with a command
 * line, and never edited. Text can be rewritten after the fact, its creation cannot: a comment
 * edited into `/approve` was not an approval when it was written, and its edit is an event of
 * its own (withdrawing the votes it carried). Write users may edit anyone's comment, so the
 * command is the comment as it was created, and a replay sees only its current text.
 *
 * "Never edited" is `updated_at` equal to `created_at`. GitHub's REST reference does not say
 * whether a reaction moves an issue comment's `updated_at` (reactions are a resource of their
 * own, and no `issue_comment` event is sent for one); should anything but an edit move it, the
 * comment is merely not replayed, and `editedCommands` names it in the log: failing shut, never
 * open. The webhook of its creation, where the app or the workflow gets it, carries it as written.
 */
export function isCommandComment(c: ReconcileComment): boolean {
  return isPersonsCommand(c) && !wasEdited(c);
}

function isPersonsCommand(c: ReconcileComment): boolean {
  if (!c.user || c.user.type === "Bot") return false;
  return parseCommands(c.body ?? "").length > 0;
}

function wasEdited(c: ReconcileComment): boolean {
  return c.updated_at !== undefined && c.updated_at !== c.created_at;
}

/**
 * The comments made since `since` (epoch ms) that read as a person's commands now but were edited
 * after they were written: never replayed (see `isCommandComment`), and said so, not silently.
 */
export function editedCommands<C extends ReconcileComment>(
  comments: readonly C[],
  since: number,
): C[] {
  return comments.filter(
    (c) => Date.parse(c.created_at) >= since && isPersonsCommand(c) && wasEdited(c),
  );
}

/**
 * Whether the bot may have answered the comment, from the counts listed with it: no 🚀 and no 👎
 * at all means it did not; a count means someone did, to be checked against who (the reader asks).
 */
export function mayBeAnswered(c: ReconcileComment): boolean {
  const counts = c.reactions ?? {};
  return ANSWER_REACTIONS.some((content) => Number(counts[content] ?? 0) > 0);
}

/** The commands among the comments, made since `since` (epoch ms): answered or not. */
export function recentCommands<C extends ReconcileComment>(
  comments: readonly C[],
  since: number,
): C[] {
  return comments.filter((c) => Date.parse(c.created_at) >= since && isCommandComment(c));
}

export interface IssueReconcileInput<C extends ReconcileComment, E extends ReconcileLabelEvent> {
  /** The issue's recent comments (any author). */
  comments: readonly C[];
  /** The issue's recent label events (none when labels are not reconciled). */
  labelEvents: readonly E[];
  /** Ids of the comments the bot answered (its own 🚀 or 👎 is on them). */
  answered: ReadonlySet<number>;
  /** Events the bot's notices and runs say they answered (`label-<id>`, …). */
  answeredEvents: ReadonlySet<string>;
  /** Labels that start nothing (the app's own waiting label). */
  ignoredLabels: ReadonlySet<string>;
  /** Only what was asked for since then (epoch ms) is replayed. */
  since: number;
  /**
   * When the issue was opened: labels it was opened with are replayed under the opening's id
   * (`openingLabelEventId`), the one its `issues.opened` started them under.
   */
  openedAt?: number;
}

/** Labels within this long of the opening were set by it. */
const OPENING_SLACK_MS = 5_000;

/**
 * The id under which a label the issue was opened with starts its playbooks, whichever event
 * brings it: GitHub sends `issues.opened` (naming the label) and then `issues.labeled` for each
 * label set at creation (an issue form's, or labels given when opening), so both must be one start.
 */
export function openingLabelEventId(label: string): string {
  // Only characters an answers marker keeps (see answeredEvents): the others as `.<hex>.`.
  const safe = Array.from(label, (c) =>
    /[A-Za-z0-9_-]/.test(c) ? c : `.${(c.codePointAt(0) ?? 0).toString(16)}.`,
  ).join("");
  return `opening:${safe}`;
}

/** Whether a label added at `labelledAt` was set by the opening of an issue opened at `openedAt`. */
export function labelledAtOpening(labelledAt: number, openedAt: number): boolean {
  return Math.abs(labelledAt - openedAt) < OPENING_SLACK_MS;
}

/** What to do again on one issue, oldest first. */
export function issueReplays<C extends ReconcileComment, E extends ReconcileLabelEvent>(
  input: IssueReconcileInput<C, E>,
): Replay<C, E>[] {
  const todo: Replay<C, E>[] = [];
  for (const c of recentCommands(input.comments, input.since)) {
    if (input.answered.has(c.id)) continue;
    todo.push({ id: `comment-${c.id}`, at: c.created_at, kind: "command", comment: c });
  }
  for (const e of input.labelEvents) {
    if (e.event !== "labeled" || !e.label || Date.parse(e.created_at) < input.since) continue;
    const id =
      input.openedAt !== undefined && labelledAtOpening(Date.parse(e.created_at), input.openedAt)
        ? openingLabelEventId(e.label.name)
        : `label-${e.id}`;
    if (input.ignoredLabels.has(e.label.name) || input.answeredEvents.has(id)) continue;
    todo.push({ id, at: e.created_at, kind: "label", event: e });
  }
  // Stable: the same instant keeps the comments' and events' own order.
  return todo.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/**
 * When (epoch ms) a run, as its status comment was last saved at `savedAt`, needs a sweep to carry
 * it on, if ever: it was saved with a step to enter (or an effect whose result was never saved),
 * and the continuation that the save's own edit brings has not come within `graceMs` — or, for a
 * retry, its backoff is over. Undefined when it waits for people or outside events (or ended).
 * Carrying a run on is safe to repeat: the engine ignores a continuation whose sequence number is
 * not the run's, and a tick with nothing due changes nothing.
 */
export function runDueAt(run: RunState, savedAt: number, graceMs: number): number | undefined {
  if (isFinished(run)) return undefined;
  const f = activeFrame(run);
  const lines = f.lanes ? Object.values(f.lanes) : [f];
  const stuck = lines.filter((l) => l.phase === "pending" || l.phase === "effect");
  if (stuck.length === 0) return undefined;
  // The earliest line that may move: now for an effect or a due step, else its backoff's end.
  const times = stuck.map((l) =>
    l.phase === "pending" && l.notBefore ? Date.parse(l.notBefore) : savedAt,
  );
  return Math.max(
    savedAt + graceMs,
    Math.min(...times.map((t) => (Number.isFinite(t) ? t : savedAt))),
  );
}
