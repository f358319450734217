import { describe, expect, it } from "vitest";
import type { Frame, RunState } from "../../src/core/engine/state.js";
import {
  RECONCILE_WINDOW_MS,
  isCommandComment,
  issueReplays,
  mayBeAnswered,
  runDueAt,
  type ReconcileComment,
  type ReconcileLabelEvent,
} from "../../src/runtime/reconcile.js";

const NOW = Date.parse("2026-03-02T12:00:00Z");
const SINCE = NOW - RECONCILE_WINDOW_MS;
const at = (minutesAgo: number) => new Date(NOW - minutesAgo * 60_000).toISOString();
const person = { login: "carol", type: "User" };

function comment(
  id: number,
  body: string,
  minutesAgo: number,
  extra: Partial<ReconcileComment> = {},
) {
  const created = at(minutesAgo);
  return { id, body, created_at: created, updated_at: created, user: person, ...extra };
}

function labelled(id: number, name: string, minutesAgo: number): ReconcileLabelEvent {
  return { id, event: "labeled", created_at: at(minutesAgo), actor: person, label: { name } };
}

function replays(
  comments: ReconcileComment[],
  more: Partial<Parameters<typeof issueReplays>[0]> = {},
) {
  return issueReplays({
    comments,
    labelEvents: [],
    answered: new Set(),
    answeredEvents: new Set(),
    ignoredLabels: new Set(),
    since: SINCE,
    ...more,
  }).map((r) => r.id);
}

describe("which comments are commands", () => {
  it("a person's comment with a command line, never edited", () => {
    expect(isCommandComment(comment(1, "/approve", 5))).toBe(true);
    expect(isCommandComment(comment(2, "looks good to me", 5))).toBe(false);
  });

  it("not a comment edited after it was written, even into a command", () => {
    const edited = comment(1, "/approve", 5, { updated_at: at(4) });
    expect(isCommandComment(edited)).toBe(false);
  });

  it("not a bot's, nor a deleted account's", () => {
    expect(
      isCommandComment(comment(1, "/approve", 5, { user: { login: "ci[bot]", type: "Bot" } })),
    ).toBe(false);
    expect(isCommandComment(comment(1, "/approve", 5, { user: null }))).toBe(false);
  });

  it("may have been answered only when a 🚀 or 👎 is counted on it", () => {
    expect(mayBeAnswered(comment(1, "/approve", 5, { reactions: { eyes: 1, rocket: 0 } }))).toBe(
      false,
    );
    expect(mayBeAnswered(comment(1, "/approve", 5, { reactions: { rocket: 1 } }))).toBe(true);
    expect(mayBeAnswered(comment(1, "/approve", 5, { reactions: { "-1": 2 } }))).toBe(true);
  });
});

describe("an issue's replays", () => {
  it("unanswered commands, oldest first, each under its comment's id", () => {
    const c = [
      comment(30, "/approve", 2),
      comment(10, "/run ship", 20),
      comment(20, "/status", 10),
    ];
    expect(replays(c)).toEqual(["comment-10", "comment-20", "comment-30"]);
  });

  it("skips answered commands, edited ones, bots' and plain comments", () => {
    const c = [
      comment(1, "/run ship", 30),
      comment(2, "/approve", 20, { updated_at: at(19) }),
      comment(3, "/approve", 10, { user: { login: "other[bot]", type: "Bot" } }),
      comment(4, "thanks", 5),
      comment(5, "/approve", 1),
    ];
    expect(replays(c, { answered: new Set([1]) })).toEqual(["comment-5"]);
  });

  it("only within the window", () => {
    const c = [comment(1, "/approve", 25 * 60), comment(2, "/approve", 23 * 60)];
    expect(replays(c)).toEqual(["comment-2"]);
  });

  it("labels among commands by time, the opening's under the opening's id; the waiting label and answered ones are left", () => {
    const events = [
      labelled(70, "playbook:ship", 15),
      labelled(71, "playbook-bot:waiting", 14),
      labelled(72, "playbook:deploy", 12),
      labelled(73, "playbook:triage", 60),
      { ...labelled(74, "x", 3), event: "unlabeled" },
    ];
    const ids = replays([comment(1, "/approve", 13), comment(2, "/status", 1)], {
      labelEvents: events,
      ignoredLabels: new Set(["playbook-bot:waiting"]),
      answeredEvents: new Set(["label-72"]),
      openedAt: NOW - 60 * 60_000,
    });
    // The label set with the opening is the one its `issues.opened` started (or answered).
    expect(ids).toEqual(["opening:playbook.3a.triage", "label-70", "comment-1", "comment-2"]);
    const answered = replays([], {
      labelEvents: events,
      ignoredLabels: new Set(["playbook-bot:waiting"]),
      answeredEvents: new Set(["label-72", "opening:playbook.3a.triage"]),
      openedAt: NOW - 60 * 60_000,
    });
    expect(answered).toEqual(["label-70"]);
  });
});

function runWith(frame: Partial<Frame>, status: RunState["status"] = "running"): RunState {
  return { status, stack: [{ phase: "pending", ...frame }] } as unknown as RunState;
}

describe("when a run needs carrying on", () => {
  const saved = NOW - 10_000;

  it("a step to enter, once its own continuation had its grace", () => {
    expect(runDueAt(runWith({ phase: "pending" }), saved, 30_000)).toBe(saved + 30_000);
    expect(runDueAt(runWith({ phase: "effect" }), saved, 0)).toBe(saved);
  });

  it("a retry when its backoff ends", () => {
    const later = new Date(NOW + 60_000).toISOString();
    expect(runDueAt(runWith({ phase: "pending", notBefore: later }), saved, 0)).toBe(NOW + 60_000);
  });

  it("never while it waits for people or outside events, nor once it ended", () => {
    expect(runDueAt(runWith({ phase: "approval" }), saved, 0)).toBeUndefined();
    expect(runDueAt(runWith({ phase: "waiting" }), saved, 0)).toBeUndefined();
    expect(runDueAt(runWith({ phase: "pending" }, "completed"), saved, 0)).toBeUndefined();
  });

  it("a fork whose one line has a step to enter", () => {
    const lanes = {
      "f#a": { fork: "f", current: "a", phase: "waiting", since: at(1), attempt: 1 },
      "f#b": { fork: "f", current: "b", phase: "pending", since: at(1), attempt: 1 },
    };
    expect(
      runDueAt(runWith({ phase: "waiting", lanes } as unknown as Partial<Frame>), saved, 0),
    ).toBe(saved);
  });
});
