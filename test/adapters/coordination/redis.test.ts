/** What only the Redis store does: its keys, its errors when Redis is away, and its recovery. */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoordinationError } from "../../../src/runtime/coordination.js";
import { RedisCoordination, redactRedisUrl } from "../../../src/adapters/coordination/redis.js";
import { openCoordination } from "../../../src/adapters/coordination/index.js";
import {
  REDIS_INSTALL_HINT,
  assertRedisServerInstalled,
  startRedis,
  type RedisServer,
} from "../../helpers/redis.js";

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});

function logs() {
  const lines: [string, string][] = [];
  return { lines, log: (level: "error" | "info", line: string) => void lines.push([level, line]) };
}

describe("RedisCoordination", () => {
  it("puts every key under its prefix, short, with long parts hashed", async () => {
    const prefix = `k${randomUUID().slice(0, 6)}:`;
    const store = new RedisCoordination({ url: server.url, prefix });
    try {
      const long = `issue:acme/app#1:${"x".repeat(3_000)}`;
      await store.put(long, { issue: 1 }, 60_000);
      await store.markDone("delivery-1", 60_000);
      await store.raiseTo("seq:1", 3, 60_000);
      await store.spend("replies:1", { count: 1, windowMs: 60_000 }, Date.now());
      await store.addToSet("awaited:acme/app:test.yml", "1", 60_000);
      await store.schedule(long.slice(0, 900), Date.now() + 600_000, { issue: 1 });
      // A wake-up claimed, released (a try counted) and claimed again: its claim and tries too.
      const now = Date.now();
      await store.schedule("wake:2", now - 1_000, { issue: 2 });
      const [first] = await store.due(now);
      expect(await store.release("wake:2", first?.claim ?? "", now + 1_000)).toBe(true);
      expect((await store.due(now + 1_000)).map((w) => [w.key, w.tries])).toEqual([["wake:2", 1]]);
      const inside = await store.withLock(long, async () => store.client.keys(`${prefix}*`));
      const keys = await store.client.keys(`${prefix}*`);
      expect(keys.every((k) => k.startsWith(prefix) && k.length <= prefix.length + 220)).toBe(true);
      expect(keys.filter((k) => !k.includes("…")).sort()).toEqual(
        [
          `${prefix}budget:replies:1`,
          `${prefix}done:delivery-1`,
          `${prefix}fence`,
          `${prefix}seq:seq:1`,
          `${prefix}set:awaited:acme/app:test.yml`,
          `${prefix}wake:due`,
          `${prefix}wake:payload`,
          `${prefix}wake:claim`,
          `${prefix}wake:tries`,
        ].sort(),
      );
      // The long key: its first 100 characters and a hash of the whole.
      expect(keys.filter((k) => k.includes("…"))).toEqual([
        expect.stringMatching(new RegExp(`^${prefix}rec:issue:acme/app#1:x{83}…[0-9a-f]{40}$`)),
      ]);
      // The lock's own key exists while it is held, and is gone after.
      expect(inside.some((k) => k.startsWith(`${prefix}lock:issue:acme`))).toBe(true);
      expect(keys.some((k) => k.startsWith(`${prefix}lock:`))).toBe(false);
    } finally {
      await store.close();
    }
  });

  it("when Redis cannot be reached: a CoordinationError that names it (without the password), logged once", async () => {
    const { lines, log } = logs();
    const store = new RedisCoordination({
      url: "redis://app:hunter2@127.0.0.1:1",
      log,
      commandTimeoutMs: 1_000,
    });
    try {
      const err = await store.isDone("delivery-1").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CoordinationError);
      expect(err).toMatchObject({ code: "COORD-UNAVAILABLE" });
      expect((err as Error).message).toMatch(
        /^Redis at redis:\/\/127\.0\.0\.1:1 could not read a done mark: /,
      );
      expect((err as Error).message).not.toContain("hunter2");
      await expect(store.withLock("issue:1", async () => "never")).rejects.toMatchObject({
        code: "COORD-UNAVAILABLE",
        message: expect.stringMatching(/could not take the lock on issue:1/),
      });
      const errors = lines.filter(([level]) => level === "error");
      expect(errors).toHaveLength(1);
      expect(errors[0]?.[1]).toMatch(
        /^coordination: Redis at redis:\/\/127\.0\.0\.1:1 is unreachable/,
      );
      expect(lines.flat().join("\n")).not.toContain("hunter2");
    } finally {
      await store.close();
    }
  });

  it("works again once Redis is back, and says so", async () => {
    const own = await startRedis();
    const { lines, log } = logs();
    const store = new RedisCoordination({ url: own.url, log, commandTimeoutMs: 1_000 });
    let restarted: RedisServer | undefined;
    try {
      await store.put("k", 1, 60_000);
      await own.stop();
      await expect(store.get("k")).rejects.toMatchObject({ code: "COORD-UNAVAILABLE" });
      restarted = await startRedis({ port: own.port });
      // The client reconnects by itself (the new server starts empty).
      let value: unknown = "unanswered";
      for (let i = 0; i < 50 && value === "unanswered"; i++) {
        value = await store.get("k").catch(() => "unanswered");
        if (value === "unanswered") await new Promise((r) => setTimeout(r, 100));
      }
      expect(value).toBeUndefined();
      expect(lines.map(([level]) => level)).toEqual(["error", "info"]);
      expect(lines[1]?.[1]).toBe(`coordination: Redis at ${own.url} is reachable again`);
    } finally {
      await store.close();
      await restarted?.stop();
    }
  });

  it("refuses a prefix it cannot use; closes a client that never connected", async () => {
    expect(() => new RedisCoordination({ url: server.url, prefix: "has space" })).toThrow(
      /Redis key prefix 'has space' is not valid/,
    );
    const idle = new RedisCoordination({ url: server.url });
    await expect(idle.close()).resolves.toBeUndefined();
    expect(idle.client.status).toBe("end");
  });

  it("names a Redis without its credentials", () => {
    expect(redactRedisUrl("redis://user:pw@cache.internal:6380/2")).toBe(
      "redis://cache.internal:6380/2",
    );
    expect(redactRedisUrl("rediss://:pw@cache:6379")).toBe("rediss://cache:6379");
    expect(redactRedisUrl("nonsense")).toBe("(an invalid Redis URL)");
  });

  it("openCoordination: Redis when settings name one, else memory", async () => {
    expect(openCoordination().kind).toBe("memory");
    expect(openCoordination({ lock: { waitMs: 5 } }).kind).toBe("memory");
    const { log } = logs();
    const redis = openCoordination({ redis: { url: server.url, prefix: "o:" }, log });
    expect(redis.kind).toBe("redis");
    expect(redis.where).toBe(server.url);
    await redis.close();
  });
});

describe("the redis-server test helper", () => {
  it("fails, never skips, when redis-server is missing, and says how to install it", () => {
    const path = process.env.PATH;
    process.env.PATH = "/nonexistent";
    try {
      expect(() => assertRedisServerInstalled()).toThrow(REDIS_INSTALL_HINT);
    } finally {
      process.env.PATH = path;
    }
    expect(REDIS_INSTALL_HINT).toContain("apt-get install -y --no-install-recommends redis-server");
    expect(() => assertRedisServerInstalled()).not.toThrow();
  });
});
