import type { Redis } from "ioredis";
import {
  checkStoredRecord,
  checkStoredRecords,
  type StoredTraceRecord,
} from "../../core/trace/types.js";
import {
  CoordinationError,
  boundedKey,
  checkTtl,
  type Coordination,
} from "../../runtime/coordination.js";
import { ExpiringLruMap } from "../../runtime/lru.js";
import type { TraceLog, TraceRead } from "../../runtime/ports.js";
import { RedisCoordination, redisStep } from "./redis.js";

/**
 * Trace logs of the app: each run's records in the coordination store, bounded per run (the
 * oldest go first, counted) and kept for a time after the run's last record.
 */
export const TRACE_LOG_LIMITS = {
  /** Records kept per run. */
  records: 5_000,
  /** How long a run's records are kept after its last one. */
  ttlMs: 90 * 24 * 3_600_000,
  /** Runs the in-memory log keeps (the least recently written go first). */
  runs: 10_000,
} as const;

export interface TraceLogOptions {
  maxRecords?: number;
  ttlMs?: number;
}

function limits(options: TraceLogOptions): { max: number; ttl: number } {
  const max = options.maxRecords ?? TRACE_LOG_LIMITS.records;
  if (!Number.isSafeInteger(max) || max < 1)
    throw new CoordinationError("COORD-BAD-INPUT", `maxRecords must be 1 or more, not ${max}`);
  return { max, ttl: checkTtl(options.ttlMs ?? TRACE_LOG_LIMITS.ttlMs) };
}

interface MemoryRun {
  /** JSON texts, as a shared store keeps them: what a caller changes after is not changed here. */
  records: string[];
  spans: Set<string>;
  dropped: number;
}

/** The trace log of one process (one replica of the app, tests). */
export class MemoryTraceLog implements TraceLog {
  private readonly runs: ExpiringLruMap<string, MemoryRun>;
  private readonly max: number;
  private readonly ttl: number;

  constructor(options: TraceLogOptions & { now?: () => number; maxRuns?: number } = {}) {
    ({ max: this.max, ttl: this.ttl } = limits(options));
    this.runs = new ExpiringLruMap(options.maxRuns ?? TRACE_LOG_LIMITS.runs, options.now);
  }

  append(runId: string, records: readonly StoredTraceRecord[]): void {
    const key = boundedKey(runId);
    const run = this.runs.get(key) ?? { records: [], spans: new Set<string>(), dropped: 0 };
    for (const r of checkStoredRecords(records)) {
      if (run.spans.has(r.span_id)) continue;
      run.spans.add(r.span_id);
      run.records.push(JSON.stringify(r));
    }
    const over = run.records.length - this.max;
    if (over > 0) {
      for (const text of run.records.splice(0, over))
        run.spans.delete((JSON.parse(text) as StoredTraceRecord).span_id);
      run.dropped += over;
    }
    this.runs.set(key, run, this.ttl);
  }

  read(runId: string): TraceRead {
    const run = this.runs.get(boundedKey(runId));
    if (!run) return { records: [], dropped: 0 };
    return {
      records: run.records.map((t) => JSON.parse(t) as StoredTraceRecord),
      dropped: run.dropped,
    };
  }
}

/**
 * KEYS: records (a list of `<span id> <record JSON>`), span ids (a hash), dropped (a counter).
 * ARGV: most records, ttl ms, then span id and entry pairs. Adds the records whose span is new,
 * drops the oldest beyond the bound (forgetting their spans, counting them), renews the time to
 * live. Returns {added, dropped now}.
 */
const APPEND = `local most = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local added = 0
for i = 3, #ARGV, 2 do
  if redis.call('hsetnx', KEYS[2], ARGV[i], '1') == 1 then
    redis.call('rpush', KEYS[1], ARGV[i + 1])
    added = added + 1
  end
end
local over = redis.call('llen', KEYS[1]) - most
if over > 0 then
  for _, entry in ipairs(redis.call('lrange', KEYS[1], 0, over - 1)) do
    redis.call('hdel', KEYS[2], string.sub(entry, 1, 16))
  end
  redis.call('ltrim', KEYS[1], over, -1)
  redis.call('incrby', KEYS[3], over)
else
  over = 0
end
if added > 0 or over > 0 then
  redis.call('pexpire', KEYS[1], ttl)
  redis.call('pexpire', KEYS[2], ttl)
  if redis.call('exists', KEYS[3]) == 1 then redis.call('pexpire', KEYS[3], ttl) end
end
return {added, over}`;

type AppendFn = (...args: (string | number)[]) => Promise<[number, number]>;

/**
 * The trace log of replicas that share a Redis: one list per run, appended by a Lua script so a
 * span is added once however many replicas append it, under the store's key prefix.
 */
export class RedisTraceLog implements TraceLog {
  private readonly client: Redis;
  private readonly prefix: string;
  private readonly where: string;
  private readonly max: number;
  private readonly ttl: number;

  constructor(store: RedisCoordination, options: TraceLogOptions = {}) {
    ({ max: this.max, ttl: this.ttl } = limits(options));
    this.client = store.client;
    this.prefix = store.prefix;
    this.where = store.where;
    if (typeof (this.client as unknown as Record<string, unknown>).pbTraceAppend !== "function")
      this.client.defineCommand("pbTraceAppend", { numberOfKeys: 3, lua: APPEND });
  }

  private keys(runId: string): [string, string, string] {
    const k = boundedKey(runId);
    return [
      `${this.prefix}trace:${k}`,
      `${this.prefix}trace-spans:${k}`,
      `${this.prefix}trace-dropped:${k}`,
    ];
  }

  private call<T>(what: string, step: () => Promise<T>): Promise<T> {
    return redisStep(this.where, what, step);
  }

  async append(runId: string, records: readonly StoredTraceRecord[]): Promise<void> {
    const checked = checkStoredRecords(records);
    if (checked.length === 0) return;
    const keys = this.keys(runId);
    const pairs = checked.flatMap((r) => [r.span_id, `${r.span_id} ${JSON.stringify(r)}`]);
    const append = (this.client as unknown as { pbTraceAppend: AppendFn }).pbTraceAppend;
    await this.call("append trace records", () =>
      append.call(this.client, ...keys, this.max, this.ttl, ...pairs),
    );
  }

  async read(runId: string): Promise<TraceRead> {
    const [list, , dropped] = this.keys(runId);
    return this.call("read trace records", async () => {
      const [entries, count] = await Promise.all([
        this.client.lrange(list, 0, -1),
        this.client.get(dropped),
      ]);
      const records: StoredTraceRecord[] = [];
      for (const entry of entries) {
        try {
          const r = checkStoredRecord(JSON.parse(entry.slice(17)));
          if (r) records.push(r);
        } catch {
          // An entry that is not a record (written by something else) is passed over.
        }
      }
      return { records, dropped: Number(count ?? 0) || 0 };
    });
  }
}

/** The trace log that goes with a coordination store: Redis when it is Redis, else memory. */
export function openTraceLog(coordination: Coordination, options: TraceLogOptions = {}): TraceLog {
  return coordination instanceof RedisCoordination
    ? new RedisTraceLog(coordination, options)
    : new MemoryTraceLog(options);
}
