/**
 * Trace logs over the coordination stores: one contract, run against memory and against a real
 * redis-server (two connections, as two replicas see it), then what only each one does.
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { StoredTraceRecord } from "../../../src/core/trace/types.js";
import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import { RedisCoordination } from "../../../src/adapters/coordination/redis.js";
import {
  MemoryTraceLog,
  RedisTraceLog,
  TRACE_LOG_LIMITS,
  openTraceLog,
} from "../../../src/adapters/coordination/trace-log.js";
import type { TraceLog } from "../../../src/runtime/ports.js";
import { startRedis, type RedisServer } from "../../helpers/redis.js";

let server: RedisServer | undefined;
const opened: RedisCoordination[] = [];

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  await server?.stop();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

function redis(prefix = `t${randomUUID().slice(0, 8)}:`): RedisCoordination {
  const store = new RedisCoordination({ url: server?.url ?? "", prefix });
  opened.push(store);
  return store;
}

const RUN = "20260301-1000-001";

function rec(n: number, over: Partial<StoredTraceRecord> = {}): StoredTraceRecord {
  return {
    trace_id: "a".repeat(32),
    span_id: n.toString(16).padStart(16, "0"),
    parent_span_id: "b".repeat(16),
    run_id: RUN,
    seq: n,
    time: "2026-03-01T10:00:00.000Z",
    end: "2026-03-01T10:00:01.000Z",
    duration_ms: 1000,
    event: "continue",
    actor: "playbook-bot",
    target: `step s${n}`,
    authority: { claim: "just-do-it", by: "alice", granted: true },
    playbook: "p",
    depth: 0,
    step: `s${n}`,
    outcome: "success",
    outputs: `sha256:${"c".repeat(64)}`,
    ...over,
  };
}

interface Pair {
  a: TraceLog;
  b: TraceLog;
}

const LOGS: { name: string; open: (max?: number) => Pair }[] = [
  {
    name: "memory",
    open: (max) => {
      const log = new MemoryTraceLog(max ? { maxRecords: max } : {});
      return { a: log, b: log };
    },
  },
  {
    name: "redis",
    open: (max) => {
      const prefix = `t${randomUUID().slice(0, 8)}:`;
      const options = max ? { maxRecords: max } : {};
      return {
        a: new RedisTraceLog(redis(prefix), options),
        b: new RedisTraceLog(redis(prefix), options),
      };
    },
  },
];

describe.each(LOGS)("the $name trace log", ({ open }) => {
  it("reads back what was appended, in order, run by run", async () => {
    const { a, b } = open();
    await a.append(RUN, [rec(1), rec(2)]);
    await b.append(RUN, [rec(3)]);
    await a.append("20260301-1000-002", [rec(9)]);
    expect(await b.read(RUN)).toEqual({ records: [rec(1), rec(2), rec(3)], dropped: 0 });
    expect((await a.read("20260301-1000-002")).records).toEqual([rec(9)]);
    expect(await a.read("20260301-1000-003")).toEqual({ records: [], dropped: 0 });
  });

  it("keeps a span once however often and by whom it is appended", async () => {
    const { a, b } = open();
    await a.append(RUN, [rec(1), rec(2)]);
    // A redelivery on another replica, and a replay with other times: the first copy stays.
    await b.append(RUN, [rec(2, { time: "2026-03-02T00:00:00.000Z" }), rec(3)]);
    await Promise.all([a.append(RUN, [rec(4)]), b.append(RUN, [rec(4)])]);
    await a.append(RUN, [rec(5), rec(5)]);
    const { records } = await a.read(RUN);
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(records[1]?.time).toBe("2026-03-01T10:00:00.000Z");
  });

  it("keeps the newest records of a run within its bound and counts those it dropped", async () => {
    const { a, b } = open(3);
    await a.append(RUN, [rec(1), rec(2)]);
    await b.append(RUN, [rec(3), rec(4)]);
    await a.append(RUN, [rec(5)]);
    expect(await b.read(RUN)).toEqual({ records: [rec(3), rec(4), rec(5)], dropped: 2 });
    // A span that was dropped is forgotten with it; one still kept is not added again.
    await a.append(RUN, [rec(5)]);
    expect((await a.read(RUN)).records.map((r) => r.seq)).toEqual([3, 4, 5]);
  });

  it("passes over what is not a record", async () => {
    const { a } = open();
    const bad = [
      { ...rec(1), span_id: "not-hex" },
      { ...rec(2), outcome: "maybe" },
      { ...rec(3), inputs: "the raw value" },
      null,
    ] as unknown as StoredTraceRecord[];
    await a.append(RUN, [...bad, rec(4)]);
    const { records } = await a.read(RUN);
    expect(records.map((r) => r.seq)).toEqual([3, 4]);
    // A field that is not a digest is left out, not kept.
    expect(records[0]).not.toHaveProperty("inputs");
  });
});

describe("MemoryTraceLog", () => {
  it("forgets a run when its time to live has passed since its last record", () => {
    let now = 0;
    const log = new MemoryTraceLog({ now: () => now, ttlMs: 1_000 });
    log.append(RUN, [rec(1)]);
    now = 900;
    log.append(RUN, [rec(2)]);
    now = 1_800;
    expect(log.read(RUN).records).toHaveLength(2);
    now = 2_000;
    expect(log.read(RUN).records).toEqual([]);
  });

  it("keeps its own copies: changing what was appended or read changes nothing kept", () => {
    const log = new MemoryTraceLog();
    const r = rec(1);
    log.append(RUN, [r]);
    r.actor = "mallory";
    const read = log.read(RUN).records;
    (read[0] as StoredTraceRecord).detail = "changed";
    expect(log.read(RUN).records).toEqual([rec(1)]);
  });

  it("keeps 5,000 records a run for 90 days by default", () => {
    expect(TRACE_LOG_LIMITS).toMatchObject({ records: 5_000, ttlMs: 90 * 24 * 3_600_000 });
    let now = 0;
    const log = new MemoryTraceLog({ now: () => now });
    log.append(
      RUN,
      Array.from({ length: 5_001 }, (_, i) => rec(i + 1)),
    );
    expect(log.read(RUN).dropped).toBe(1);
    now = 90 * 24 * 3_600_000 - 1;
    expect(log.read(RUN).records).toHaveLength(5_000);
    now += 1;
    expect(log.read(RUN).records).toEqual([]);
  });
});

describe("RedisTraceLog", () => {
  it("keeps a run's records under the store's prefix, with the time to live renewed on each append", async () => {
    const prefix = `p${randomUUID().slice(0, 6)}:`;
    const store = redis(prefix);
    const log = new RedisTraceLog(store, { ttlMs: 60_000, maxRecords: 1 });
    await log.append(RUN, [rec(1), rec(2)]);
    const keys = (await store.client.keys(`${prefix}*`)).sort();
    expect(keys).toEqual(
      [
        `${prefix}trace:${RUN}`,
        `${prefix}trace-dropped:${RUN}`,
        `${prefix}trace-spans:${RUN}`,
      ].sort(),
    );
    for (const k of keys) {
      const ttl = await store.client.pttl(k);
      expect(ttl).toBeGreaterThan(50_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
    // Only the kept record's span is remembered.
    expect(await store.client.hkeys(`${prefix}trace-spans:${RUN}`)).toEqual([rec(2).span_id]);
  });

  it("is what openTraceLog gives for a Redis store; memory for a memory store", async () => {
    expect(openTraceLog(redis())).toBeInstanceOf(RedisTraceLog);
    expect(openTraceLog(new MemoryCoordination())).toBeInstanceOf(MemoryTraceLog);
  });

  it("fails with COORD-UNAVAILABLE, naming Redis, when Redis is away", async () => {
    const own = await startRedis();
    const store = new RedisCoordination({ url: own.url, commandTimeoutMs: 500 });
    opened.push(store);
    const log = new RedisTraceLog(store);
    await log.append(RUN, [rec(1)]);
    await own.stop();
    await expect(log.append(RUN, [rec(2)])).rejects.toMatchObject({
      code: "COORD-UNAVAILABLE",
      message: expect.stringContaining("could not append trace records"),
    });
    await expect(log.read(RUN)).rejects.toMatchObject({ code: "COORD-UNAVAILABLE" });
  });
});
