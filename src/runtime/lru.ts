/** A map that forgets its least recently used entries beyond a size. */
export class LruMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as K);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  get size(): number {
    return this.map.size;
  }
}

/** An LruMap whose entries also expire, each `ttlMs` after it was set (by the clock `now`). */
export class ExpiringLruMap<K, V> {
  private readonly map: LruMap<K, { value: V; expiresAt: number }>;

  constructor(
    max: number,
    private readonly now: () => number = Date.now,
  ) {
    this.map = new LruMap(max);
  }

  get(key: K): V | undefined {
    const entry = this.map.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.map.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V, ttlMs: number): void {
    this.map.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  get size(): number {
    return this.map.size;
  }
}

/**
 * Work serialised per key (one issue at a time), different keys in parallel. A failure in one
 * task does not stop the tasks queued behind it.
 */
export class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  /** `deadlineMs`: the caller of a task that takes longer is answered with GH-TIMEOUT. */
  constructor(private readonly deadlineMs?: number) {}

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    // The next task waits for this one to end for real (two at once could overwrite each other's
    // state); past the deadline the caller is told GH-TIMEOUT, and requests' own timeouts end it.
    const next = previous.catch(() => undefined).then(task);
    this.tails.set(key, next);
    void next
      .finally(() => {
        if (this.tails.get(key) === next) this.tails.delete(key);
      })
      .catch(() => undefined);
    return this.deadlineMs ? withDeadline(next, this.deadlineMs, `work on ${key}`) : next;
  }

  get pending(): number {
    return this.tails.size;
  }
}

/**
 * Work done once per id (a webhook delivery, an alert event). An id counts as done only when its
 * work succeeded, so a retry of a failed delivery does the work instead of being taken for a
 * duplicate; copies that arrive while it runs wait for that one attempt and share its outcome.
 */
export class OnceLedger {
  private readonly done: LruMap<string, true>;
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(max = 10_000) {
    this.done = new LruMap(max);
  }

  async run<T>(
    id: string,
    work: () => Promise<T>,
  ): Promise<{ duplicate: true } | { duplicate: false; value: T }> {
    if (this.done.has(id)) return { duplicate: true };
    const inFlight = this.running.get(id);
    if (inFlight) {
      await inFlight;
      return { duplicate: true };
    }
    const attempt = work();
    this.running.set(id, attempt);
    try {
      const value = await attempt;
      this.done.set(id, true);
      return { duplicate: false, value };
    } finally {
      this.running.delete(id);
    }
  }
}

/** Thrown when work takes longer than its deadline; the work itself may still be running. */
export class DeadlineError extends Error {
  readonly code = "GH-TIMEOUT";
  constructor(what: string, ms: number) {
    super(`${what} took longer than ${ms} ms`);
    this.name = "DeadlineError";
  }
}

/** The promise's outcome, or a DeadlineError once `ms` have passed. */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(what, ms)), ms);
    timer.unref?.();
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
