import { LruMap } from "../core/util/lru.js";

export { LruMap };

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
