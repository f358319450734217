import { describe, expect, it } from "vitest";
import { wakeAt } from "../../../src/core/engine/deadlines.js";
import type { Effect } from "../../../src/core/engine/events.js";
import { DAY, Driver, HOUR, MIN, SEC, T0, WRITER, bundle, yaml } from "./helpers.js";

/**
 * Every deadline of a run the engine knows: whatever event comes (a tick too early, a duplicate, a
 * command that changes nothing), its result says when the run next goes on by itself, so the app
 * can schedule that time again after it lost its wake-ups.
 */

const at = (ms: number) => new Date(T0.getTime() + ms).toISOString();

/** A checkpoint with a reminder and a timeout, and the playbook's own limits. */
function gate(opts: { reminder?: string; timeout?: string; limit?: string } = {}): string {
  return yaml`
    apiVersion: playbook-bot/v1
    id: gate
    ${opts.limit ? `limits: { timeout: ${opts.limit} }` : ""}
    steps:
      - id: ok
        type: checkpoint
        message: Go?
        approvers: { permission: maintain }
        ${opts.reminder ? `reminder: ${opts.reminder}` : ""}
        ${opts.timeout ? `timeout: ${opts.timeout}` : ""}
      - id: fin
        type: end
  `;
}

function waitingAt(text: string): Driver {
  const d = new Driver(bundle(text));
  d.start();
  d.drive();
  expect(d.frame.phase).toBe("waiting");
  return d;
}

describe("wakeAt: a waiting checkpoint", () => {
  it("is its reminder, then its timeout; a tick that comes early says so again", () => {
    const d = waitingAt(gate({ reminder: "1d", timeout: "3d" }));
    expect(d.last.wakeAt).toBe(at(DAY));
    expect(wakeAt(d.run, d.env)).toBe(at(DAY));
    // A tick hours early (a restart's scan) changes nothing but keeps the reminder's time.
    d.tick(2 * HOUR);
    const early = d.timeout();
    expect(early.changed).toBe(false);
    expect(early.wakeAt).toBe(at(DAY));
    // The reminder is sent; the timeout is next, and an early tick after it says so too.
    d.tick(DAY - 2 * HOUR);
    const reminded = d.timeout();
    expect(reminded.messages[0]?.kind).toBe("reminder");
    expect(reminded.wakeAt).toBe(at(3 * DAY));
    d.tick(HOUR);
    const again = d.timeout();
    expect(again.changed).toBe(false);
    expect(again.wakeAt).toBe(at(3 * DAY));
  });

  it("a timeout alone; duplicates and refused commands carry it as well", () => {
    const d = waitingAt(gate({ timeout: "2h" }));
    expect(d.last.wakeAt).toBe(at(2 * HOUR));
    const refused = d.command("approve", WRITER);
    expect(refused.changed).toBe(false);
    expect(refused.reply?.outcome).toBe("refused");
    expect(refused.wakeAt).toBe(at(2 * HOUR));
    const first = d.timeout();
    const duplicate = d.send({ type: "timeout", id: `t-${d.run.recentEvents.length}` });
    expect(first.wakeAt).toBe(at(2 * HOUR));
    expect(duplicate.wakeAt).toBe(at(2 * HOUR));
    const replayed = d.send({ type: "continue", id: "stale", seq: d.run.seq - 1 });
    expect(replayed.changed).toBe(false);
    expect(replayed.wakeAt).toBe(at(2 * HOUR));
  });

  it("a checkpoint with neither has no time of its own; a finished run has none", () => {
    const d = waitingAt(gate());
    expect(d.last.wakeAt).toBeUndefined();
    expect(d.timeout().wakeAt).toBeUndefined();
    d.command("approve", { login: "bob", permission: "maintain" });
    d.drive();
    expect(d.run.status).toBe("completed");
    expect(wakeAt(d.run, d.env)).toBeUndefined();
  });
});

describe("wakeAt: limits.timeout", () => {
  it("is the run's deadline when it comes first, from the run's start", () => {
    const d = waitingAt(gate({ reminder: "1d", timeout: "3d", limit: "2h" }));
    expect(d.last.wakeAt).toBe(at(2 * HOUR));
    d.tick(HOUR);
    const early = d.timeout();
    expect(early.changed).toBe(false);
    expect(early.wakeAt).toBe(at(2 * HOUR));
    d.tick(HOUR);
    d.timeout();
    expect(d.run.error?.code).toBe("PB-TIMEOUT");
    expect(d.last.wakeAt).toBeUndefined();
  });

  it("a nearer step deadline comes first", () => {
    const d = waitingAt(gate({ timeout: "30m", limit: "2h" }));
    expect(d.last.wakeAt).toBe(at(30 * MIN));
  });
});

const FLAKY = (limit?: string) => yaml`
  apiVersion: playbook-bot/v1
  id: flaky
  ${limit ? `limits: { timeout: ${limit} }` : ""}
  steps:
    - id: act
      type: comment
      body: hi
      on_error: retry:3
    - id: fin
      type: end
`;

describe("wakeAt: a retry's backoff", () => {
  it("is the backoff; an early continuation or tick says it again", () => {
    const d = new Driver(bundle(FLAKY()));
    d.start();
    d.drive();
    const failed = d.failEffect();
    expect(failed.wakeAt).toBe(at(2 * SEC));
    d.tick(SEC);
    expect(d.cont().wakeAt).toBe(at(2 * SEC));
    expect(d.timeout().wakeAt).toBe(at(2 * SEC));
  });

  it("limits.timeout before the backoff ends comes first", () => {
    const d = new Driver(bundle(FLAKY("1s")));
    d.start();
    d.drive();
    expect(d.failEffect().wakeAt).toBe(at(SEC));
  });
});

describe("wakeAt: parallel lanes", () => {
  const LANES = yaml`
    apiVersion: playbook-bot/v1
    id: lanes
    limits: { timeout: 1d }
    steps:
      - id: both
        type: parallel
        branches:
          slow:
            - { id: slow-gate, type: checkpoint, message: slow?, approvers: { permission: maintain }, reminder: 2h, timeout: 6h }
          quick:
            - { id: quick-gate, type: checkpoint, message: quick?, approvers: { permission: maintain }, timeout: 3h }
          flaky:
            - { id: say, type: comment, body: hi, on_error: "retry:3" }
      - id: fin
        type: end
  `;

  it("is the earliest of every lane's reminder, timeout and backoff, and of limits.timeout", () => {
    const d = new Driver(bundle(LANES));
    d.start();
    d.cont();
    const entered = d.cont();
    const say = entered.effects.find((e) => e.step === "say") as Effect;
    // The comment lane fails: its backoff (2 s) is the nearest.
    expect(d.failEffect("GH-ERROR", say.key).wakeAt).toBe(at(2 * SEC));
    d.tick(2 * SEC);
    const retried = d.timeout();
    const again = retried.effects.find((e) => e.step === "say") as Effect;
    d.answer({ id: "c1", url: "u1" }, again.key);
    // Left: the slow lane's reminder (2 h) before the quick lane's timeout (3 h).
    expect(d.last.wakeAt).toBe(at(2 * HOUR));
    d.tick(HOUR);
    const early = d.timeout();
    expect(early.changed).toBe(false);
    expect(early.wakeAt).toBe(at(2 * HOUR));
    d.tick(HOUR);
    expect(d.timeout().messages.map((m) => m.kind)).toEqual(["reminder"]);
    expect(d.last.wakeAt).toBe(at(3 * HOUR));
    d.tick(HOUR);
    d.timeout();
    // The quick lane timed out: the run fails (the parallel step's default join).
    expect(d.run.status).toBe("failed");
  });

  it("a lane's deadline counts only while the lane runs", () => {
    const d = new Driver(bundle(LANES));
    d.start();
    d.cont();
    const entered = d.cont();
    d.answer({ id: "c1", url: "u1" }, (entered.effects[0] as Effect).key);
    d.command("approve", { login: "bob", permission: "maintain" }, "quick-gate");
    // The quick lane ended: the slow lane's reminder and the day's limit are left.
    expect(d.frame.lanes?.["parallel:both#quick"]).toBeUndefined();
    expect(d.last.wakeAt).toBe(at(2 * HOUR));
    d.tick(2 * HOUR);
    d.timeout();
    expect(d.last.wakeAt).toBe(at(6 * HOUR));
  });
});

describe("wakeAt: other steps that wait, an ask-first gate, and a changed playbook", () => {
  it("a step of another kind that waits (for people's answers) times out by its `timeout`", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: slow
        steps:
          - { id: ask, type: investigate, description: ask, timeout: 1h }
          - { id: fin, type: end }
      `),
    );
    d.start();
    d.drive();
    expect(d.frame.phase).toBe("waiting");
    expect(d.last.wakeAt).toBe(at(HOUR));
    d.tick(10 * MIN);
    const early = d.timeout();
    expect(early.changed).toBe(false);
    expect(early.wakeAt).toBe(at(HOUR));
  });

  it("an ask-first step's timeout counts while it waits for approval", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: ask
        steps:
          - { id: say, type: comment, body: hi, authority: ask-first, timeout: 45m }
          - { id: fin, type: end }
      `),
    );
    d.start();
    d.cont();
    expect(d.frame.phase).toBe("approval");
    expect(d.last.wakeAt).toBe(at(45 * MIN));
  });

  it("a playbook that changed under the run leaves only its backoffs", () => {
    const d = waitingAt(gate({ timeout: "2h" }));
    const changed = { ...d.root, hash: "hash-2" };
    expect(wakeAt(d.run, { playbooks: () => changed })).toBeUndefined();
    // Pure: asking changes nothing.
    const before = structuredClone(d.run);
    wakeAt(d.run, d.env);
    expect(d.run).toEqual(before);
  });
});
