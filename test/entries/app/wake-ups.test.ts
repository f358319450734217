import { afterEach, describe, expect, it } from "vitest";
import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import { WakeUpTimer, type IssueWakeUp } from "../../../src/entries/app/wake-ups.js";

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
