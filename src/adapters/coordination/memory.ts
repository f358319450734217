import { randomUUID } from "node:crypto";
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
import { ExpiringLruMap } from "../../runtime/lru.js";

export interface MemoryCoordinationOptions {
  /** The clock of time to live and leases (default: the system's). */
  now?: () => number;
  /** Entries kept per kind (records, done ids, counters, budgets, sets); the least recent go first. */
  maxEntries?: number;
  /** Default lock lease and wait. */
  lock?: LockOptions;
}

/**
 * Coordination within one process: enough for one replica of the app (the default), and the
 * reference the Redis store is tested against. Values are kept as JSON, as Redis keeps them, so a
 * caller that changes an object it read changes nothing stored.
 */
export class MemoryCoordination implements Coordination, LockBackend {
  readonly kind = "memory";
  readonly where = "this process's memory";
  private readonly now: () => number;
  private readonly lockDefaults: LockOptions;
  private readonly records: ExpiringLruMap<string, string>;
  private readonly done: ExpiringLruMap<string, true>;
  private readonly counters: ExpiringLruMap<string, number>;
  private readonly budgets: ExpiringLruMap<string, number[]>;
  /** Members and when each expires. */
  private readonly sets: ExpiringLruMap<string, Map<string, number>>;
  private readonly locks = new Map<string, { owner: string; token: number; expiresAt: number }>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private fence = 0;
  /** Wake-ups by bounded key: `due` is when one may be claimed next (a claim moves it). */
  private readonly wakeUps = new Map<
    string,
    { key: string; at: number; due: number; payload: string; claim?: string; tries: number }
  >();

  constructor(options: MemoryCoordinationOptions = {}) {
    this.now = options.now ?? Date.now;
    const max = options.maxEntries ?? 100_000;
    this.records = new ExpiringLruMap(max, this.now);
    this.done = new ExpiringLruMap(max, this.now);
    this.counters = new ExpiringLruMap(max, this.now);
    this.budgets = new ExpiringLruMap(max, this.now);
    this.sets = new ExpiringLruMap(max, this.now);
    this.lockDefaults = options.lock ?? {};
  }

  // ---- locks ----

  async tryLock(key: string, owner: string, leaseMs: number): Promise<number | undefined> {
    const k = boundedKey(key);
    const held = this.locks.get(k);
    if (held && held.expiresAt > this.now()) return undefined;
    const token = ++this.fence;
    this.locks.set(k, { owner, token, expiresAt: this.now() + leaseMs });
    return token;
  }

  async extendLock(key: string, owner: string, leaseMs: number): Promise<boolean> {
    const held = this.locks.get(boundedKey(key));
    if (!held || held.owner !== owner || held.expiresAt <= this.now()) return false;
    held.expiresAt = this.now() + leaseMs;
    return true;
  }

  async unlock(key: string, owner: string): Promise<boolean> {
    const k = boundedKey(key);
    const held = this.locks.get(k);
    const mine = held?.owner === owner && held.expiresAt > this.now();
    if (held?.owner === owner) this.locks.delete(k);
    for (const wake of this.waiters.get(k) ?? []) wake();
    return mine;
  }

  waitForUnlock(key: string, ms: number): Promise<void> {
    const k = boundedKey(key);
    return new Promise((resolve) => {
      const waiting = this.waiters.get(k) ?? new Set<() => void>();
      this.waiters.set(k, waiting);
      const wake = () => {
        clearTimeout(timer);
        waiting.delete(wake);
        if (waiting.size === 0 && this.waiters.get(k) === waiting) this.waiters.delete(k);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      waiting.add(wake);
    });
  }

  acquire(key: string, options?: LockOptions): Promise<Lease> {
    return acquireLease(this, key, { ...this.lockDefaults, ...options });
  }

  withLock<T>(key: string, fn: (fence: Fence) => Promise<T>, options?: LockOptions): Promise<T> {
    return withLease(this, key, fn, { ...this.lockDefaults, ...options });
  }

  // ---- done ids ----

  async isDone(id: string): Promise<boolean> {
    return this.done.get(boundedKey(id)) === true;
  }

  async markDone(id: string, ttlMs: number): Promise<void> {
    this.done.set(boundedKey(id), true, checkTtl(ttlMs));
  }

  // ---- records ----

  async get<T = JsonValue>(key: string): Promise<T | undefined> {
    const text = this.records.get(boundedKey(key));
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  async put(key: string, value: unknown, ttlMs: number): Promise<void> {
    this.records.set(boundedKey(key), encodeValue(value), checkTtl(ttlMs));
  }

  async delete(key: string): Promise<void> {
    this.records.delete(boundedKey(key));
  }

  async raiseTo(key: string, n: number, ttlMs: number): Promise<Raised> {
    const k = boundedKey(key);
    checkCount(n, "a raised number");
    checkTtl(ttlMs);
    const current = this.counters.get(k) ?? 0;
    const highest = Math.max(current, n);
    this.counters.set(k, highest, ttlMs);
    return { behind: n < current, highest };
  }

  async spend(key: string, budget: Budget, now: number): Promise<boolean> {
    const k = boundedKey(key);
    checkBudget(budget);
    const at = checkTime(now, "the budget's time");
    const recent = (this.budgets.get(k) ?? []).filter((t) => at - t < budget.windowMs);
    if (recent.length >= budget.count) return false;
    this.budgets.set(k, [...recent, at], budget.windowMs);
    return true;
  }

  // ---- sets ----

  async addToSet(key: string, member: string, ttlMs: number): Promise<void> {
    const k = boundedKey(key);
    checkMember(member);
    checkTtl(ttlMs);
    const now = this.now();
    const members = this.liveMembers(k, now);
    members.delete(member);
    // Room is made before the member is added (the soonest to expire go), as in the Redis store.
    while (members.size >= COORDINATION_LIMITS.setMembers) {
      let first: [string, number] | undefined;
      for (const entry of members) if (!first || entry[1] < first[1]) first = entry;
      members.delete((first as [string, number])[0]);
    }
    members.set(member, now + ttlMs);
    const lastExpiry = Math.max(...members.values());
    this.sets.set(k, members, lastExpiry - now);
  }

  async members(key: string): Promise<string[]> {
    return [...this.liveMembers(boundedKey(key), this.now()).keys()];
  }

  private liveMembers(k: string, now: number): Map<string, number> {
    const members = this.sets.get(k) ?? new Map<string, number>();
    for (const [m, expiresAt] of members) if (expiresAt <= now) members.delete(m);
    return members;
  }

  // ---- wake-ups ----

  async schedule(key: string, at: number, payload: unknown): Promise<void> {
    const k = boundedKey(checkWakeUpKey(key));
    const when = checkTime(at, "a wake-up's time");
    const text = encodeValue(payload);
    if (!this.wakeUps.has(k) && this.wakeUps.size >= COORDINATION_LIMITS.wakeUps)
      throw new CoordinationError(
        "COORD-FULL",
        `${COORDINATION_LIMITS.wakeUps} wake-ups are scheduled already: cancel some first`,
      );
    // Scheduled anew: whatever claim held it is over.
    this.wakeUps.set(k, { key, at: when, due: when, payload: text, tries: 0 });
  }

  async cancel(key: string): Promise<void> {
    this.wakeUps.delete(boundedKey(checkWakeUpKey(key)));
  }

  async due(now: number, limit = 100, leaseMs = DEFAULT_WAKE_UP_LEASE_MS): Promise<WakeUp[]> {
    const at = checkTime(now, "the time of due wake-ups");
    const until = at + checkTtl(leaseMs);
    const claim = randomUUID();
    const due = [...this.wakeUps.values()]
      .filter((w) => w.due <= at)
      .sort((a, b) => a.due - b.due)
      .slice(0, Math.max(0, limit));
    // Claimed in the same turn as they were found: no other caller can take them meanwhile.
    for (const w of due) Object.assign(w, { due: until, claim });
    return due.map((w) => ({
      key: w.key,
      at: w.at,
      payload: JSON.parse(w.payload) as JsonValue,
      claim,
      tries: w.tries,
    }));
  }

  async extendClaim(key: string, claim: string, until: number): Promise<boolean> {
    const w = this.claimed(key, claim);
    if (w) w.due = checkTime(until, "a claim's end");
    return w !== undefined;
  }

  async complete(key: string, claim: string): Promise<boolean> {
    const w = this.claimed(key, claim);
    if (w) this.wakeUps.delete(boundedKey(key));
    return w !== undefined;
  }

  async release(key: string, claim: string, at: number): Promise<boolean> {
    const w = this.claimed(key, claim);
    if (!w) return false;
    w.due = checkTime(at, "a wake-up's time");
    delete w.claim;
    w.tries++;
    return true;
  }

  private claimed(key: string, claim: string) {
    const w = this.wakeUps.get(boundedKey(checkWakeUpKey(key)));
    return w?.claim !== undefined && w.claim === claim ? w : undefined;
  }

  /** Nothing to close: the store lives as long as the process. */
  async close(): Promise<void> {}
}
