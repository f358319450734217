import { afterEach, describe, expect, it } from "vitest";
import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import { WakeUpTimer, type IssueWakeUp } from "../../../src/runtime/run-service/wake-ups.js";

/** The process's timer on its own: the precise timeout, moved times, and stop. */

const ADDRESS: IssueWakeUp = {
  installation: 1,
  repository: 2,
  owner: "o",
  repo: "r",
  defaultBranch: "main",
  issue: 3,
  run: "run-1",
};

const timers: WakeUpTimer[] = [];
afterEach(async () => {
  for (const t of timers.splice(0)) await t.stop();
});

function timerOn(store: MemoryCoordination, delivered: number[], precise = true) {
  const timer = new WakeUpTimer({
    store,
    clock: () => new Date(),
    deliver: async (_wake, at) => void delivered.push(at),
    log: () => undefined,
    pollMs: 3_600_000, // no polling within a test: only the precise timeout can fire
    precise,
  });
  timers.push(timer);
  return timer;
}

describe("the wake-up timer", () => {
  it("fires by itself for a wake-up moved later after it armed for the earlier time", async () => {
    const store = new MemoryCoordination();
    const delivered: number[] = [];
    const timer = timerOn(store, delivered);
    timer.start();
    const first = Date.now() + 50;
    await store.schedule("wake:k", first, ADDRESS);
    timer.arm(first);
    // A later save moves the same wake-up: the timeout set for `first` finds nothing due.
    const moved = first + 150;
    await store.schedule("wake:k", moved, ADDRESS);
    timer.arm(moved);
    await expect.poll(() => delivered, { timeout: 3000, interval: 20 }).toEqual([moved]);
  });

  it("an unstarted or stopped timer arms nothing", async () => {
    const store = new MemoryCoordination();
    const delivered: number[] = [];
    const unstarted = timerOn(store, delivered);
    const at = Date.now() + 20;
    await store.schedule("wake:k", at, ADDRESS);
    unstarted.arm(at);
    const stopped = timerOn(store, delivered);
    stopped.start();
    await stopped.stop();
    stopped.arm(at);
    await new Promise((r) => setTimeout(r, 150));
    expect(delivered).toEqual([]);
    expect(await stopped.runDue()).toBe(0);
    // The wake-up is still there for a timer that runs.
    expect(await unstarted.runDue()).toBe(1);
    expect(delivered).toEqual([at]);
  });
});

/** A clock the test sets. */
function manualClock(start = 1_800_000_000_000) {
  let t = start;
  const clock = () => new Date(t);
  return Object.assign(clock, { set: (ms: number) => void (t = ms) });
}

/** A connection refused, the way Node's fetch reports it: the code is on the cause. */
function refused(): Error {
  const cause = Object.assign(new Error("connect ECONNREFUSED 140.82.112.6:443"), {
    code: "ECONNREFUSED",
  });
  return new TypeError("fetch failed", { cause });
}

function replicaTimer(
  store: MemoryCoordination,
  clock: () => Date,
  deliver: (wake: IssueWakeUp, at: number) => Promise<void>,
  extra: { random?: () => number; leaseMs?: number } = {},
) {
  const timer = new WakeUpTimer({
    store,
    clock,
    deliver,
    log: () => undefined,
    pollMs: 3_600_000,
    precise: false,
    random: extra.random ?? (() => 0),
    ...(extra.leaseMs ? { leaseMs: extra.leaseMs } : {}),
  });
  timers.push(timer);
  return timer;
}

describe("a tick that fails", () => {
  const T = 1_800_000_000_000;

  it("gives its wake-up back with a doubling backoff; it fires once, for its own time, when a tick succeeds", async () => {
    const store = new MemoryCoordination();
    const clock = manualClock(T);
    const tried: number[] = [];
    let failures = 2;
    const timer = replicaTimer(store, clock, async (_wake, at) => {
      tried.push(clock().getTime());
      if (failures-- > 0) throw new Error("the issue's lock is held by another event");
      expect(at).toBe(T);
    });
    await store.schedule("wake:k", T, ADDRESS);
    expect(await timer.runDue()).toBe(0);
    // Back after 5 s (no jitter drawn), then after 10 s; not before.
    clock.set(T + 4_999);
    expect(await timer.runDue()).toBe(0);
    clock.set(T + 5_000);
    expect(await timer.runDue()).toBe(0);
    clock.set(T + 14_999);
    expect(await timer.runDue()).toBe(0);
    clock.set(T + 15_000);
    expect(await timer.runDue()).toBe(1);
    expect(tried).toEqual([T, T + 5_000, T + 15_000]);
    // Delivered: gone from the store.
    clock.set(T + 10 * 3_600_000);
    expect(await timer.runDue()).toBe(0);
    expect(tried).toHaveLength(3);
  });

  it("jitter takes up to half of the backoff off, never more", async () => {
    const store = new MemoryCoordination();
    const clock = manualClock(T);
    const tried: number[] = [];
    const timer = replicaTimer(
      store,
      clock,
      async () => {
        tried.push(clock().getTime());
        throw new Error("GitHub answered 422");
      },
      { random: () => 1 },
    );
    await store.schedule("wake:k", T, ADDRESS);
    await timer.runDue();
    clock.set(T + 2_499);
    await timer.runDue();
    clock.set(T + 2_500);
    await timer.runDue();
    expect(tried).toEqual([T, T + 2_500]);
  });

  it("a replica that cannot reach GitHub gives its claims back at once and stops claiming; a healthy one does the work", async () => {
    const store = new MemoryCoordination();
    const clock = manualClock(T);
    const sick: number[] = [];
    const healthy: number[] = [];
    let down = true;
    const a = replicaTimer(store, clock, async (wake) => {
      sick.push(wake.issue);
      if (down) throw refused();
    });
    const b = replicaTimer(store, clock, async (wake) => void healthy.push(wake.issue));
    for (const issue of [1, 2, 3])
      await store.schedule(`wake:${issue}`, T + issue, { ...ADDRESS, issue });
    clock.set(T + 10);
    // The sick replica claims all three, fails the first and gives all back at once.
    expect(await a.runDue()).toBe(0);
    expect(sick).toEqual([1]);
    expect(await b.runDue()).toBe(3);
    expect(healthy).toEqual([1, 2, 3]);
    // For its pause (5 s) it claims nothing, even what is due.
    await store.schedule("wake:4", T + 20, { ...ADDRESS, issue: 4 });
    clock.set(T + 5_009);
    expect(await a.runDue()).toBe(0);
    expect(sick).toEqual([1]);
    // After it, one wake-up at a time (a probe) until a tick succeeds again.
    await store.schedule("wake:5", T + 30, { ...ADDRESS, issue: 5 });
    down = false;
    clock.set(T + 5_010);
    expect(await a.runDue()).toBe(1);
    expect(await a.runDue()).toBe(1);
    expect(sick).toEqual([1, 4, 5]);
  });

  it("a claim is renewed while a long tick runs: another replica does not take it meanwhile", async () => {
    const store = new MemoryCoordination();
    const clock = () => new Date();
    let ticks = 0;
    const slow = replicaTimer(
      store,
      clock,
      async () => {
        ticks++;
        await new Promise((r) => setTimeout(r, 400));
      },
      { leaseMs: 90 },
    );
    const other = replicaTimer(store, clock, async () => void ticks++, { leaseMs: 90 });
    await store.schedule("wake:k", Date.now(), ADDRESS);
    const running = slow.runDue();
    // Well past the first lease's end, the claim still holds.
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setTimeout(r, 50));
      expect(await other.runDue()).toBe(0);
    }
    expect(await running).toBe(1);
    expect(ticks).toBe(1);
    expect(await other.runDue()).toBe(0);
  });
});
