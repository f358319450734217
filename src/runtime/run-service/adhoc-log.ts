import { createHmac, timingSafeEqual } from "node:crypto";
import {
  code,
  details,
  paragraph,
  renderMarkdown,
  strong,
  table,
  untrusted,
} from "../../core/markdown/comment.js";
import type { StateSeal } from "../state-codec.js";
import type { AdhocEntry as AdhocEvidence } from "../../core/systematise/evidence.js";

/**
 * Work people did by hand on an issue with no run waiting: `/record key=value` and `/note text`,
 * kept by the app in one comment of its own per issue, as the issue's ad-hoc trace. The visible
 * part is a table anyone can read; the hidden part is the same entries, sealed to the comment and
 * the issue like a run's state, so an edit of the comment is noticed and never believed.
 */
export const ADHOC_MARKER = "playbook-bot:adhoc";
const ADHOC_BLOCK = new RegExp(`<!-- ${ADHOC_MARKER} ([A-Za-z0-9_-]+)\\.([A-Za-z0-9_-]{43}) -->`);

/** One thing recorded by hand. `event`: the command's event id (a replay is recognised). */
export type AdhocEntry =
  | { kind: "record"; event: string; actor: string; at: string; key: string; value: string }
  | { kind: "note"; event: string; actor: string; at: string; text: string };

export interface AdhocLog {
  entries: AdhocEntry[];
  /** Entries dropped, oldest first, to keep the comment bounded. */
  dropped: number;
  /** When the app suggested `/systematise` on this issue (it does so once). */
  suggested?: string;
  /** The recorded findings that made it suggest it (so alike issues are not told again). */
  suggestedFor?: string[];
  /**
   * Raised by one each time the app writes the log (and remembered in the coordination store):
   * an earlier sealed body put back by an edit still verifies, its sequence gives it away.
   */
  seq?: number;
}

/** Bounds: the newest entries kept, and the longest key, value and note. */
export const MAX_ADHOC_ENTRIES = 200;
export const MAX_ADHOC_KEY = 64;
export const MAX_ADHOC_VALUE = 200;
export const MAX_ADHOC_NOTE = 500;
const MAX_EVENT_ID = 100;
/** The entries' JSON at most (its base64 copy then stays near 40,000 of a comment's 65,536 characters). */
const MAX_ADHOC_JSON = 30_000;
/** Entries shown in the table, each note cut for it. */
const SHOWN = 20;
const SHOWN_NOTE = 200;
const KEY = /^[A-Za-z0-9_-]{1,64}$/;
const LOGIN = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}(\[bot\])?$/;

/** A string cut to `max` characters, control characters (but none of the text) dropped. */
function bounded(value: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const clean = value.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "").replace(/\s+/g, " ");
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** An entry as kept: bounded, or undefined when it is not one. */
export function boundedEntry(e: unknown): AdhocEntry | undefined {
  if (typeof e !== "object" || e === null) return undefined;
  const o = e as Record<string, unknown>;
  const base =
    typeof o.event === "string" &&
    typeof o.actor === "string" &&
    LOGIN.test(o.actor) &&
    typeof o.at === "string" &&
    !Number.isNaN(Date.parse(o.at));
  if (!base) return undefined;
  const head = {
    event: (o.event as string).slice(0, MAX_EVENT_ID),
    actor: o.actor as string,
    at: new Date(o.at as string).toISOString(),
  };
  if (o.kind === "record" && typeof o.key === "string" && KEY.test(o.key)) {
    if (typeof o.value !== "string") return undefined;
    return { kind: "record", ...head, key: o.key, value: bounded(o.value, MAX_ADHOC_VALUE) };
  }
  if (o.kind === "note" && typeof o.text === "string" && o.text.trim() !== "")
    return { kind: "note", ...head, text: bounded(o.text, MAX_ADHOC_NOTE) };
  return undefined;
}

/** The log with `entries` added (those already there, by event and key, are not added twice). */
export function withEntries(log: AdhocLog, entries: readonly AdhocEntry[]): AdhocLog {
  const seen = new Set(log.entries.map(entryKey));
  const added = entries
    .map(boundedEntry)
    .filter((e): e is AdhocEntry => e !== undefined && !seen.has(entryKey(e)));
  const all = [...log.entries, ...added];
  let over = Math.max(0, all.length - MAX_ADHOC_ENTRIES);
  // The sealed copy must fit a comment beside the table: the oldest go first.
  let size = all.slice(over).reduce((n, e) => n + JSON.stringify(e).length + 1, 0);
  while (size > MAX_ADHOC_JSON && over < all.length) size -= JSON.stringify(all[over++]).length + 1;
  return { ...log, entries: all.slice(over), dropped: log.dropped + over };
}

function entryKey(e: AdhocEntry): string {
  return e.kind === "record" ? `${e.event}\0${e.key}` : `${e.event}\0`;
}

/** Whether the log already holds an entry of this event (a redelivered command). */
export function hasEvent(log: AdhocLog, event: string): boolean {
  return log.entries.some((e) => e.event === event);
}

function mac(payload: string, seal: StateSeal): string {
  return createHmac("sha256", seal.key)
    .update(`playbook-bot adhoc\0${seal.issue}\0${seal.comment}\0${payload}`)
    .digest("base64url");
}

/** Whether a comment body carries an ad-hoc block (verified or not). */
export function hasAdhocBlock(body: string): boolean {
  return body.includes(`<!-- ${ADHOC_MARKER} `);
}

/** The comment: a readable table of the newest entries, and the sealed block of all of them. */
export function renderAdhocComment(log: AdhocLog, seal: StateSeal): string {
  const payload = Buffer.from(JSON.stringify(log)).toString("base64url");
  const rows = log.entries
    .slice(-SHOWN)
    .map((e) => [
      e.at.slice(0, 16).replace("T", " "),
      untrusted(`@${e.actor}`),
      e.kind === "record"
        ? [code(`${e.key}=`), untrusted(e.value)]
        : untrusted(bounded(e.text, SHOWN_NOTE)),
    ]);
  const records = log.entries.filter((e) => e.kind === "record").length;
  const notes = log.entries.length - records;
  const readable = renderMarkdown(
    paragraph(
      strong("Work recorded by hand"),
      ` — ${records} finding${records === 1 ? "" : "s"}, ${notes} note${notes === 1 ? "" : "s"}${
        log.dropped > 0 ? ` (${log.dropped} older entries dropped)` : ""
      }. `,
      code("/record key=value"),
      " and ",
      code("/note text"),
      " add to it; ",
      code("/systematise <id>"),
      " drafts a playbook from this issue.",
    ),
    details(
      log.entries.length > SHOWN ? `The latest ${SHOWN} entries` : "Entries",
      table(["time (UTC)", "who", "what"], rows),
    ),
  );
  // The sealed block is appended as written (base64url may hold "--", which raw() refuses).
  return `${readable}\n\n<!-- ${ADHOC_MARKER} ${payload}.${mac(payload, seal)} -->`;
}

/**
 * The log in a comment, when its seal verifies for this comment and issue: undefined when the
 * comment carries none, `"tampered"` when it carries one that does not verify.
 */
export function readAdhocComment(body: string, seal: StateSeal): AdhocLog | "tampered" | undefined {
  return readBlock(body, seal);
}

/** The log in a comment without verifying its seal: for reading only (a trace export). */
export function readAdhocUnverified(body: string): AdhocLog | "tampered" | undefined {
  return readBlock(body, undefined);
}

function readBlock(body: string, seal: StateSeal | undefined): AdhocLog | "tampered" | undefined {
  const m = ADHOC_BLOCK.exec(body);
  if (!m) return hasAdhocBlock(body) ? "tampered" : undefined;
  const [, payload, given] = m as unknown as [string, string, string];
  if (seal) {
    const expected = Buffer.from(mac(payload, seal));
    const got = Buffer.from(given);
    if (expected.length !== got.length || !timingSafeEqual(expected, got)) return "tampered";
  }
  try {
    const o = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Partial<AdhocLog>;
    if (!Array.isArray(o.entries)) return "tampered";
    const log: AdhocLog = {
      entries: [],
      dropped: typeof o.dropped === "number" && o.dropped >= 0 ? Math.floor(o.dropped) : 0,
    };
    if (typeof o.seq === "number" && Number.isSafeInteger(o.seq) && o.seq > 0) log.seq = o.seq;
    if (typeof o.suggested === "string") log.suggested = o.suggested.slice(0, 40);
    if (Array.isArray(o.suggestedFor))
      log.suggestedFor = o.suggestedFor
        .filter((k): k is string => typeof k === "string" && KEY.test(k))
        .slice(0, 50);
    return withEntries(log, o.entries as AdhocEntry[]);
  } catch {
    return "tampered";
  }
}

/** The log's entries as the evidence `/systematise` and noticing read (no event ids). */
export function adhocEvidence(log: AdhocLog): AdhocEvidence[] {
  return log.entries.map((e) =>
    e.kind === "record"
      ? { kind: "record", key: e.key, value: e.value, actor: e.actor, at: e.at }
      : { kind: "note", text: e.text, actor: e.actor, at: e.at },
  );
}
