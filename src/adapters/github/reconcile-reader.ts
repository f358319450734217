import {
  ANSWER_REACTIONS,
  editedCommands,
  issueReplays,
  isCommandComment,
  mayBeAnswered,
  recentCommands,
  type ReconcileComment,
  type ReconcileLabelEvent,
  type ReconcileUser,
  type Replay,
} from "../../runtime/reconcile.js";
import { notModified, type Octokit } from "./octokit-port.js";

/**
 * What the reconcile reads from GitHub (see src/runtime/reconcile.ts for what it decides): an
 * issue's recent comments and label events with the bot's answers to them, and, for the app's
 * sweep, a repository's recently updated comments and its issues carrying a label — those two
 * as conditional requests, so that a sweep that finds nothing new is answered 304 (which does
 * not count against GitHub's rate limit).
 */

/** A comment as the REST API lists it (the fields the reconcile and the handlers use). */
export interface RestReconcileComment extends ReconcileComment {
  body?: string | null;
  issue_url?: string;
  performed_via_github_app?: { id: number } | null;
}

const PAGE = 100;

/**
 * How many pages (of 100) an issue's replay window is read in at most, for its comments and for
 * its events each: 3,000 of either in one day is a flood, and a log line says what was cut.
 */
export const MAX_WINDOW_PAGES = 30;

/** The page number a Link header names as `rel` (next, last, …). */
function linkedPage(link: unknown, rel: string): number | undefined {
  for (const part of String(link ?? "").split(","))
    if (new RegExp(`rel="${rel}"`).test(part)) {
      const n = Number(/[?&]page=(\d+)/.exec(part)?.[1]);
      if (Number.isSafeInteger(n) && n > 0) return n;
    }
  return undefined;
}

type Page<T> = { data: T[]; last: number | undefined };

async function readPage<T>(
  octokit: Octokit,
  route: string,
  params: Record<string, unknown>,
  page: number,
): Promise<Page<T>> {
  const answer = await octokit.request(route, { ...params, per_page: PAGE, page });
  return { data: answer.data as T[], last: linkedPage(answer.headers.link, "last") };
}

/** Each item once (a page boundary may move while the pages are read), in order. */
function once<T extends { id: number }>(items: T[]): T[] {
  const seen = new Set<number>();
  return items.filter((i) => !seen.has(i.id) && Boolean(seen.add(i.id)));
}

/**
 * An issue's comments updated since `since` (the API's `since`: the window's comments, and older
 * ones edited in it), every page, oldest first. Past MAX_WINDOW_PAGES pages, the first page and the
 * newest ones are read, and `cut` is told how many pages were not.
 */
async function commentsSince<T extends { id: number }>(
  octokit: Octokit,
  route: string,
  params: Record<string, unknown>,
  since: number,
  cut: (line: string) => void,
): Promise<T[]> {
  const windowed = { ...params, since: new Date(since).toISOString() };
  const first = await readPage<T>(octokit, route, windowed, 1);
  const last = first.last ?? 1;
  // The newest pages when there are too many: a command is read by the run its comment starts,
  // before a flood that follows it can be that large.
  const from = Math.max(2, last - MAX_WINDOW_PAGES + 2);
  if (from > 2)
    cut(
      `${last} pages of comments since ${windowed.since}: read the first and the newest ${last - from + 1}, not pages 2 to ${from - 1}`,
    );
  const items = [...first.data];
  for (let page = from; page <= last; page++)
    items.push(...(await readPage<T>(octokit, route, windowed, page)).data);
  return once(items);
}

/**
 * An issue's events since `since`, oldest first. The API lists them oldest first with no `since`:
 * the pages are read from the last one backwards until one starts before `since` (at most
 * MAX_WINDOW_PAGES; `cut` is told when that bound stopped it).
 */
async function eventsSince<T extends { id: number; created_at: string }>(
  octokit: Octokit,
  route: string,
  params: Record<string, unknown>,
  since: number,
  cut: (line: string) => void,
): Promise<T[]> {
  const first = await readPage<T>(octokit, route, params, 1);
  if (!first.last || first.last <= 1) return first.data;
  const pages: T[][] = [];
  let page = first.last;
  for (; page > 1; page--) {
    if (pages.length + 1 >= MAX_WINDOW_PAGES) {
      cut(
        `${first.last} pages of events: read the first and the newest ${pages.length}, not pages 2 to ${page}`,
      );
      break;
    }
    const { data } = await readPage<T>(octokit, route, params, page);
    pages.unshift(data);
    const oldest = data[0];
    if (!oldest || Date.parse(oldest.created_at) < since) return once(pages.flat());
  }
  return once([...first.data, ...pages.flat()]);
}

/** Whether the bot (`botLogin`) answered a command comment: its own 🚀 or 👎 is on it. */
export async function answeredByBot(
  octokit: Octokit,
  owner: string,
  repo: string,
  c: ReconcileComment,
  botLogin: string,
): Promise<boolean> {
  if (!mayBeAnswered(c)) return false;
  for (const content of ANSWER_REACTIONS) {
    if (!Number(c.reactions?.[content] ?? 0)) continue;
    const { data } = await octokit.rest.reactions.listForIssueComment({
      owner,
      repo,
      comment_id: c.id,
      content,
      per_page: 100,
    });
    if ((data as { user: ReconcileUser | null }[]).some((r) => r.user?.login === botLogin))
      return true;
  }
  return false;
}

/** The ids of the commands among `comments` that the bot answered (each checked once). */
export async function answeredCommands(
  octokit: Octokit,
  owner: string,
  repo: string,
  comments: readonly ReconcileComment[],
  botLogin: string,
): Promise<Set<number>> {
  const answered = new Set<number>();
  for (const c of comments)
    if (isCommandComment(c) && (await answeredByBot(octokit, owner, repo, c, botLogin)))
      answered.add(c.id);
  return answered;
}

export interface IssueReadOptions {
  owner: string;
  repo: string;
  issue: number;
  /** The account the bot writes (and reacts) as. */
  botLogin: string;
  /** The app it writes through: a notice counts only when GitHub says that app wrote it. */
  appId?: number;
  /** Only what was asked for since then (epoch ms). */
  since: number;
  /** Whether label events are reconciled too (the Actions bot); else comments only. */
  labels: boolean;
  /** The events a notice of the bot says it answers (see answersMarker). */
  answersOf: (body: string) => string[];
  /** Labels that start nothing. */
  ignoredLabels: ReadonlySet<string>;
  /** When the issue was opened, when this reconcile follows its opening. */
  openedAt?: number;
  /** Told of each comment that reads as a command but was edited after it was written. */
  onEdited?: (c: RestReconcileComment) => void;
  /** Told when the window held more than MAX_WINDOW_PAGES pages of comments or events. */
  onCut?: (line: string) => void;
  /** Given the bot's own comments of the window, as read (the Actions bot counts its replies). */
  onOwn?: (own: RestReconcileComment[]) => void;
}

/**
 * One issue's replays, oldest first: every comment (and event) of the window read, however long
 * the thread, the bot's reactions asked for where the counts show one may be there.
 */
export async function readIssueReplays<E extends ReconcileLabelEvent = ReconcileLabelEvent>(
  octokit: Octokit,
  o: IssueReadOptions,
): Promise<Replay<RestReconcileComment, E>[]> {
  const params = { owner: o.owner, repo: o.repo, issue_number: o.issue };
  const cut = (line: string) => o.onCut?.(`#${o.issue}: ${line}`);
  const [comments, events] = await Promise.all([
    commentsSince<RestReconcileComment>(
      octokit,
      "GET /repos/{owner}/{repo}/issues/{issue_number}/comments",
      params,
      o.since,
      cut,
    ),
    o.labels
      ? eventsSince<E>(
          octokit,
          "GET /repos/{owner}/{repo}/issues/{issue_number}/events",
          params,
          o.since,
          cut,
        )
      : Promise.resolve([] as E[]),
  ]);
  const own = comments.filter(
    (c) =>
      c.user?.login === o.botLogin &&
      (o.appId === undefined || c.performed_via_github_app?.id === o.appId),
  );
  const noticed = new Set<string>();
  for (const c of own) for (const id of o.answersOf(c.body ?? "")) noticed.add(id);
  o.onOwn?.(own);
  const candidates = recentCommands(comments, o.since);
  for (const c of editedCommands(comments, o.since)) o.onEdited?.(c);
  return issueReplays({
    comments,
    labelEvents: events,
    answered: await answeredCommands(octokit, o.owner, o.repo, candidates, o.botLogin),
    answeredEvents: noticed,
    ignoredLabels: o.ignoredLabels,
    since: o.since,
    ...(o.openedAt !== undefined && Number.isFinite(o.openedAt) ? { openedAt: o.openedAt } : {}),
  });
}

/** The issue a listed comment belongs to (`issue_url` ends with its number). */
export function issueOfComment(c: { issue_url?: string }): number | undefined {
  const n = Number(/\/issues\/(\d+)$/.exec(c.issue_url ?? "")?.[1]);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** A conditional listing's answer: unchanged since `etag`, or what it lists now. */
export type Listed<T> =
  | { notModified: true }
  | { notModified: false; items: T[]; etag: string | undefined; complete: boolean };

/**
 * A listing of at most `maxPages` pages (`complete` false when there were more). The first page is
 * asked for with `If-None-Match`: a 304 means nothing changed since the answer that `etag` came
 * with, at no rate-limit cost.
 */
async function listConditionally<T>(
  octokit: Octokit,
  route: string,
  o: { params: Record<string, unknown>; etag?: string; maxPages: number },
  pick: (data: unknown) => T[],
): Promise<Listed<T>> {
  const items: T[] = [];
  let etag: string | undefined;
  for (let page = 1; page <= o.maxPages; page++) {
    let answer: { data: unknown; headers: Record<string, unknown> };
    try {
      answer = await octokit.request(route, {
        ...o.params,
        per_page: PAGE,
        page,
        ...(page === 1 && o.etag ? { headers: { "if-none-match": o.etag } } : {}),
      });
    } catch (err) {
      if (page === 1 && o.etag && notModified(err)) return { notModified: true };
      throw err;
    }
    if (page === 1 && typeof answer.headers.etag === "string") etag = answer.headers.etag;
    const data = answer.data as unknown[];
    items.push(...pick(data));
    if (data.length < PAGE || !/rel="next"/.test(String(answer.headers.link ?? "")))
      return { notModified: false, items, etag, complete: true };
  }
  return { notModified: false, items, etag, complete: false };
}

/** A repository's comments updated since `since`, newest update first (see `listConditionally`). */
export function listUpdatedComments(
  octokit: Octokit,
  o: { owner: string; repo: string; since: string; etag?: string; maxPages: number },
): Promise<Listed<RestReconcileComment>> {
  const params = {
    owner: o.owner,
    repo: o.repo,
    since: o.since,
    sort: "updated",
    direction: "desc",
  };
  return listConditionally(
    octokit,
    "GET /repos/{owner}/{repo}/issues/comments",
    { params, ...(o.etag ? { etag: o.etag } : {}), maxPages: o.maxPages },
    (data) => data as RestReconcileComment[],
  );
}

/** The numbers of a repository's open issues (not pull requests) carrying `label`. */
export function listLabelledIssues(
  octokit: Octokit,
  o: { owner: string; repo: string; label: string; etag?: string; maxPages: number },
): Promise<Listed<number>> {
  const params = { owner: o.owner, repo: o.repo, labels: o.label, state: "open" };
  return listConditionally(
    octokit,
    "GET /repos/{owner}/{repo}/issues",
    { params, ...(o.etag ? { etag: o.etag } : {}), maxPages: o.maxPages },
    (data) =>
      (data as { number: number; pull_request?: unknown }[])
        .filter((i) => !i.pull_request)
        .map((i) => i.number),
  );
}
