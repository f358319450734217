import { Redis } from "ioredis";
import {
  COORDINATION_LIMITS,
  CoordinationError,
  DEFAULT_WAKE_UP_LEASE_MS,
  acquireLease,
  boundedKey,
  checkBudget,
  checkCount,
  checkMember,
  checkTime,
  checkTtl,
  checkWakeUpKey,
  encodeValue,
  withLease,
  type Budget,
  type Coordination,
  type Fence,
  type JsonValue,
  type Lease,
  type LockBackend,
  type LockOptions,
  type Raised,
  type WakeUp,
} from "../../runtime/coordination.js";
import { randomUUID } from "node:crypto";

export interface RedisCoordinationOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  url: string;
  /** Put before every key, so that several apps can share one Redis (default `playbook-bot:`). */
  prefix?: string;
  /** A command that takes longer fails (default 5 s): a stalled Redis is an outage, not a wait. */
  commandTimeoutMs?: number;
  /** Default lock lease and wait. */
  lock?: LockOptions;
  /** Told when Redis becomes unreachable and when it is back (once each, not per command). */
  log?: (level: "error" | "info", line: string) => void;
}

/** Scripts, so that each check-and-change is one atomic step on the server. */
const SCRIPTS = {
  /** KEYS: lock, fence counter. ARGV: owner, lease ms. The lock and its fencing token together. */
  pbLock: {
    keys: 2,
    lua: `if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return redis.call('incr', KEYS[2])
end
return false`,
  },
  /** KEYS: lock. ARGV: owner, lease ms. Extends only the owner's lock. */
  pbExtend: {
    keys: 1,
    lua: `if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0`,
  },
  /** KEYS: lock. ARGV: owner. Deletes only the owner's lock. */
  pbUnlock: {
    keys: 1,
    lua: `if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0`,
  },
  /** KEYS: counter. ARGV: n, ttl ms. Returns {behind, highest}. */
  pbRaise: {
    keys: 1,
    lua: `local stored = redis.call('get', KEYS[1])
local current = stored and tonumber(stored) or 0
if tonumber(ARGV[1]) < current then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return {1, stored}
end
redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {0, ARGV[1]}`,
  },
  /** KEYS: sorted set of uses. ARGV: now, window ms, count, a unique member. */
  pbSpend: {
    keys: 1,
    lua: `local now = tonumber(ARGV[1])
redis.call('zremrangebyscore', KEYS[1], '-inf', now - tonumber(ARGV[2]))
if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('zadd', KEYS[1], now, ARGV[4])
redis.call('pexpire', KEYS[1], ARGV[2])
return 1`,
  },
  /**
   * KEYS: sorted set (score: when each member expires). ARGV: member, ttl ms, most members. Room
   * is made before the member is added, so the newest member always stays.
   */
  pbAdd: {
    keys: 1,
    lua: `local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('zremrangebyscore', KEYS[1], '-inf', now)
redis.call('zrem', KEYS[1], ARGV[1])
local n = redis.call('zcard', KEYS[1])
local most = tonumber(ARGV[3])
if n >= most then redis.call('zremrangebyrank', KEYS[1], 0, n - most) end
redis.call('zadd', KEYS[1], now + ttl, ARGV[1])
if redis.call('pttl', KEYS[1]) < ttl then redis.call('pexpire', KEYS[1], ttl) end
return n`,
  },
  /** KEYS: sorted set (score: when each member expires). The members not expired. */
  pbMembers: {
    keys: 1,
    lua: `local t = redis.call('time')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('zrangebyscore', KEYS[1], '(' .. now, '+inf')`,
  },
  /**
   * Wake-ups: KEYS due times (a sorted set: when each may be claimed next), payloads, claims
   * (member → claim token), tries (member → failed claims). A schedule replaces any claim.
   * ARGV: member, at, payload JSON, most wake-ups.
   */
  pbSchedule: {
    keys: 4,
    lua: `if redis.call('zscore', KEYS[1], ARGV[1]) == false and redis.call('zcard', KEYS[1]) >= tonumber(ARGV[4]) then
  return 0
end
redis.call('zadd', KEYS[1], ARGV[2], ARGV[1])
redis.call('hset', KEYS[2], ARGV[1], ARGV[3])
redis.call('hdel', KEYS[3], ARGV[1])
redis.call('hdel', KEYS[4], ARGV[1])
return 1`,
  },
  /** KEYS: due times, payloads, claims, tries. ARGV: member. */
  pbCancel: {
    keys: 4,
    lua: `redis.call('zrem', KEYS[1], ARGV[1])
redis.call('hdel', KEYS[3], ARGV[1])
redis.call('hdel', KEYS[4], ARGV[1])
return redis.call('hdel', KEYS[2], ARGV[1])`,
  },
  /**
   * KEYS: due times, payloads, claims, tries. ARGV: now, limit, lease end, claim token. Claims
   * the due ones: each is moved to the lease's end (a claim that is never completed or
   * released is simply due again then) and marked with the token. Returns payload, tries pairs.
   */
  pbDue: {
    keys: 4,
    lua: `local ids = redis.call('zrangebyscore', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
local out = {}
for _, id in ipairs(ids) do
  local v = redis.call('hget', KEYS[2], id)
  if v then
    redis.call('zadd', KEYS[1], ARGV[3], id)
    redis.call('hset', KEYS[3], id, ARGV[4])
    out[#out + 1] = v
    out[#out + 1] = redis.call('hget', KEYS[4], id) or '0'
  else
    redis.call('zrem', KEYS[1], id)
    redis.call('hdel', KEYS[3], id)
    redis.call('hdel', KEYS[4], id)
  end
end
return out`,
  },
  /** KEYS: due times, claims. ARGV: member, claim token, new lease end. */
  pbExtendClaim: {
    keys: 2,
    lua: `if redis.call('hget', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('zadd', KEYS[1], ARGV[3], ARGV[1])
return 1`,
  },
  /** KEYS: due times, payloads, claims, tries. ARGV: member, claim token. */
  pbComplete: {
    keys: 4,
    lua: `if redis.call('hget', KEYS[3], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('zrem', KEYS[1], ARGV[1])
redis.call('hdel', KEYS[2], ARGV[1])
redis.call('hdel', KEYS[3], ARGV[1])
redis.call('hdel', KEYS[4], ARGV[1])
return 1`,
  },
  /** KEYS: due times, claims, tries. ARGV: member, claim token, when it is due again. */
  pbRelease: {
    keys: 3,
    lua: `if redis.call('hget', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('zadd', KEYS[1], ARGV[3], ARGV[1])
redis.call('hdel', KEYS[2], ARGV[1])
redis.call('hincrby', KEYS[3], ARGV[1], 1)
return 1`,
  },
} as const;

type ScriptName = keyof typeof SCRIPTS;
type ScriptFn = (...args: (string | number)[]) => Promise<unknown>;

/** The address of a Redis URL without its credentials (for logs and errors). */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === "/" ? "" : u.pathname}`;
  } catch {
    return "(an invalid Redis URL)";
  }
}

const PREFIX_PATTERN = /^[A-Za-z0-9:_.-]{0,64}$/;

/**
 * Coordination of several replicas through one Redis: `SET NX PX` leases released and extended
 * only by their owner (Lua), fencing tokens from `INCR`, monotonic counters, budgets and wake-ups
 * as Lua scripts over strings, sorted sets and hashes. A command that fails is a
 * CoordinationError (`COORD-UNAVAILABLE`) that names Redis; it is never retried silently.
 */
export class RedisCoordination implements Coordination, LockBackend {
  readonly kind = "redis";
  readonly where: string;
  readonly client: Redis;
  /** Put before every key (see RedisCoordinationOptions.prefix). */
  readonly prefix: string;
  private readonly lockDefaults: LockOptions;
  private readonly log: NonNullable<RedisCoordinationOptions["log"]>;
  private down = false;

  constructor(options: RedisCoordinationOptions) {
    this.where = redactRedisUrl(options.url);
    this.prefix = options.prefix ?? "playbook-bot:";
    if (!PREFIX_PATTERN.test(this.prefix))
      throw new CoordinationError(
        "COORD-BAD-INPUT",
        `the Redis key prefix '${this.prefix.slice(0, 80)}' is not valid: use at most 64 letters, digits and ':_.-'`,
      );
    this.lockDefaults = options.lock ?? {};
    this.log = options.log ?? (() => undefined);
    this.client = new Redis(options.url, {
      lazyConnect: true,
      // A command fails after one reconnection attempt instead of waiting for Redis forever.
      maxRetriesPerRequest: 1,
      connectTimeout: 5_000,
      commandTimeout: options.commandTimeoutMs ?? 5_000,
      retryStrategy: (times) => Math.min(times * 200, 2_000),
    });
    this.client.on("error", (err: Error) => {
      if (this.down) return;
      this.down = true;
      this.log("error", `coordination: Redis at ${this.where} is unreachable: ${err.message}`);
    });
    this.client.on("ready", () => {
      if (!this.down) return;
      this.down = false;
      this.log("info", `coordination: Redis at ${this.where} is reachable again`);
    });
    for (const [name, s] of Object.entries(SCRIPTS))
      this.client.defineCommand(name, { numberOfKeys: s.keys, lua: s.lua });
  }

  private key(kind: string, key: string): string {
    return `${this.prefix}${kind}:${boundedKey(key)}`;
  }

  private call<T>(what: string, step: () => Promise<T>): Promise<T> {
    return redisStep(this.where, what, step);
  }

  private script(name: ScriptName, ...args: (string | number)[]): Promise<unknown> {
    const fn = (this.client as unknown as Record<ScriptName, ScriptFn>)[name];
    return fn.apply(this.client, args);
  }

  // ---- locks ----

  async tryLock(key: string, owner: string, leaseMs: number): Promise<number | undefined> {
    const k = this.key("lock", key);
    return this.call(`take the lock on ${key}`, async () => {
      const token = await this.script("pbLock", k, `${this.prefix}fence`, owner, leaseMs);
      return token === null ? undefined : Number(token);
    });
  }

  async extendLock(key: string, owner: string, leaseMs: number): Promise<boolean> {
    const k = this.key("lock", key);
    return this.call(`extend the lock on ${key}`, async () => {
      return Number(await this.script("pbExtend", k, owner, leaseMs)) === 1;
    });
  }

  async unlock(key: string, owner: string): Promise<boolean> {
    const k = this.key("lock", key);
    return this.call(`release the lock on ${key}`, async () => {
      return Number(await this.script("pbUnlock", k, owner)) === 1;
    });
  }

  /** Redis does not tell waiters: they ask again after a pause. */
  waitForUnlock(_key: string, ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  acquire(key: string, options?: LockOptions): Promise<Lease> {
    return acquireLease(this, key, { ...this.lockDefaults, ...options });
  }

  withLock<T>(key: string, fn: (fence: Fence) => Promise<T>, options?: LockOptions): Promise<T> {
    return withLease(this, key, fn, { ...this.lockDefaults, ...options });
  }

  // ---- done ids ----

  async isDone(id: string): Promise<boolean> {
    const k = this.key("done", id);
    return this.call("read a done mark", async () => (await this.client.exists(k)) === 1);
  }

  async markDone(id: string, ttlMs: number): Promise<void> {
    const k = this.key("done", id);
    checkTtl(ttlMs);
    return this.call("record a done mark", async () => {
      await this.client.set(k, "1", "PX", ttlMs);
    });
  }

  // ---- records ----

  async get<T = JsonValue>(key: string): Promise<T | undefined> {
    const k = this.key("rec", key);
    return this.call("read a record", async () => {
      const text = await this.client.get(k);
      return text === null ? undefined : (JSON.parse(text) as T);
    });
  }

  async put(key: string, value: unknown, ttlMs: number): Promise<void> {
    const k = this.key("rec", key);
    const text = encodeValue(value);
    checkTtl(ttlMs);
    return this.call("write a record", async () => {
      await this.client.set(k, text, "PX", ttlMs);
    });
  }

  async delete(key: string): Promise<void> {
    const k = this.key("rec", key);
    return this.call("delete a record", async () => {
      await this.client.del(k);
    });
  }

  async raiseTo(key: string, n: number, ttlMs: number): Promise<Raised> {
    const k = this.key("seq", key);
    checkCount(n, "a raised number");
    checkTtl(ttlMs);
    return this.call("raise a counter", async () => {
      const [behind, highest] = (await this.script("pbRaise", k, n, ttlMs)) as [number, string];
      return { behind: behind === 1, highest: Number(highest) };
    });
  }

  async spend(key: string, budget: Budget, now: number): Promise<boolean> {
    const k = this.key("budget", key);
    checkBudget(budget);
    const at = checkTime(now, "the budget's time");
    return this.call("spend a budget", async () => {
      const use = `${at}:${randomUUID()}`;
      return Number(await this.script("pbSpend", k, at, budget.windowMs, budget.count, use)) === 1;
    });
  }

  // ---- sets ----

  async addToSet(key: string, member: string, ttlMs: number): Promise<void> {
    const k = this.key("set", key);
    checkMember(member);
    checkTtl(ttlMs);
    return this.call("add to a set", async () => {
      await this.script("pbAdd", k, member, ttlMs, COORDINATION_LIMITS.setMembers);
    });
  }

  async members(key: string): Promise<string[]> {
    const k = this.key("set", key);
    return this.call("read a set", async () => (await this.script("pbMembers", k)) as string[]);
  }

  // ---- wake-ups ----

  /** The keys of the wake-ups: due times, payloads, claims, tries. */
  private wakeKeys(): [string, string, string, string] {
    return ["due", "payload", "claim", "tries"].map((k) => `${this.prefix}wake:${k}`) as [
      string,
      string,
      string,
      string,
    ];
  }

  async schedule(key: string, at: number, payload: unknown): Promise<void> {
    const member = boundedKey(checkWakeUpKey(key));
    const when = checkTime(at, "a wake-up's time");
    const text = encodeValue({ key, at: when, payload });
    return this.call("schedule a wake-up", async () => {
      const added = await this.script(
        "pbSchedule",
        ...this.wakeKeys(),
        member,
        when,
        text,
        COORDINATION_LIMITS.wakeUps,
      );
      if (Number(added) !== 1)
        throw new CoordinationError(
          "COORD-FULL",
          `${COORDINATION_LIMITS.wakeUps} wake-ups are scheduled already: cancel some first`,
        );
    });
  }

  async cancel(key: string): Promise<void> {
    const member = boundedKey(checkWakeUpKey(key));
    return this.call("cancel a wake-up", async () => {
      await this.script("pbCancel", ...this.wakeKeys(), member);
    });
  }

  async due(now: number, limit = 100, leaseMs = DEFAULT_WAKE_UP_LEASE_MS): Promise<WakeUp[]> {
    const at = checkTime(now, "the time of due wake-ups");
    const until = at + checkTtl(leaseMs);
    const claim = randomUUID();
    return this.call("claim due wake-ups", async () => {
      const claimed = (await this.script(
        "pbDue",
        ...this.wakeKeys(),
        at,
        Math.max(0, Math.floor(limit)),
        until,
        claim,
      )) as string[];
      const out: WakeUp[] = [];
      for (let i = 0; i + 1 < claimed.length; i += 2) {
        const stored = JSON.parse(claimed[i] as string) as Pick<WakeUp, "key" | "at" | "payload">;
        out.push({ ...stored, claim, tries: Number(claimed[i + 1]) });
      }
      return out;
    });
  }

  async extendClaim(key: string, claim: string, until: number): Promise<boolean> {
    const member = boundedKey(checkWakeUpKey(key));
    const end = checkTime(until, "a claim's end");
    const [due, , claims] = this.wakeKeys();
    return this.call("extend a wake-up's claim", async () => {
      return Number(await this.script("pbExtendClaim", due, claims, member, claim, end)) === 1;
    });
  }

  async complete(key: string, claim: string): Promise<boolean> {
    const member = boundedKey(checkWakeUpKey(key));
    return this.call("complete a wake-up", async () => {
      return Number(await this.script("pbComplete", ...this.wakeKeys(), member, claim)) === 1;
    });
  }

  async release(key: string, claim: string, at: number): Promise<boolean> {
    const member = boundedKey(checkWakeUpKey(key));
    const when = checkTime(at, "a wake-up's time");
    const [due, , claims, tries] = this.wakeKeys();
    return this.call("release a wake-up", async () => {
      return Number(await this.script("pbRelease", due, claims, tries, member, claim, when)) === 1;
    });
  }

  async close(): Promise<void> {
    // quit waits for replies in flight; a client that never connected just stops.
    if (this.client.status === "wait" || this.client.status === "end") this.client.disconnect();
    else await this.client.quit().catch(() => this.client.disconnect());
  }
}

/** One Redis step; any failure becomes a CoordinationError that says what and where. */
export async function redisStep<T>(
  where: string,
  what: string,
  step: () => Promise<T>,
): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof CoordinationError) throw err;
    throw new CoordinationError(
      "COORD-UNAVAILABLE",
      `Redis at ${where} could not ${what}: ${(err as Error).message}`,
      { cause: err },
    );
  }
}
