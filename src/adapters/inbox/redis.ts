import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { Redis } from "ioredis";
import type { Inbox, InboxDelivery, InboxEntry } from "../../runtime/inbox.js";
import { redactRedisUrl } from "../coordination/redis.js";

export interface RedisInboxOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  url: string;
  /** Put before every key (REDIS_PREFIX, default `playbook-bot:`). */
  prefix?: string;
  /**
   * How long an entry taken by a worker may go untouched before another worker claims it (a
   * worker touches its entries while it works, so only a dead one's are claimed). Default 30 s.
   */
  claimAfterMs?: number;
  /** This worker's name in the consumer group (default: host, pid and a random part). */
  consumer?: string;
  /** A command that takes longer fails (default 5 s). */
  commandTimeoutMs?: number;
  /** Dead deliveries kept (the newest, default 10 000). */
  deadKept?: number;
}

const GROUP = "workers";

/** KEYS: retries (sorted by due time), stream. ARGV: now, limit. Due retries go to the stream. */
const PROMOTE = `local due = redis.call('zrangebyscore', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for _, d in ipairs(due) do
  redis.call('zrem', KEYS[1], d)
  redis.call('xadd', KEYS[2], '*', 'd', d)
end
return #due`;

type PromoteFn = (...args: (string | number)[]) => Promise<number>;
type StreamEntry = [id: string, fields: string[] | null];

/**
 * XREADGROUP's entries of the one stream read: RESP2 answers `[[key, entries]]`, RESP3 a map that
 * the client gives as `[key, entries]`.
 */
function streamEntries(read: unknown[] | null): StreamEntry[] {
  if (!read || read.length === 0) return [];
  const first = read[0];
  if (typeof first === "string") return (read[1] as StreamEntry[] | undefined) ?? [];
  return ((first as [string, StreamEntry[]])[1] as StreamEntry[] | undefined) ?? [];
}

/**
 * The inbox on Redis Streams, shared by the replicas: a delivery is one stream entry (field `d`:
 * its JSON); every replica reads through one consumer group, so each entry goes to one worker and
 * stays pending (XPENDING) until acknowledged. A worker touches its pending entries while it works;
 * the entries of a worker that died go untouched and are claimed by another after `claimAfterMs`
 * (XAUTOCLAIM). A failed entry waits for its retry in a sorted set (by due time) and goes back to
 * the stream when due; a dead one is recorded in a capped stream of its own (without its payload).
 */
export class RedisInbox implements Inbox {
  readonly kind = "redis";
  readonly where: string;
  readonly consumer: string;
  private readonly client: Redis;
  /** Blocking reads hold a connection: they get their own. */
  private readonly reader: Redis;
  private readonly stream: string;
  private readonly retries: string;
  private readonly deadStream: string;
  private readonly claimAfterMs: number;
  private readonly deadKept: number;
  private grouped = false;

  constructor(options: RedisInboxOptions) {
    this.where = redactRedisUrl(options.url);
    const prefix = options.prefix ?? "playbook-bot:";
    this.stream = `${prefix}inbox`;
    this.retries = `${prefix}inbox:retries`;
    this.deadStream = `${prefix}inbox:dead`;
    this.claimAfterMs = options.claimAfterMs ?? 30_000;
    this.deadKept = options.deadKept ?? 10_000;
    this.consumer = options.consumer ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    const common = {
      lazyConnect: true,
      // A command fails after one reconnection attempt: a delivery that cannot be stored gets a
      // 5xx at once rather than a wait.
      maxRetriesPerRequest: 1,
      connectTimeout: 5_000,
      retryStrategy: (times: number) => Math.min(times * 200, 2_000),
    };
    const timeout = options.commandTimeoutMs ?? 5_000;
    this.client = new Redis(options.url, { ...common, commandTimeout: timeout });
    this.reader = new Redis(options.url, { ...common, commandTimeout: timeout + 10_000 });
    // Failures reach the callers; the connection's own errors would otherwise crash the process.
    this.client.on("error", () => undefined);
    this.reader.on("error", () => undefined);
    this.client.defineCommand("pbInboxPromote", { numberOfKeys: 2, lua: PROMOTE });
  }

  private static encode(delivery: InboxDelivery, attempt: number): string {
    return JSON.stringify({
      id: delivery.id,
      name: delivery.name,
      attempt,
      payload: delivery.payload,
    });
  }

  private static decode(ref: string, fields: string[] | null): InboxEntry | undefined {
    const at = fields ? fields.indexOf("d") : -1;
    const raw = at >= 0 ? fields?.[at + 1] : undefined;
    if (raw === undefined) return undefined;
    const d = JSON.parse(raw) as Omit<InboxEntry, "ref">;
    return { id: d.id, name: d.name, attempt: d.attempt, payload: d.payload, ref };
  }

  async enqueue(delivery: InboxDelivery): Promise<void> {
    await this.client.xadd(this.stream, "*", "d", RedisInbox.encode(delivery, 0));
  }

  /** The consumer group, made (with the stream) when missing: at first, and after Redis lost it. */
  private async ensureGroup(): Promise<void> {
    try {
      await this.client.xgroup("CREATE", this.stream, GROUP, "0", "MKSTREAM");
    } catch (err) {
      if (!String((err as Error).message).includes("BUSYGROUP")) throw err;
    }
    this.grouped = true;
  }

  /** `step`, once more after making the group when Redis says it has none (NOGROUP). */
  private async inGroup<T>(step: () => Promise<T>): Promise<T> {
    if (!this.grouped) await this.ensureGroup();
    try {
      return await step();
    } catch (err) {
      if (!String((err as Error).message).includes("NOGROUP")) throw err;
      await this.ensureGroup();
      return step();
    }
  }

  async take(max: number, waitMs: number): Promise<InboxEntry[]> {
    if (max <= 0) return [];
    const promote = (this.client as unknown as Record<"pbInboxPromote", PromoteFn>).pbInboxPromote;
    await promote.call(this.client, this.retries, this.stream, Date.now(), max);
    const entries: InboxEntry[] = [];
    // A dead worker's entries first: they have waited longest.
    const claimed = (await this.inGroup(() =>
      this.client.call("XAUTOCLAIM", [
        this.stream,
        GROUP,
        this.consumer,
        this.claimAfterMs,
        "0-0",
        "COUNT",
        max,
      ]),
    )) as [string, StreamEntry[], string[]?];
    for (const [ref, fields] of claimed[1]) {
      const entry = RedisInbox.decode(ref, fields);
      if (entry) entries.push(entry);
    }
    const room = max - entries.length;
    if (room <= 0) return entries;
    const block = entries.length ? [] : ["BLOCK", Math.max(1, Math.round(waitMs))];
    const read = (await this.inGroup(() =>
      this.reader.call("XREADGROUP", [
        "GROUP",
        GROUP,
        this.consumer,
        "COUNT",
        room,
        ...block,
        "STREAMS",
        this.stream,
        ">",
      ]),
    )) as unknown[] | null;
    for (const [ref, fields] of streamEntries(read)) {
      const entry = RedisInbox.decode(ref, fields);
      if (entry) entries.push(entry);
    }
    return entries;
  }

  async ack(entry: InboxEntry): Promise<void> {
    await this.client
      .multi()
      .xack(this.stream, GROUP, entry.ref)
      .xdel(this.stream, entry.ref)
      .exec();
  }

  async retryAt(entry: InboxEntry, at: number): Promise<void> {
    await this.client
      .multi()
      .zadd(this.retries, at, RedisInbox.encode(entry, entry.attempt + 1))
      .xack(this.stream, GROUP, entry.ref)
      .xdel(this.stream, entry.ref)
      .exec();
  }

  async dead(entry: InboxEntry, reason: string): Promise<void> {
    const record = ["id", entry.id, "name", entry.name, "attempts", String(entry.attempt + 1)];
    await this.client
      .multi()
      .xadd(this.deadStream, "MAXLEN", "~", this.deadKept, "*", ...record, "reason", reason)
      .xack(this.stream, GROUP, entry.ref)
      .xdel(this.stream, entry.ref)
      .exec();
  }

  async giveBack(entry: InboxEntry): Promise<void> {
    await this.client
      .multi()
      .xadd(this.stream, "*", "d", RedisInbox.encode(entry, entry.attempt))
      .xack(this.stream, GROUP, entry.ref)
      .xdel(this.stream, entry.ref)
      .exec();
  }

  /** XCLAIM by the holder itself restarts the entries' idle time: nobody claims them meanwhile. */
  async touch(entries: InboxEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.client.call("XCLAIM", [
      this.stream,
      GROUP,
      this.consumer,
      0,
      ...entries.map((e) => e.ref),
      "JUSTID",
    ]);
  }

  async unwritable(): Promise<string | undefined> {
    try {
      await this.client.ping();
      return undefined;
    } catch (err) {
      return `the inbox's Redis at ${this.where} does not answer: ${(err as Error).message}`;
    }
  }

  /** The dead deliveries recorded, newest first (for operators and tests). */
  async deadDeliveries(count = 100): Promise<Record<string, string>[]> {
    const rows = (await this.client.xrevrange(this.deadStream, "+", "-", "COUNT", count)) as [
      string,
      string[],
    ][];
    return rows.map(([, fields]) => {
      const out: Record<string, string> = {};
      for (let i = 0; i + 1 < fields.length; i += 2) out[fields[i] ?? ""] = fields[i + 1] ?? "";
      return out;
    });
  }

  /** Entries not finished: in the stream (pending or not yet read) and waiting for a retry. */
  async size(): Promise<number> {
    const [inStream, waiting] = await Promise.all([
      this.client.xlen(this.stream),
      this.client.zcard(this.retries),
    ]);
    return inStream + waiting;
  }

  async close(): Promise<void> {
    // A worker that gave back or finished everything leaves the group tidy.
    try {
      if (this.grouped) {
        const pending = (await this.client.call("XPENDING", [
          this.stream,
          GROUP,
          "-",
          "+",
          1,
          this.consumer,
        ])) as unknown[];
        if (pending.length === 0)
          await this.client.call("XGROUP", ["DELCONSUMER", this.stream, GROUP, this.consumer]);
      }
    } catch {
      // Redis is gone: there is nothing to tidy.
    }
    this.reader.disconnect();
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
