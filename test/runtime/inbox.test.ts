import { afterEach, describe, expect, it } from "vitest";
import { MemoryCoordination } from "../../src/adapters/coordination/memory.js";
import { MemoryInbox } from "../../src/adapters/inbox/memory.js";
import { doOnce } from "../../src/runtime/coordination.js";
import {
  InboxWorker,
  retryDelay,
  type InboxDelivery,
  type InboxEntry,
  type InboxWorkerOptions,
} from "../../src/runtime/inbox.js";

const delivery = (id: string, action = "labeled"): InboxDelivery => ({
  id,
  name: "issues",
  payload: { action, issue: { number: 1 } },
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function until(what: string, check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(5);
  }
}

const workers: InboxWorker[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) {
    await w.stop();
    await w.settle(1_000);
  }
});

function startWorker(
  inbox: MemoryInbox,
  handle: (d: InboxDelivery) => Promise<void>,
  options: InboxWorkerOptions = {},
): InboxWorker {
  const worker = new InboxWorker(inbox, handle, { pollMs: 20, ...options });
  workers.push(worker);
  worker.start();
  return worker;
}

describe("the inbox worker, on the memory inbox", () => {
  it("runs each delivery's handler and acknowledges it after success", async () => {
    const inbox = new MemoryInbox();
    const seen: string[] = [];
    const done: string[] = [];
    startWorker(
      inbox,
      (d) => {
        seen.push(`${d.id}:${String(d.payload.action)}`);
        return Promise.resolve();
      },
      { observer: { done: (e) => done.push(e.id) } },
    );
    await inbox.enqueue(delivery("a"));
    await inbox.enqueue(delivery("b", "opened"));
    await until("both done", () => done.length === 2);
    expect(seen).toEqual(["a:labeled", "b:opened"]);
    expect(inbox.size).toBe(0);
  });

  it("retries a failure with a doubling backoff, then acknowledges the success", async () => {
    const inbox = new MemoryInbox();
    let calls = 0;
    const delays: number[] = [];
    const attempts: number[] = [];
    startWorker(
      inbox,
      () => {
        calls++;
        return calls < 3 ? Promise.reject(new Error(`GitHub hung (${calls})`)) : Promise.resolve();
      },
      {
        retryBaseMs: 40,
        observer: {
          retry: (e, _err, delayMs) => {
            attempts.push(e.attempt);
            delays.push(delayMs);
          },
        },
      },
    );
    const started = Date.now();
    await inbox.enqueue(delivery("slow"));
    await until("third try", () => calls === 3 && inbox.size === 0);
    expect(attempts).toEqual([0, 1]);
    // 40 ms then 80 ms, each within the ±20% jitter.
    expect(delays[0]).toBeGreaterThanOrEqual(32);
    expect(delays[0]).toBeLessThanOrEqual(48);
    expect(delays[1]).toBeGreaterThanOrEqual(64);
    expect(delays[1]).toBeLessThanOrEqual(96);
    // The retries waited for their delays.
    expect(Date.now() - started).toBeGreaterThanOrEqual((delays[0] ?? 0) + (delays[1] ?? 0) - 5);
  });

  it("records a delivery that fails every try as dead, once, and drops nothing silently", async () => {
    const inbox = new MemoryInbox();
    let calls = 0;
    const dead: InboxEntry[] = [];
    startWorker(
      inbox,
      () => {
        calls++;
        return Promise.reject(new Error("the role lookup failed"));
      },
      { retryBaseMs: 5, maxAttempts: 3, observer: { dead: (e) => dead.push(e) } },
    );
    await inbox.enqueue(delivery("doomed"));
    await until("dead", () => dead.length === 1);
    await sleep(50);
    expect(calls).toBe(3);
    expect(dead).toHaveLength(1);
    expect(inbox.size).toBe(0);
    expect(inbox.deadLetters).toEqual([
      expect.objectContaining({
        id: "doomed",
        name: "issues",
        attempts: 3,
        reason: "3 tries failed; the last: the role lookup failed",
      }) as unknown,
    ]);
  });

  it("works on at most `concurrency` entries at once", async () => {
    const inbox = new MemoryInbox();
    let running = 0;
    let most = 0;
    let finished = 0;
    startWorker(
      inbox,
      async () => {
        running++;
        most = Math.max(most, running);
        await sleep(30);
        running--;
        finished++;
      },
      { concurrency: 2 },
    );
    for (let i = 0; i < 6; i++) await inbox.enqueue(delivery(`d${i}`));
    await until("all six", () => finished === 6);
    expect(most).toBe(2);
  });

  it("does a delivery taken twice once: the dedupe by delivery id stays", async () => {
    const inbox = new MemoryInbox();
    const coordination = new MemoryCoordination();
    let work = 0;
    let handled = 0;
    startWorker(inbox, async (d) => {
      await doOnce(coordination, d.id, `delivery:${d.id}`, 60_000, () => {
        work++;
        return Promise.resolve();
      });
      handled++;
    });
    await inbox.enqueue(delivery("twice"));
    await inbox.enqueue(delivery("twice"));
    await until("both handled", () => handled === 2);
    expect(work).toBe(1);
  });

  it("on a drain stops taking, lets quick work finish, and hands the rest back for another worker", async () => {
    const inbox = new MemoryInbox();
    let release: () => void = () => undefined;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    const first = startWorker(inbox, (d) => (d.id === "stuck" ? stuck : sleep(10)));
    await inbox.enqueue(delivery("stuck"));
    await inbox.enqueue(delivery("quick"));
    await until("both taken", () => first.busy === 2);
    await first.stop();
    await inbox.enqueue(delivery("after-stop"));
    const unfinished = await first.settle(100);
    expect(unfinished.map((e) => e.id)).toEqual(["stuck"]);
    const given = await first.handBack();
    expect(given.map((e) => e.id)).toEqual(["stuck"]);
    // Neither the stuck one nor the one stored after the stop is lost: another worker takes both.
    const second: string[] = [];
    startWorker(inbox, (d) => {
      second.push(d.id);
      return Promise.resolve();
    });
    await until("second worker", () => second.length === 2);
    expect(second.sort()).toEqual(["after-stop", "stuck"]);
    release();
    await until("empty", () => inbox.size === 0);
  });

  it("stops taking at once even while every slot is busy", async () => {
    const inbox = new MemoryInbox();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const worker = startWorker(inbox, () => held, { concurrency: 1 });
    await inbox.enqueue(delivery("busy"));
    await until("taken", () => worker.busy === 1);
    const since = Date.now();
    await worker.stop();
    expect(Date.now() - since).toBeLessThan(200);
    expect(worker.busy).toBe(1);
    release();
  });

  it("does not run an entry it already works on when the inbox hands it out again", async () => {
    const inbox = new MemoryInbox();
    const take = inbox.take.bind(inbox);
    let last: InboxEntry | undefined;
    // The inbox hands the entry in work out again (as Redis would after a late touch).
    inbox.take = async (max, wait) => {
      const got = await take(max, wait);
      if (got[0]) last = got[0];
      return got.length || !last ? got : [last];
    };
    let runs = 0;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    startWorker(inbox, () => {
      runs++;
      return held;
    });
    await inbox.enqueue(delivery("once"));
    await sleep(150);
    expect(runs).toBe(1);
    release();
  });

  it("keeps taking after the inbox failed to hand out entries", async () => {
    const inbox = new MemoryInbox();
    const take = inbox.take.bind(inbox);
    let failures = 2;
    inbox.take = (max, wait) =>
      failures-- > 0 ? Promise.reject(new Error("Redis is down")) : take(max, wait);
    const trouble: string[] = [];
    const seen: string[] = [];
    startWorker(
      inbox,
      (d) => {
        seen.push(d.id);
        return Promise.resolve();
      },
      { observer: { trouble: (what, err) => trouble.push(`${what}: ${(err as Error).message}`) } },
    );
    await inbox.enqueue(delivery("late"));
    await until("taken", () => seen.length === 1);
    expect(trouble).toEqual(["take entries: Redis is down", "take entries: Redis is down"]);
  });
});

describe("the memory inbox", () => {
  it("refuses to store once closed, and says so for /readyz", async () => {
    const inbox = new MemoryInbox();
    expect(await inbox.unwritable()).toBeUndefined();
    await inbox.close();
    expect(await inbox.unwritable()).toBe("the inbox is closed");
    await expect(inbox.enqueue(delivery("late"))).rejects.toThrow("the inbox is closed");
  });

  it("ignores an acknowledgement, retry or hand-back of an entry it no longer holds", async () => {
    const inbox = new MemoryInbox();
    await inbox.enqueue(delivery("one"));
    const [entry] = await inbox.take(1, 0);
    if (!entry) throw new Error("nothing taken");
    await inbox.touch();
    await inbox.ack(entry);
    await inbox.retryAt(entry, 0);
    await inbox.giveBack(entry);
    expect(inbox.size).toBe(0);
    expect(await inbox.take(5, 0)).toEqual([]);
  });

  it("keeps the newest 1000 dead deliveries", async () => {
    let t = 0;
    const inbox = new MemoryInbox(() => ++t);
    for (let i = 0; i < 1_005; i++) await inbox.enqueue(delivery(`d${i}`));
    for (const e of await inbox.take(2_000, 0)) await inbox.dead(e, "gone");
    expect(inbox.deadLetters).toHaveLength(1_000);
    expect(inbox.deadLetters[0]).toMatchObject({ id: "d5", attempts: 1, reason: "gone" });
  });
});

describe("retryDelay", () => {
  it("doubles from the base and stops at the cap", () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 10].map((n) => retryDelay(n, 1_000, 5_000, mid))).toEqual([
      1_000, 2_000, 4_000, 5_000, 5_000,
    ]);
    expect(retryDelay(1, 1_000, 5_000, () => 0)).toBe(800);
    expect(retryDelay(1, 1_000, 5_000, () => 1)).toBe(1_200);
  });
});
