/**
 * The inbox port: webhook deliveries whose signature was checked wait here until a worker has done
 * their work. The route answers GitHub 202 once a delivery is in the inbox; from then on finishing
 * it is the app's job (GitHub never redelivers a delivery answered 2xx). One process keeps the
 * inbox in memory; replicas share one on Redis (src/adapters/inbox).
 */

/** A delivery as GitHub sent it: its id (X-GitHub-Delivery), event name and JSON payload. */
export interface InboxDelivery {
  id: string;
  name: string;
  payload: Record<string, unknown>;
}

/** A delivery taken by a worker: `attempt` counts the tries that failed before this one. */
export interface InboxEntry extends InboxDelivery {
  attempt: number;
  /** The inbox's own handle on this entry (a stream id on Redis). */
  ref: string;
}

export interface Inbox {
  readonly kind: "memory" | "redis";
  /** Stores a delivery; resolves once it is stored (a failure means it is not). */
  enqueue(delivery: InboxDelivery): Promise<void>;
  /** Up to `max` entries for this worker, waiting up to `waitMs` when there are none. */
  take(max: number, waitMs: number): Promise<InboxEntry[]>;
  /** The entry's work is done: it leaves the inbox. */
  ack(entry: InboxEntry): Promise<void>;
  /** The entry's work failed: it is taken again, with one more attempt counted, from `at` (epoch ms). */
  retryAt(entry: InboxEntry, at: number): Promise<void>;
  /** The entry failed for good: it leaves the inbox and is recorded as dead with `reason`. */
  dead(entry: InboxEntry, reason: string): Promise<void>;
  /** The entry was not finished here: any worker may take it at once. */
  giveBack(entry: InboxEntry): Promise<void>;
  /** These entries are still being worked on here: nobody else claims them yet. */
  touch(entries: InboxEntry[]): Promise<void>;
  /** Why a delivery could not be stored now, or undefined when it could (for `/readyz`). */
  unwritable(): Promise<string | undefined>;
  close(): Promise<void>;
}

/** What the worker reports (logs and metrics are the caller's). */
export interface InboxObserver {
  done?(entry: InboxEntry, ms: number): void;
  retry?(entry: InboxEntry, error: unknown, delayMs: number): void;
  dead?(entry: InboxEntry, error: unknown): void;
  /** The inbox itself failed (taking, acknowledging): the entry stays and is taken again later. */
  trouble?(what: string, error: unknown): void;
}

export interface InboxWorkerOptions {
  /** Entries worked on at once by this worker (default 8). */
  concurrency?: number;
  /** Tries before an entry is dead (default 8). */
  maxAttempts?: number;
  /** The first retry's delay; each next one doubles, up to `retryCapMs` (defaults 1 s, 5 min). */
  retryBaseMs?: number;
  retryCapMs?: number;
  /** How long one `take` waits for entries (default 1 s): also how soon a stop is noticed. */
  pollMs?: number;
  /** How often the entries in work are touched (default 10 s). */
  touchEveryMs?: number;
  observer?: InboxObserver;
  /** The clock retries are scheduled by (epoch ms). */
  now?: () => number;
}

/** The delay before the retry that follows `attempt` failed tries: doubling, capped, jittered ±20%. */
export function retryDelay(attempt: number, baseMs: number, capMs: number, random = Math.random) {
  const plain = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.max(1, Math.round(plain * (0.8 + 0.4 * random())));
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Takes entries from an inbox and runs `handle` on each, at most `concurrency` at once. An entry
 * is acknowledged only after `handle` succeeded; a failure is retried after an exponential
 * backoff, and after `maxAttempts` tries the entry is recorded as dead (never dropped silently).
 * `stop` ends the taking; `settle` waits for the work in flight, and `handBack` gives back what is
 * still unfinished.
 */
export class InboxWorker {
  private readonly inFlight = new Map<InboxEntry, Promise<void>>();
  private readonly options: Required<Omit<InboxWorkerOptions, "observer">>;
  private readonly observer: InboxObserver;
  private running = false;
  private loop: Promise<void> | undefined;
  /** Resolved by `stop`: a loop waiting for a free slot stops waiting. */
  private stopped: () => void = () => undefined;
  private readonly stopping = new Promise<void>((resolve) => (this.stopped = resolve));
  private toucher: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly inbox: Inbox,
    private readonly handle: (delivery: InboxDelivery) => Promise<void>,
    options: InboxWorkerOptions = {},
  ) {
    this.options = {
      concurrency: options.concurrency ?? 8,
      maxAttempts: options.maxAttempts ?? 8,
      retryBaseMs: options.retryBaseMs ?? 1_000,
      retryCapMs: options.retryCapMs ?? 5 * 60_000,
      pollMs: options.pollMs ?? 1_000,
      touchEveryMs: options.touchEveryMs ?? 10_000,
      now: options.now ?? Date.now,
    };
    this.observer = options.observer ?? {};
  }

  /** The entries in work now. */
  get busy(): number {
    return this.inFlight.size;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.takeLoop();
    this.toucher = setInterval(() => void this.touch(), this.options.touchEveryMs);
    this.toucher.unref();
  }

  /** No more entries are taken; the work in flight goes on. Resolves once the taking ended. */
  async stop(): Promise<void> {
    this.running = false;
    this.stopped();
    await this.loop;
  }

  private async takeLoop(): Promise<void> {
    while (this.running) {
      const free = this.options.concurrency - this.inFlight.size;
      if (free <= 0) {
        await Promise.race([...this.inFlight.values(), this.stopping]);
        continue;
      }
      let entries: InboxEntry[];
      try {
        entries = await this.inbox.take(free, this.options.pollMs);
      } catch (err) {
        this.observer.trouble?.("take entries", err);
        await new Promise((resolve) => setTimeout(resolve, this.options.pollMs));
        continue;
      }
      const mine = new Set([...this.inFlight.keys()].map((e) => e.ref));
      for (const entry of entries) {
        // Already in work here (claimed again while its touch was late): not run twice.
        if (mine.has(entry.ref)) continue;
        // Taken while stopping: given straight back, for another worker.
        if (!this.running) void this.inbox.giveBack(entry).catch(() => undefined);
        else
          this.inFlight.set(
            entry,
            this.work(entry).finally(() => this.inFlight.delete(entry)),
          );
      }
    }
  }

  private async work(entry: InboxEntry): Promise<void> {
    const since = this.options.now();
    try {
      await this.handle({ id: entry.id, name: entry.name, payload: entry.payload });
    } catch (err) {
      await this.failed(entry, err);
      return;
    }
    try {
      await this.inbox.ack(entry);
      this.observer.done?.(entry, this.options.now() - since);
    } catch (err) {
      // Not acknowledged: the entry is taken again and its delivery's dedupe makes that a no-op.
      this.observer.trouble?.(`acknowledge delivery ${entry.id}`, err);
    }
  }

  private async failed(entry: InboxEntry, err: unknown): Promise<void> {
    const tries = entry.attempt + 1;
    try {
      if (tries >= this.options.maxAttempts) {
        await this.inbox.dead(entry, `${tries} tries failed; the last: ${message(err)}`);
        this.observer.dead?.(entry, err);
        return;
      }
      const delay = retryDelay(tries, this.options.retryBaseMs, this.options.retryCapMs);
      await this.inbox.retryAt(entry, this.options.now() + delay);
      this.observer.retry?.(entry, err, delay);
    } catch (inboxErr) {
      this.observer.trouble?.(`schedule the retry of delivery ${entry.id}`, inboxErr);
    }
  }

  private async touch(): Promise<void> {
    if (this.inFlight.size === 0) return;
    try {
      await this.inbox.touch([...this.inFlight.keys()]);
    } catch (err) {
      this.observer.trouble?.("keep the claim of the entries in work", err);
    }
  }

  /** Resolves once no entry is in work, or after `ms`; with the entries still in work. */
  async settle(ms: number): Promise<InboxEntry[]> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    while (this.inFlight.size > 0) {
      const ended = await Promise.race([
        Promise.allSettled(this.inFlight.values()).then(() => true),
        late.then(() => false),
      ]);
      if (!ended) break;
    }
    clearTimeout(timer);
    return [...this.inFlight.keys()];
  }

  /** Gives back every entry still in work (their handlers are abandoned); the ones handed back. */
  async handBack(): Promise<InboxEntry[]> {
    clearInterval(this.toucher);
    const entries = [...this.inFlight.keys()];
    const given: InboxEntry[] = [];
    for (const entry of entries) {
      try {
        await this.inbox.giveBack(entry);
        given.push(entry);
      } catch (err) {
        this.observer.trouble?.(`give back delivery ${entry.id}`, err);
      }
    }
    return given;
  }
}
