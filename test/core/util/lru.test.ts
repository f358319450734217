import { describe, expect, it } from "vitest";
import { KeyedQueue, OnceLedger, LruMap } from "../../../src/runtime/lru.js";

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Let every queued microtask (and the ones they queue) run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe("LruMap", () => {
  it("forgets the least recently set entry beyond its size", () => {
    const m = new LruMap<string, number>(2);
    m.set("a", 1);
    m.set("b", 2);
    m.set("c", 3);
    expect(m.size).toBe(2);
    expect(m.has("a")).toBe(false);
    expect(m.get("a")).toBeUndefined();
    expect(m.get("b")).toBe(2);
    expect(m.get("c")).toBe(3);
  });

  it("counts a get as a use: the entry read survives the next eviction", () => {
    const m = new LruMap<string, number>(2);
    m.set("a", 1);
    m.set("b", 2);
    expect(m.get("a")).toBe(1);
    m.set("c", 3);
    expect(m.has("a")).toBe(true);
    expect(m.has("b")).toBe(false);
    expect(m.has("c")).toBe(true);
  });

  it("counts setting an existing key as a use and keeps one entry for it", () => {
    const m = new LruMap<string, number>(2);
    m.set("a", 1);
    m.set("b", 2);
    m.set("a", 10);
    expect(m.size).toBe(2);
    m.set("c", 3);
    expect(m.get("a")).toBe(10);
    expect(m.has("b")).toBe(false);
  });

  it("has() does not refresh recency", () => {
    const m = new LruMap<string, number>(2);
    m.set("a", 1);
    m.set("b", 2);
    expect(m.has("a")).toBe(true);
    m.set("c", 3);
    expect(m.has("a")).toBe(false);
    expect(m.has("b")).toBe(true);
  });

  it("a missing key is absent and changes nothing", () => {
    const m = new LruMap<number, string>(1);
    expect(m.get(1)).toBeUndefined();
    expect(m.has(1)).toBe(false);
    expect(m.size).toBe(0);
  });
});

describe("KeyedQueue", () => {
  it("runs the tasks of one key one at a time, in order", async () => {
    const q = new KeyedQueue();
    const log: string[] = [];
    const first = deferred();
    const a = q.run("issue-1", async () => {
      log.push("a start");
      await first.promise;
      log.push("a end");
      return "a";
    });
    const b = q.run("issue-1", async () => {
      log.push("b start");
      return "b";
    });
    await settle();
    expect(log).toEqual(["a start"]);
    expect(q.pending).toBe(1);
    first.resolve();
    expect(await a).toBe("a");
    expect(await b).toBe("b");
    expect(log).toEqual(["a start", "a end", "b start"]);
  });

  it("runs tasks of different keys in parallel", async () => {
    const q = new KeyedQueue();
    const log: string[] = [];
    const gate = deferred();
    const a = q.run("issue-1", async () => {
      log.push("1 start");
      await gate.promise;
      log.push("1 end");
    });
    const b = q.run("issue-2", async () => {
      log.push("2 start");
      log.push("2 end");
    });
    await b;
    // Issue 2 finished while issue 1 is still blocked.
    expect(log).toEqual(["1 start", "2 start", "2 end"]);
    expect(q.pending).toBe(1);
    gate.resolve();
    await a;
    expect(log).toEqual(["1 start", "2 start", "2 end", "1 end"]);
  });

  it("a failing task rejects its own promise and does not block the next one", async () => {
    const q = new KeyedQueue();
    const failed = q.run("k", async () => {
      throw new Error("boom");
    });
    const next = q.run("k", async () => "next ran");
    await expect(failed).rejects.toThrow("boom");
    expect(await next).toBe("next ran");
  });

  it("pending counts keys with work queued, and returns to 0 when all is done", async () => {
    const q = new KeyedQueue();
    expect(q.pending).toBe(0);
    const g1 = deferred();
    const g2 = deferred();
    const t1 = q.run("a", () => g1.promise);
    const t2 = q.run("a", () => g1.promise);
    const t3 = q.run("b", () => g2.promise);
    expect(q.pending).toBe(2);
    g1.resolve();
    await t1;
    await t2;
    await settle();
    expect(q.pending).toBe(1);
    g2.reject(new Error("no"));
    await expect(t3).rejects.toThrow("no");
    await settle();
    expect(q.pending).toBe(0);
  });

  it("keeps the key's tail when a newer task was queued before the older one ended", async () => {
    const q = new KeyedQueue();
    const g = deferred();
    const t1 = q.run("k", () => g.promise);
    const t2 = q.run("k", async () => 2);
    g.resolve();
    await t1;
    // t1 is done but t2 is the tail: the key still has work until t2 ends.
    await t2;
    await settle();
    expect(q.pending).toBe(0);
    const t3 = q.run("k", async () => 3);
    expect(q.pending).toBe(1);
    expect(await t3).toBe(3);
  });
});

describe("KeyedQueue with a deadline", () => {
  it("answers the caller GH-TIMEOUT, but the next task of the key waits for the first to end", async () => {
    const q = new KeyedQueue(30);
    const order: string[] = [];
    let finish!: () => void;
    const slow = q.run("k", async () => {
      order.push("a start");
      await new Promise<void>((r) => (finish = r));
      order.push("a end");
    });
    const next = q.run("k", async () => {
      order.push("b");
    });
    await expect(slow).rejects.toMatchObject({ code: "GH-TIMEOUT" });
    expect(order).toEqual(["a start"]); // b has not run alongside a
    finish();
    await next.catch(() => undefined);
    expect(order).toEqual(["a start", "a end", "b"]);
  });
});

describe("OnceLedger", () => {
  it("counts an id as done only when its work succeeded; copies share the one attempt", async () => {
    const ledger = new OnceLedger();
    let calls = 0;
    const fail = () => {
      calls++;
      return Promise.reject(new Error("502"));
    };
    await expect(ledger.run("d1", fail)).rejects.toThrow("502");
    const ok = () => {
      calls++;
      return Promise.resolve("done");
    };
    const [a, b] = await Promise.all([ledger.run("d1", ok), ledger.run("d1", ok)]);
    expect([a, b]).toEqual([{ duplicate: false, value: "done" }, { duplicate: true }]);
    expect(await ledger.run("d1", ok)).toEqual({ duplicate: true });
    expect(calls).toBe(2);
  });
});
