/**
 * One contract, two stores: every test runs against the in-memory store and against a real
 * redis-server. For Redis, `a` and `b` are two connections (two processes' view of one store); in
 * memory they are the same store, as two callers of one process see it.
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  COORDINATION_LIMITS,
  CoordinationError,
  LockLostError,
  LockTimeoutError,
  doOnce,
  type Coordination,
  type Fence,
  type WakeUp,
} from "../../../src/runtime/coordination.js";
import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import { RedisCoordination } from "../../../src/adapters/coordination/redis.js";
import { startRedis, type RedisServer } from "../../helpers/redis.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Keeps the thread busy: no timer (no lease renewal) runs meanwhile. */
function busy(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    /* spin */
  }
}

interface Pair {
  a: Coordination;
  b: Coordination;
}

let server: RedisServer | undefined;
const opened: Coordination[] = [];

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

const STORES: { name: string; open: () => Pair }[] = [
  {
    name: "memory",
    open: () => {
      const store = new MemoryCoordination();
      opened.push(store);
      return { a: store, b: store };
    },
  },
  {
    name: "redis",
    open: () => {
      // A prefix of its own per test: no test sees another's keys.
      const prefix = `t${randomUUID().slice(0, 8)}:`;
      const url = (server as RedisServer).url;
      const a = new RedisCoordination({ url, prefix });
      const b = new RedisCoordination({ url, prefix });
      opened.push(a, b);
      return { a, b };
    },
  },
];

describe.each(STORES)("coordination contract: $name", ({ name, open }) => {
  it(`is the ${name} store`, () => {
    expect(open().a.kind).toBe(name);
  });

  describe("locks", () => {
    it("lets one holder at a time in, across clients, and orders their fencing tokens", async () => {
      const { a, b } = open();
      let inside = 0;
      let most = 0;
      const tokens: number[] = [];
      // A read-modify-write through the store itself: lost updates would show in the count.
      await a.put("counter", 0, 60_000);
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (i % 2 ? a : b).withLock("issue:acme/app#1", async (fence: Fence) => {
            inside++;
            most = Math.max(most, inside);
            tokens.push(fence.token);
            const n = (await a.get<number>("counter")) ?? 0;
            await sleep(3);
            await b.put("counter", n + 1, 60_000);
            inside--;
          }),
        ),
      );
      expect(most).toBe(1);
      expect(await a.get("counter")).toBe(12);
      // Each later holder has a larger token.
      expect(tokens).toEqual([...tokens].sort((x, y) => x - y));
      expect(new Set(tokens).size).toBe(12);
    });

    it("different keys do not wait for each other", async () => {
      const { a, b } = open();
      const held = await a.acquire("k1", { leaseMs: 10_000 });
      const other = await b.acquire("k2", { waitMs: 0 });
      expect(other.token).toBeGreaterThan(held.token);
      expect(await other.release()).toBe(true);
      expect(await held.release()).toBe(true);
    });

    it("gives up with a clear error when the lock cannot be had within the wait", async () => {
      const { a, b } = open();
      const held = await a.acquire("busy", { leaseMs: 10_000 });
      const started = Date.now();
      const err = await b.acquire("busy", { waitMs: 150 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LockTimeoutError);
      expect(err).toMatchObject({ code: "COORD-LOCK-TIMEOUT" });
      expect((err as Error).message).toMatch(/lock on 'busy' could not be had within 150 ms/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(140);
      // withLock reports the same, and never runs its work.
      let ran = false;
      await expect(
        b.withLock("busy", async () => void (ran = true), { waitMs: 50 }),
      ).rejects.toBeInstanceOf(LockTimeoutError);
      expect(ran).toBe(false);
      await held.release();
      // Free again: the next caller gets it at once.
      await expect(b.withLock("busy", async () => "got it", { waitMs: 0 })).resolves.toBe("got it");
    });

    it("a lease not renewed expires; the next holder's token is larger; the old holder can neither renew nor release", async () => {
      const { a, b } = open();
      const first = await a.acquire("lease", { leaseMs: 150 });
      const second = await b.acquire("lease", { waitMs: 3_000, leaseMs: 10_000 });
      expect(second.token).toBeGreaterThan(first.token);
      expect(await first.renew()).toBe(false);
      expect(first.signal.aborted).toBe(true);
      expect(await first.release()).toBe(false);
      // The old holder's release did not free the new holder's lock.
      await expect(a.acquire("lease", { waitMs: 0 })).rejects.toBeInstanceOf(LockTimeoutError);
      expect(await second.renew()).toBe(true);
      expect(await second.release()).toBe(true);
      expect(await second.release()).toBe(false);
      const third = await a.acquire("lease", { waitMs: 0 });
      expect(third.token).toBeGreaterThan(second.token);
      await third.release();
    });

    it("withLock renews the lease while its work runs, and frees the lock when the work fails", async () => {
      const { a, b } = open();
      const work = a.withLock(
        "long",
        async () => {
          await sleep(1_000);
          return "done";
        },
        { leaseMs: 300 },
      );
      await sleep(700);
      // Two leases' time has passed: only renewal keeps the other client out.
      await expect(b.acquire("long", { waitMs: 50 })).rejects.toBeInstanceOf(LockTimeoutError);
      await expect(work).resolves.toBe("done");
      await expect(
        a.withLock("long", () => Promise.reject(new Error("work failed")), { waitMs: 0 }),
      ).rejects.toThrow("work failed");
      await expect(b.withLock("long", async () => 1, { waitMs: 0 })).resolves.toBe(1);
    });

    it("work whose lease ran out meanwhile fails with LockLostError, after another took the lock", async () => {
      const { a, b } = open();
      let signal: AbortSignal | undefined;
      const err = await a
        .withLock(
          "stalled",
          async (fence) => {
            signal = fence.signal;
            busy(400); // a stalled process: no renewal for more than the lease
            const taken = await b.acquire("stalled", { waitMs: 0, leaseMs: 10_000 });
            await sleep(150); // the renewal runs now, and finds the lock gone
            await taken.release();
            return "too late";
          },
          { leaseMs: 150 },
        )
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LockLostError);
      expect(err).toMatchObject({ code: "COORD-LOCK-LOST" });
      expect((err as Error).message).toMatch(/lock on 'stalled' was lost while the work ran/);
      expect(signal?.aborted).toBe(true);
    });
    it("confirm() before a write: passes while the lock is held, and throws once another took it over, before any renewal noticed", async () => {
      const { a, b } = open();
      const seen: string[] = [];
      const err = await a
        .withLock(
          "fenced",
          async (fence) => {
            await fence.confirm();
            seen.push("first write");
            busy(400); // stalled past the lease, no renewal ran
            const taken = await b.acquire("fenced", { waitMs: 0, leaseMs: 10_000 });
            try {
              await fence.confirm();
              seen.push("second write");
            } finally {
              await taken.release();
            }
          },
          { leaseMs: 150 },
        )
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LockLostError);
      expect(seen).toEqual(["first write"]);
    });
  });

  describe("done ids", () => {
    it("marks a delivery done only after its work succeeded; a copy meanwhile finds it done", async () => {
      const { a, b } = open();
      let runs = 0;
      await expect(
        doOnce(a, "delivery-1", "issue:1", 60_000, async () => {
          runs++;
          throw new Error("GitHub said 502");
        }),
      ).rejects.toThrow("502");
      expect(await b.isDone("delivery-1")).toBe(false);
      const work = async () => {
        runs++;
        await sleep(20);
        return "handled";
      };
      const both = await Promise.all([
        doOnce(a, "delivery-1", "issue:1", 60_000, work),
        doOnce(b, "delivery-1", "issue:1", 60_000, work),
      ]);
      expect(both).toContainEqual({ duplicate: false, value: "handled" });
      expect(both).toContainEqual({ duplicate: true });
      expect(runs).toBe(2);
      expect(await a.isDone("delivery-1")).toBe(true);
      expect(await doOnce(b, "delivery-1", "issue:1", 60_000, work)).toEqual({ duplicate: true });
      expect(runs).toBe(2);
    });

    it("does not mark done work whose lock was lost meanwhile", async () => {
      const { a, b } = open();
      const err = await doOnce(
        a,
        "delivery-stalled",
        "issue:2",
        60_000,
        async () => {
          busy(400);
          await sleep(150);
        },
        { leaseMs: 150 },
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LockLostError);
      expect(await b.isDone("delivery-stalled")).toBe(false);
    });

    it("forgets a done id after its time to live", async () => {
      const { a, b } = open();
      await a.markDone("short", 100);
      expect(await b.isDone("short")).toBe(true);
      await sleep(250);
      expect(await b.isDone("short")).toBe(false);
    });
  });

  describe("records", () => {
    it("stores JSON, shared between clients, until deleted or expired", async () => {
      const { a, b } = open();
      const record = {
        issue: 12,
        url: "https://github.com/acme/app/issues/12",
        fired: 2,
        ok: true,
      };
      await a.put("alert:acme/app:abc", record, 60_000);
      expect(await b.get("alert:acme/app:abc")).toEqual(record);
      expect(await b.get("absent")).toBeUndefined();
      // What a caller does to a value it read changes nothing stored.
      const read = (await a.get<typeof record>("alert:acme/app:abc")) as typeof record;
      read.fired = 99;
      expect(await b.get("alert:acme/app:abc")).toEqual(record);
      await b.delete("alert:acme/app:abc");
      expect(await a.get("alert:acme/app:abc")).toBeUndefined();
      await a.put("brief", ["x"], 100);
      expect(await b.get("brief")).toEqual(["x"]);
      await sleep(250);
      expect(await b.get("brief")).toBeUndefined();
    });

    it("keeps long keys apart and values bounded; refuses what is not JSON or a bad time to live", async () => {
      const { a, b } = open();
      const long = "k".repeat(5_000);
      await a.put(`${long}1`, 1, 60_000);
      await a.put(`${long}2`, 2, 60_000);
      expect(await b.get(`${long}1`)).toBe(1);
      expect(await b.get(`${long}2`)).toBe(2);
      const big = "x".repeat(COORDINATION_LIMITS.valueBytes);
      await expect(a.put("big", big, 60_000)).rejects.toMatchObject({
        code: "COORD-BAD-INPUT",
        message: expect.stringMatching(/at most 262144 bytes as JSON/),
      });
      await expect(a.put("nothing", undefined, 60_000)).rejects.toThrow(/must be JSON/);
      await expect(a.put("n", 10n, 60_000)).rejects.toThrow(/must be JSON/);
      await expect(a.put("k", 1, 0)).rejects.toThrow(/ttlMs must be a whole number/);
      await expect(a.put("k", 1, 1.5)).rejects.toBeInstanceOf(CoordinationError);
      await expect(a.get("")).rejects.toThrow(/non-empty string/);
    });
  });

  describe("monotonic counters", () => {
    it("raiseTo never goes back and says when a number was behind", async () => {
      const { a, b } = open();
      expect(await a.raiseTo("seq:run-1", 5, 60_000)).toEqual({ behind: false, highest: 5 });
      expect(await b.raiseTo("seq:run-1", 3, 60_000)).toEqual({ behind: true, highest: 5 });
      expect(await b.raiseTo("seq:run-1", 5, 60_000)).toEqual({ behind: false, highest: 5 });
      expect(await a.raiseTo("seq:run-1", 8, 60_000)).toEqual({ behind: false, highest: 8 });
      // Racing raises from both clients end at the largest.
      const ns = Array.from({ length: 40 }, (_, i) => (i * 17) % 40);
      await Promise.all(ns.map((n, i) => (i % 2 ? a : b).raiseTo("seq:race", n, 60_000)));
      expect(await a.raiseTo("seq:race", 0, 60_000)).toEqual({ behind: true, highest: 39 });
      await expect(a.raiseTo("seq:bad", -1, 60_000)).rejects.toMatchObject({
        code: "COORD-BAD-INPUT",
      });
      await expect(a.raiseTo("seq:bad", 1.5, 60_000)).rejects.toThrow(/whole number/);
    });

    it("a counter expires with its time to live", async () => {
      const { a } = open();
      await a.raiseTo("seq:short", 9, 100);
      await sleep(250);
      expect(await a.raiseTo("seq:short", 1, 60_000)).toEqual({ behind: false, highest: 1 });
    });
  });

  describe("budgets", () => {
    it("spends at most `count` uses in any window, shared by the clients", async () => {
      const { a, b } = open();
      const budget = { count: 2, windowMs: 1_000 };
      const t = 1_700_000_000_000;
      expect(await a.spend("replies:alice", budget, t)).toBe(true);
      expect(await b.spend("replies:alice", budget, t + 10)).toBe(true);
      expect(await a.spend("replies:alice", budget, t + 20)).toBe(false);
      expect(await b.spend("replies:bob", budget, t + 20)).toBe(true);
      expect(await a.spend("replies:alice", budget, t + 999)).toBe(false);
      // The first use leaves the window: one more.
      expect(await b.spend("replies:alice", budget, t + 1_000)).toBe(true);
      expect(await a.spend("replies:alice", budget, t + 1_001)).toBe(false);
      expect(await a.spend("none", { count: 0, windowMs: 1_000 }, t)).toBe(false);
      await expect(a.spend("x", { count: -1, windowMs: 1_000 }, t)).rejects.toThrow(/count/);
      await expect(a.spend("x", budget, Number.NaN)).rejects.toThrow(/epoch milliseconds/);
    });
  });

  describe("sets", () => {
    it("holds members (no duplicates) that expire, keeping the newest within the limit", async () => {
      const { a, b } = open();
      await a.addToSet("awaited:acme/app:test.yml", "12", 60_000);
      await b.addToSet("awaited:acme/app:test.yml", "7", 60_000);
      await a.addToSet("awaited:acme/app:test.yml", "12", 60_000);
      expect((await b.members("awaited:acme/app:test.yml")).sort()).toEqual(["12", "7"]);
      expect(await a.members("awaited:none")).toEqual([]);
      await a.addToSet("short", "1", 100);
      await a.addToSet("short", "2", 60_000);
      await sleep(250);
      expect(await b.members("short")).toEqual(["2"]);
      const most = COORDINATION_LIMITS.setMembers;
      for (let i = 0; i < most + 5; i++) await a.addToSet("many", `m${i}`, 60_000);
      const kept = await b.members("many");
      expect(kept).toHaveLength(most);
      expect(kept).toContain(`m${most + 4}`);
      await expect(a.addToSet("many", "", 60_000)).rejects.toThrow(/set member/);
    });
  });

  describe("wake-ups", () => {
    const T = 1_700_000_000_000;
    /** What was scheduled, without the claim. */
    const plain = (ws: WakeUp[]) => ws.map(({ key, at, payload }) => ({ key, at, payload }));

    it("hands out due wake-ups oldest first, each once; moves and cancels them", async () => {
      const { a, b } = open();
      const long = `timer:${"x".repeat(400)}`;
      await a.schedule("timer:1", T + 3_000, { issue: 1 });
      await a.schedule("timer:2", T + 1_000, { issue: 2, step: "wait" });
      await b.schedule(long, T + 2_000, null);
      await b.schedule("timer:gone", T + 500, "x");
      await a.cancel("timer:gone");
      expect(await a.due(T)).toEqual([]);
      expect(plain(await b.due(T + 2_000))).toEqual([
        { key: "timer:2", at: T + 1_000, payload: { issue: 2, step: "wait" } },
        { key: long, at: T + 2_000, payload: null },
      ]);
      expect(await a.due(T + 2_000)).toEqual([]);
      // Scheduling a key again moves it.
      await b.schedule("timer:1", T + 10_000, { issue: 1, again: true });
      expect(await a.due(T + 5_000)).toEqual([]);
      expect(plain(await a.due(T + 10_000, 5))).toEqual([
        { key: "timer:1", at: T + 10_000, payload: { issue: 1, again: true } },
      ]);
      await expect(a.schedule("", T, 1)).rejects.toThrow(/wake-up key/);
      await expect(a.schedule("k", Number.NaN, 1)).rejects.toThrow(/epoch milliseconds/);
    });

    it("two competing claimers get every due wake-up exactly once between them", async () => {
      const { a, b } = open();
      const n = 150;
      for (let i = 0; i < n; i++) await (i % 2 ? a : b).schedule(`w:${i}`, T + i, { i });
      const claimed: string[][] = [[], []];
      await Promise.all(
        [a, b].map(async (store, who) => {
          for (;;) {
            const batch = await store.due(T + n, 7);
            if (batch.length === 0) return;
            claimed[who]?.push(...batch.map((w) => w.key));
            await sleep(0);
          }
        }),
      );
      const all = [...(claimed[0] ?? []), ...(claimed[1] ?? [])];
      expect(all).toHaveLength(n);
      expect(new Set(all).size).toBe(n);
      expect(await a.due(T + n)).toEqual([]);
    });

    it("a claimed wake-up stays: due again under a new claim once its lease ran out", async () => {
      const { a, b } = open();
      await a.schedule("w", T, { issue: 7 });
      const [first] = await a.due(T, 10, 1_000);
      expect(first).toMatchObject({ key: "w", at: T, payload: { issue: 7 }, tries: 0 });
      // Held while the lease lasts, by nobody else.
      expect(await b.due(T + 999)).toEqual([]);
      // The claimer died: the lease runs out, another takes it, with the time it was set for.
      const [second] = await b.due(T + 1_000, 10, 1_000);
      expect(second).toMatchObject({ key: "w", at: T, payload: { issue: 7 }, tries: 0 });
      expect(second?.claim).not.toBe(first?.claim);
      // The first claim is over: it neither completes, extends nor releases the wake-up.
      expect(await a.complete("w", first?.claim ?? "")).toBe(false);
      expect(await a.extendClaim("w", first?.claim ?? "", T + 99_000)).toBe(false);
      expect(await a.release("w", first?.claim ?? "", T)).toBe(false);
      expect(await a.due(T + 1_999)).toEqual([]);
      // Its holder completes it: gone for good.
      expect(await b.complete("w", second?.claim ?? "")).toBe(true);
      expect(await a.due(T + 10_000_000)).toEqual([]);
      expect(await b.complete("w", second?.claim ?? "")).toBe(false);
    });

    it("a released wake-up is due at its retry time, with one more try; only its claim releases it", async () => {
      const { a, b } = open();
      await a.schedule("w", T, "p");
      const [claimed] = await a.due(T);
      const claim = claimed?.claim ?? "";
      expect(await b.release("w", "not-the-claim", T + 10)).toBe(false);
      expect(await b.release("w", claim, T + 5_000)).toBe(true);
      expect(await a.release("w", claim, T + 5_000)).toBe(false);
      expect(await a.due(T + 4_999)).toEqual([]);
      const [again] = await b.due(T + 5_000);
      expect(again).toMatchObject({ key: "w", at: T, payload: "p", tries: 1 });
      expect(await b.release("w", again?.claim ?? "", T + 6_000)).toBe(true);
      const [third] = await a.due(T + 6_000);
      expect(third?.tries).toBe(2);
      expect(await a.complete("w", third?.claim ?? "")).toBe(true);
    });

    it("an extended claim holds on; a schedule or a cancel meanwhile ends the claim", async () => {
      const { a, b } = open();
      await a.schedule("w", T, { n: 1 });
      const [held] = await a.due(T, 10, 1_000);
      expect(await a.extendClaim("w", held?.claim ?? "", T + 100_000)).toBe(true);
      expect(await b.due(T + 99_999)).toEqual([]);
      // The run saved its next wake-up while the claim ran: that one stays, the claim is over.
      await b.schedule("w", T + 200_000, { n: 2 });
      expect(await a.complete("w", held?.claim ?? "")).toBe(false);
      expect(await a.due(T + 199_999)).toEqual([]);
      const [next] = await a.due(T + 200_000);
      expect(next).toMatchObject({ at: T + 200_000, payload: { n: 2 }, tries: 0 });
      await b.cancel("w");
      expect(await a.release("w", next?.claim ?? "", T)).toBe(false);
      expect(await a.due(T + 10_000_000)).toEqual([]);
    });

    it("two claimers never both hold a wake-up, round after round of expiring leases", async () => {
      const { a, b } = open();
      await a.schedule("w", T, null);
      const claims: string[] = [];
      for (let round = 0; round < 30; round++) {
        // Both ask at once, each time the last lease (10 ms) has just run out.
        const now = T + round * 10;
        const [x, y] = await Promise.all([a.due(now, 10, 10), b.due(now, 10, 10)]);
        const got = [...(x ?? []), ...(y ?? [])];
        expect(got).toHaveLength(1);
        claims.push(got[0]?.claim ?? "");
      }
      expect(new Set(claims).size).toBe(claims.length);
      // Only the last claim holds it.
      for (const old of claims.slice(0, -1)) expect(await b.complete("w", old)).toBe(false);
      expect(await a.complete("w", claims.at(-1) ?? "")).toBe(true);
    });
  });
});
