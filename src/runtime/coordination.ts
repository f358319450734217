import { createHash, randomUUID } from "node:crypto";

/**
 * The coordination port: what the app's replicas share so that each thing is done once. One
 * process uses the in-memory store; several replicas share one Redis. Values are small JSON
 * records with a time to live; nothing secret is ever stored (delivery ids, issue numbers, run
 * ids, sequence numbers, timestamps and alert-to-issue links only).
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

/** The holder's proof of a lock: tokens grow with every grant, across keys and processes. */
export interface Fence {
  readonly key: string;
  /** Larger for every later grant of any lock of the store: a write with a smaller one is stale. */
  readonly token: number;
  /** Aborted when the lease could not be renewed: another process may hold the lock now. */
  readonly signal: AbortSignal;
  /**
   * Confirms, with the store, that this holder still holds the lock (and extends its lease);
   * throws LockLostError when it does not. Called before each write that the lock guards, so a
   * holder whose lease ran out during a slow request never writes after another took over.
   */
  confirm(): Promise<void>;
}

/** A granted lock: it expires after its lease unless renewed. */
export interface Lease extends Fence {
  /** Extends the lease; false when it had already expired (and so may be someone else's). */
  renew(): Promise<boolean>;
  /** Frees the lock; false when it had already expired. */
  release(): Promise<boolean>;
}

export interface LockOptions {
  /** How long to wait for another holder to let go before giving up with LockTimeoutError. */
  waitMs?: number;
  /** How long the lock lasts without renewal (a holder that died frees it after this long). */
  leaseMs?: number;
}

/** The answer of `raiseTo`: the highest value now stored, and whether the given one was behind it. */
export interface Raised {
  behind: boolean;
  highest: number;
}

/** At most `count` uses in any window of `windowMs`. */
export interface Budget {
  count: number;
  windowMs: number;
}

/**
 * A wake-up claimed by `due`: scheduled for `at` (epoch ms) with its payload. It stays in the
 * store, held by this claim until the claim's lease ends: `complete` removes it once its work
 * succeeded, `release` gives it back for a later time; a claimer that dies does neither, and the
 * wake-up is due again when the lease runs out.
 */
export interface WakeUp {
  key: string;
  /** When it was scheduled for (a claim or a release does not change it). */
  at: number;
  payload: JsonValue;
  /** This claim's token: only it completes, releases or extends the claim. */
  claim: string;
  /** How many claims of it were released before this one (its work failed that often). */
  tries: number;
}

export interface Coordination {
  /** Which store this is (the app logs it at start). */
  readonly kind: "memory" | "redis";
  /** Where the store is, without credentials (for logs). */
  readonly where: string;

  /** The lock on `key`, waited for up to `waitMs`; the caller renews and releases it. */
  acquire(key: string, options?: LockOptions): Promise<Lease>;
  /**
   * `fn` while holding the lock on `key` across processes: the lease is renewed while it runs;
   * a lease lost meanwhile makes the call fail with LockLostError, even if `fn` succeeded.
   */
  withLock<T>(key: string, fn: (fence: Fence) => Promise<T>, options?: LockOptions): Promise<T>;

  /** Whether the work of this id (a webhook delivery, an alert event) succeeded before. */
  isDone(id: string): Promise<boolean>;
  /** Records that the work of this id succeeded: call only after it did. */
  markDone(id: string, ttlMs: number): Promise<void>;

  /** A record (as it was put), or undefined when absent or expired. */
  get<T = JsonValue>(key: string): Promise<T | undefined>;
  /** Stores a JSON value (objects, arrays, strings, numbers, booleans, null) of bounded size. */
  put(key: string, value: unknown, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;

  /** Stores `n` unless a larger number is stored already: a counter that never goes back. */
  raiseTo(key: string, n: number, ttlMs: number): Promise<Raised>;
  /** Takes one use of the budget at `now` (epoch ms); false when the window's uses are spent. */
  spend(key: string, budget: Budget, now: number): Promise<boolean>;

  /** Adds a member to a set; each member expires `ttlMs` after it was last added. */
  addToSet(key: string, member: string, ttlMs: number): Promise<void>;
  members(key: string): Promise<string[]>;

  /** Schedules (or moves) the wake-up `key` for `at` (epoch ms). */
  schedule(key: string, at: number, payload: unknown): Promise<void>;
  cancel(key: string): Promise<void>;
  /**
   * Claims the wake-ups due at `now`, oldest first, each for `leaseMs` (default
   * DEFAULT_WAKE_UP_LEASE_MS): a wake-up is held by one claim at a time. A wake-up scheduled or
   * cancelled meanwhile (the run saved its next one) ends the claim.
   */
  due(now: number, limit?: number, leaseMs?: number): Promise<WakeUp[]>;
  /** Holds a claimed wake-up until `until` (epoch ms); false when the claim is no longer held. */
  extendClaim(key: string, claim: string, until: number): Promise<boolean>;
  /** Removes a claimed wake-up: its work succeeded. False when the claim was no longer held. */
  complete(key: string, claim: string): Promise<boolean>;
  /**
   * Gives a claimed wake-up back, due again at `at` (its work failed): any claimer may take it
   * then, and its `tries` grows by one. False when the claim was no longer held.
   */
  release(key: string, claim: string, at: number): Promise<boolean>;

  /** Ends the store's connections. */
  close(): Promise<void>;
}

/** Sizes and times every store keeps to. */
export const COORDINATION_LIMITS = {
  /** Longer keys keep their start and a hash of the whole. */
  keyChars: 200,
  valueBytes: 256 * 1024,
  wakeUpKeyChars: 1000,
  memberChars: 200,
  /** The newest members of a set are kept. */
  setMembers: 1000,
  wakeUps: 100_000,
  maxTtlMs: 366 * 24 * 3_600_000,
} as const;

export const DEFAULT_LOCK = { leaseMs: 30_000, waitMs: 60_000 } as const;

/**
 * How long a claim holds a wake-up unless extended (its claimer renews it every third of this
 * while the tick runs): a claimer that died gives it up then, and another replica's next poll
 * takes it. As long as an issue lock's lease, so neither alone delays a takeover.
 */
export const DEFAULT_WAKE_UP_LEASE_MS = 30_000;

/** A failure of the coordination store; `code` says which kind. */
export class CoordinationError extends Error {
  constructor(
    readonly code:
      | "COORD-UNAVAILABLE"
      | "COORD-LOCK-TIMEOUT"
      | "COORD-LOCK-LOST"
      | "COORD-BAD-INPUT"
      | "COORD-FULL",
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "CoordinationError";
  }
}

/** The lock could not be had within the deadline: another process holds it. */
export class LockTimeoutError extends CoordinationError {
  constructor(key: string, waitMs: number) {
    super(
      "COORD-LOCK-TIMEOUT",
      `the lock on '${shortKey(key)}' could not be had within ${waitMs} ms: another process holds it (it frees itself when its lease ends)`,
    );
    this.name = "LockTimeoutError";
  }
}

/** The lease ended before the work did: another process may have done the same work meanwhile. */
export class LockLostError extends CoordinationError {
  constructor(key: string, cause?: unknown) {
    super(
      "COORD-LOCK-LOST",
      `the lock on '${shortKey(key)}' was lost while the work ran (its lease could not be renewed${cause instanceof Error ? `: ${cause.message}` : ""})`,
      { cause },
    );
    this.name = "LockLostError";
  }
}

function shortKey(key: string): string {
  return key.length > 120 ? `${key.slice(0, 117)}…` : key;
}

function badInput(message: string): CoordinationError {
  return new CoordinationError("COORD-BAD-INPUT", message);
}

/**
 * A key of bounded size: short keys as they are, long ones as their first characters and a hash
 * of the whole (two long keys never meet).
 */
export function boundedKey(key: string): string {
  if (typeof key !== "string" || key === "")
    throw badInput("a coordination key must be a non-empty string");
  if (key.length <= COORDINATION_LIMITS.keyChars) return key;
  const digest = createHash("sha256").update(key).digest("hex").slice(0, 40);
  return `${key.slice(0, 100)}…${digest}`;
}

export function checkTtl(ttlMs: number): number {
  if (!Number.isInteger(ttlMs) || ttlMs < 1 || ttlMs > COORDINATION_LIMITS.maxTtlMs)
    throw badInput(
      `ttlMs must be a whole number of milliseconds from 1 to ${COORDINATION_LIMITS.maxTtlMs}, not ${String(ttlMs)}`,
    );
  return ttlMs;
}

export function checkCount(n: number, what: string): number {
  if (!Number.isSafeInteger(n) || n < 0)
    throw badInput(`${what} must be a whole number from 0 up, not ${String(n)}`);
  return n;
}

export function checkBudget(budget: Budget): Budget {
  checkCount(budget.count, "a budget's count");
  checkTtl(budget.windowMs);
  return budget;
}

export function checkMember(member: string): string {
  if (
    typeof member !== "string" ||
    member === "" ||
    member.length > COORDINATION_LIMITS.memberChars
  )
    throw badInput(
      `a set member must be a string of 1 to ${COORDINATION_LIMITS.memberChars} characters`,
    );
  return member;
}

export function checkWakeUpKey(key: string): string {
  if (typeof key !== "string" || key === "" || key.length > COORDINATION_LIMITS.wakeUpKeyChars)
    throw badInput(
      `a wake-up key must be a string of 1 to ${COORDINATION_LIMITS.wakeUpKeyChars} characters`,
    );
  return key;
}

export function checkTime(at: number, what: string): number {
  if (!Number.isFinite(at)) throw badInput(`${what} must be a time in epoch milliseconds`);
  return Math.floor(at);
}

/** A value as stored: JSON of at most `valueBytes`. */
export function encodeValue(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw badInput(`a coordination value must be JSON: ${(err as Error).message}`);
  }
  if (text === undefined) throw badInput("a coordination value must be JSON, not undefined");
  if (Buffer.byteLength(text) > COORDINATION_LIMITS.valueBytes)
    throw badInput(
      `a coordination value may take at most ${COORDINATION_LIMITS.valueBytes} bytes as JSON; this one takes ${Buffer.byteLength(text)}`,
    );
  return text;
}

/** What a store implements for `acquire` and `withLock`. */
export interface LockBackend {
  /** Takes the lock for `owner` unless someone holds it; its fencing token when taken. */
  tryLock(key: string, owner: string, leaseMs: number): Promise<number | undefined>;
  extendLock(key: string, owner: string, leaseMs: number): Promise<boolean>;
  unlock(key: string, owner: string): Promise<boolean>;
  /** Resolves when the lock may have been freed, or after `ms` at the latest. */
  waitForUnlock(key: string, ms: number): Promise<void>;
}

/** Waits for the lock, polling the backend with a growing pause, until `waitMs` have passed. */
export async function acquireLease(
  backend: LockBackend,
  key: string,
  options: LockOptions = {},
): Promise<Lease> {
  const leaseMs = checkTtl(options.leaseMs ?? DEFAULT_LOCK.leaseMs);
  const waitMs = options.waitMs ?? DEFAULT_LOCK.waitMs;
  const owner = randomUUID();
  const deadline = Date.now() + waitMs;
  for (let pause = 2; ; pause = Math.min(pause * 2, 100)) {
    const token = await backend.tryLock(key, owner, leaseMs);
    if (token !== undefined) {
      const abort = new AbortController();
      let held = true;
      const lease: Lease = {
        key,
        token,
        signal: abort.signal,
        renew: async () => {
          if (!held) return false;
          let ok: boolean;
          try {
            ok = await backend.extendLock(key, owner, leaseMs);
          } catch (err) {
            // Unknown whether the lease still holds: the work must not count on it.
            abort.abort(new LockLostError(key, err));
            throw err;
          }
          if (!ok) {
            held = false;
            abort.abort(new LockLostError(key));
          }
          return ok;
        },
        release: async () => {
          if (!held) return false;
          held = false;
          return backend.unlock(key, owner);
        },
        confirm: async () => {
          if (abort.signal.aborted || !(await lease.renew()))
            throw abort.signal.reason instanceof Error
              ? abort.signal.reason
              : new LockLostError(key);
        },
      };
      return lease;
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new LockTimeoutError(key, waitMs);
    // A little jitter so that waiting processes do not ask in step.
    await backend.waitForUnlock(key, Math.min(left, pause + Math.floor(Math.random() * pause)));
  }
}

/** `fn` under the lock, renewing its lease every third of it; see Coordination.withLock. */
export async function withLease<T>(
  backend: LockBackend,
  key: string,
  fn: (fence: Fence) => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const leaseMs = options.leaseMs ?? DEFAULT_LOCK.leaseMs;
  const lease = await acquireLease(backend, key, options);
  let renewing: Promise<unknown> | undefined;
  const timer = setInterval(
    () => {
      // A renewal that fails aborts the lease's signal; the work's end reports it.
      renewing ??= lease
        .renew()
        .catch(() => false)
        .finally(() => {
          renewing = undefined;
        });
    },
    Math.max(5, Math.floor(leaseMs / 3)),
  );
  timer.unref?.();
  try {
    const value = await fn(lease);
    await renewing;
    if (lease.signal.aborted) throw lease.signal.reason;
    return value;
  } finally {
    clearInterval(timer);
    await renewing;
    // A release that fails leaves the lock to expire with its lease.
    await lease.release().catch(() => false);
  }
}

export type OnceResult<T> = { duplicate: true } | { duplicate: false; value: T };

/**
 * Work done once per id across processes (a webhook delivery, an alert event): skipped when done;
 * otherwise run under the lock `lockKey` and marked done only after it succeeded, so a retry of
 * a failure does the work, and a copy that arrives meanwhile waits and then finds it done.
 */
export async function doOnce<T>(
  coordination: Coordination,
  id: string,
  lockKey: string,
  ttlMs: number,
  work: (fence: Fence) => Promise<T>,
  options?: LockOptions,
): Promise<OnceResult<T>> {
  if (await coordination.isDone(id)) return { duplicate: true };
  return coordination.withLock(
    lockKey,
    async (fence): Promise<OnceResult<T>> => {
      if (await coordination.isDone(id)) return { duplicate: true };
      const value = await work(fence);
      // Another process may have the lock now: the work is not counted as done by this one.
      if (fence.signal.aborted) throw fence.signal.reason;
      await coordination.markDone(id, ttlMs);
      return { duplicate: false, value };
    },
    options,
  );
}
