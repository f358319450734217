import { describe, expect, it } from "vitest";
import { LruMap, withDeadline } from "../../../src/runtime/lru.js";

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
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

describe("withDeadline", () => {
  it("answers GH-TIMEOUT when the work outlives its deadline, and the work's own answer otherwise", async () => {
    const slow = deferred<string>();
    await expect(withDeadline(slow.promise, 20, "the slow work")).rejects.toMatchObject({
      code: "GH-TIMEOUT",
    });
    slow.resolve("late");
    await expect(withDeadline(Promise.resolve("quick"), 1000, "quick work")).resolves.toBe("quick");
    await expect(
      withDeadline(Promise.reject(new Error("502")), 1000, "failing work"),
    ).rejects.toThrow("502");
  });
});
