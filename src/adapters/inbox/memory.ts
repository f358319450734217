import type { Inbox, InboxDelivery, InboxEntry } from "../../runtime/inbox.js";

/** A dead entry as recorded: which delivery, why, and when (epoch ms). */
export interface DeadDelivery {
  id: string;
  name: string;
  attempts: number;
  reason: string;
  at: number;
}

/** How many dead deliveries are kept for inspection (the newest). */
const DEAD_KEPT = 1000;

/**
 * The inbox in this process's memory (one replica, no Redis): entries ready now, entries waiting
 * for their retry, and the ones taken. A process that ends loses it; entries are only ever
 * dropped by being acknowledged or recorded as dead.
 */
export class MemoryInbox implements Inbox {
  readonly kind = "memory";
  private readonly ready: InboxEntry[] = [];
  private readonly later: { at: number; entry: InboxEntry }[] = [];
  private readonly taken = new Map<string, InboxEntry>();
  readonly deadLetters: DeadDelivery[] = [];
  private readonly waiting = new Set<() => void>();
  private seq = 0;
  private closed = false;

  constructor(private readonly now: () => number = Date.now) {}

  private notify(): void {
    for (const wake of this.waiting) wake();
    this.waiting.clear();
  }

  private add(delivery: InboxDelivery, attempt: number, front = false): void {
    const entry: InboxEntry = { ...delivery, attempt, ref: String(++this.seq) };
    if (front) this.ready.unshift(entry);
    else this.ready.push(entry);
    this.notify();
  }

  enqueue(delivery: InboxDelivery): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the inbox is closed"));
    this.add({ id: delivery.id, name: delivery.name, payload: delivery.payload }, 0);
    return Promise.resolve();
  }

  private promote(): void {
    const now = this.now();
    this.later.sort((a, b) => a.at - b.at);
    while (this.later.length && (this.later[0]?.at ?? Infinity) <= now) {
      const due = this.later.shift();
      if (due) this.ready.push(due.entry);
    }
  }

  async take(max: number, waitMs: number): Promise<InboxEntry[]> {
    this.promote();
    if (this.ready.length === 0 && !this.closed) {
      const nextDue = this.later.length ? Math.min(...this.later.map((l) => l.at)) : Infinity;
      const wait = Math.max(0, Math.min(waitMs, nextDue - this.now()));
      let timer: ReturnType<typeof setTimeout> | undefined;
      let wake: () => void = () => undefined;
      await new Promise<void>((resolve) => {
        wake = resolve;
        this.waiting.add(resolve);
        timer = setTimeout(resolve, wait);
      });
      clearTimeout(timer);
      this.waiting.delete(wake);
      this.promote();
    }
    const entries = this.ready.splice(0, Math.max(0, max));
    for (const e of entries) this.taken.set(e.ref, e);
    return entries;
  }

  ack(entry: InboxEntry): Promise<void> {
    this.taken.delete(entry.ref);
    return Promise.resolve();
  }

  retryAt(entry: InboxEntry, at: number): Promise<void> {
    if (!this.taken.delete(entry.ref)) return Promise.resolve();
    this.later.push({
      at,
      entry: { ...entry, attempt: entry.attempt + 1, ref: String(++this.seq) },
    });
    this.notify();
    return Promise.resolve();
  }

  dead(entry: InboxEntry, reason: string): Promise<void> {
    this.taken.delete(entry.ref);
    this.deadLetters.push({
      id: entry.id,
      name: entry.name,
      attempts: entry.attempt + 1,
      reason,
      at: this.now(),
    });
    if (this.deadLetters.length > DEAD_KEPT) this.deadLetters.shift();
    return Promise.resolve();
  }

  giveBack(entry: InboxEntry): Promise<void> {
    if (this.taken.delete(entry.ref)) this.add(entry, entry.attempt, true);
    return Promise.resolve();
  }

  /** Nobody else takes an entry from this process's memory: nothing to keep. */
  touch(): Promise<void> {
    return Promise.resolve();
  }

  unwritable(): Promise<string | undefined> {
    return Promise.resolve(this.closed ? "the inbox is closed" : undefined);
  }

  /** Entries not finished: ready, waiting for a retry, or taken. */
  get size(): number {
    return this.ready.length + this.later.length + this.taken.size;
  }

  close(): Promise<void> {
    this.closed = true;
    this.notify();
    return Promise.resolve();
  }
}
