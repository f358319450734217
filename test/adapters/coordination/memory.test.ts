/** What only the in-memory store does: its own clock, its size bounds, and closing. */
import { describe, expect, it } from "vitest";
import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import {
  COORDINATION_LIMITS,
  LockTimeoutError,
  boundedKey,
} from "../../../src/runtime/coordination.js";

function clocked() {
  const clock = { now: 1_000_000 };
  return { clock, store: new MemoryCoordination({ now: () => clock.now, maxEntries: 3 }) };
}

describe("MemoryCoordination", () => {
  it("measures time to live and leases by its clock", async () => {
    const { clock, store } = clocked();
    await store.put("r", "v", 1_000);
    await store.markDone("d", 1_000);
    await store.addToSet("s", "m", 1_000);
    const lease = await store.acquire("l", { leaseMs: 1_000 });
    clock.now += 999;
    expect(await store.get("r")).toBe("v");
    expect(await store.isDone("d")).toBe(true);
    expect(await store.members("s")).toEqual(["m"]);
    await expect(store.acquire("l", { waitMs: 0 })).rejects.toBeInstanceOf(LockTimeoutError);
    clock.now += 1;
    expect(await store.get("r")).toBeUndefined();
    expect(await store.isDone("d")).toBe(false);
    expect(await store.members("s")).toEqual([]);
    const next = await store.acquire("l", { waitMs: 0 });
    expect(next.token).toBe(lease.token + 1);
    expect(await lease.renew()).toBe(false);
  });

  it("keeps at most maxEntries of each kind, forgetting the least recently used", async () => {
    const { store } = clocked();
    for (const k of ["a", "b", "c"]) await store.put(k, k, 60_000);
    await store.get("a");
    await store.put("d", "d", 60_000);
    expect(await store.get("b")).toBeUndefined();
    expect(await store.get("a")).toBe("a");
    expect(await store.get("d")).toBe("d");
  });

  it("holds a bounded number of wake-ups; moving one that exists is always possible", async () => {
    const store = new MemoryCoordination();
    for (let i = 0; i < COORDINATION_LIMITS.wakeUps; i++) await store.schedule(`w${i}`, i, null);
    await expect(store.schedule("one more", 1, null)).rejects.toMatchObject({
      code: "COORD-FULL",
      message: `${COORDINATION_LIMITS.wakeUps} wake-ups are scheduled already: cancel some first`,
    });
    await expect(store.schedule("w1", 5, { moved: true })).resolves.toBeUndefined();
    await store.cancel("w0");
    await expect(store.schedule("one more", 1, null)).resolves.toBeUndefined();
  });

  it("lets a waiter in as soon as the holder releases, without waiting out a pause", async () => {
    const store = new MemoryCoordination();
    const held = await store.acquire("k", { leaseMs: 60_000 });
    const started = Date.now();
    const waiting = store.acquire("k", { waitMs: 5_000 });
    setTimeout(() => void held.release(), 30);
    const next = await waiting;
    expect(Date.now() - started).toBeLessThan(500);
    expect(next.token).toBeGreaterThan(held.token);
    await next.release();
  });
});

describe("boundedKey", () => {
  it("keeps short keys, and long ones as their start and a hash of the whole", () => {
    expect(boundedKey("issue:acme/app#1")).toBe("issue:acme/app#1");
    const long = "a".repeat(COORDINATION_LIMITS.keyChars + 1);
    const bounded = boundedKey(long);
    expect(bounded).toMatch(/^a{100}…[0-9a-f]{40}$/);
    expect(boundedKey(`${long}b`)).not.toBe(bounded);
  });

  it("names a long key shortly in a lock error", async () => {
    const store = new MemoryCoordination();
    const key = `issue:${"x".repeat(300)}`;
    await store.acquire(key);
    const err = (await store.acquire(key, { waitMs: 0 }).catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/^the lock on 'issue:x{111}…' could not be had within 0 ms/);
  });
});
