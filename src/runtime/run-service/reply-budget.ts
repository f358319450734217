/**
 * The reply budget: at most `REPLY_BUDGET.count` comments to one person on one issue per window;
 * beyond, reactions only. The app keeps what it spent in its coordination store. A runtime whose
 * store lives for one event (the Actions bot: each comment is a workflow run of its own) counts
 * what was spent from GitHub instead: every reply carries a hidden marker naming the person it
 * answers, and the bot's own comments of the window are read with the issue (see `repliesSince`).
 * Nobody without write access can write, edit or delete the bot's comments, so those people
 * cannot make the count smaller.
 */

import { readStatusUnverified } from "./status-comment.js";

/** At most this many replies (comments) to one person on one issue per window; beyond: reactions only. */
export const REPLY_BUDGET = { count: 5, windowMs: 10 * 60_000 };

/** Where the budget of `login`'s replies on an issue is kept in the coordination store. */
export function replyBudgetKey(
  repo: { owner: string; name: string },
  issue: number,
  login: string,
): string {
  return `replies:${repo.owner}/${repo.name}#${issue}:${login.toLowerCase()}`;
}

/** The marker as a reply ends with it (what the bot appended last, never an echo). */
const MARKER = /\n<!-- playbook-bot:reply-to ([a-z0-9[\]_.-]+) -->\n?$/;

/** The hidden line a reply to `login` carries (a login keeps to `[A-Za-z0-9-]`, a bot's `[bot]`). */
export function replyMarker(login: string): string {
  return `\n<!-- playbook-bot:reply-to ${login.toLowerCase().replace(/[^a-z0-9[\]_.-]/g, "")} -->\n`;
}

/** A reply's body with its marker. */
export function markedReply(text: string, login: string): string {
  return `${text.trimEnd()}\n${replyMarker(login)}`;
}

/** The bot's comment as the count needs it. */
export interface OwnComment {
  body?: string | null;
  created_at: string;
}

/**
 * The replies among the bot's own comments (only those: the caller checks who wrote them) made
 * within the window before `now`: whom each answered and when (epoch ms), oldest first.
 */
export function repliesSince(
  own: readonly OwnComment[],
  now: number,
): { login: string; at: number }[] {
  return spentWithin(own, now, (c) => MARKER.exec(c.body ?? "")?.[1]);
}

/**
 * The runs among the bot's own comments (status comments, created when their run began) that
 * people without a role above read started within the window before `now`: each start was spent
 * from the starter's reply budget (a run writes comments, see `outsiderMayStart`). Whoever can
 * write the bot's comments can forge these, which only makes an outsider's budget smaller.
 */
export function outsiderStartsSince(
  own: readonly OwnComment[],
  now: number,
): { login: string; at: number }[] {
  return spentWithin(own, now, (c) => {
    const read = readStatusUnverified(c.body ?? "");
    if (!read.ok || ABOVE_READ.has(read.run.initiatorPermission ?? "read")) return undefined;
    return read.run.initiator.toLowerCase();
  });
}

/**
 * The bot's comments made within the budget's window before `now` that spent someone's budget:
 * whom (`spentBy`, undefined for a comment that spent nothing) and when (epoch ms), oldest first.
 */
function spentWithin(
  own: readonly OwnComment[],
  now: number,
  spentBy: (c: OwnComment) => string | undefined,
): { login: string; at: number }[] {
  const out: { login: string; at: number }[] = [];
  for (const c of own) {
    const at = Date.parse(c.created_at);
    if (!(now - at < REPLY_BUDGET.windowMs)) continue;
    const login = spentBy(c);
    if (login !== undefined) out.push({ login, at });
  }
  return out.sort((a, b) => a.at - b.at);
}

const ABOVE_READ = new Set(["triage", "write", "maintain", "admin"]);
