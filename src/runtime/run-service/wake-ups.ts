import { DEFAULT_WAKE_UP_LEASE_MS, type Coordination, type WakeUp } from "../coordination.js";
import type { Scheduler, Wake } from "../ports.js";
import { isNetworkError } from "../request-errors.js";

/**
 * Time passing in the app. A run that waits for a time (a checkpoint's reminder or timeout, a
 * retry's backoff, the playbook's `limits.timeout`) gets a wake-up in the coordination store,
 * keyed by installation, repository, issue and run; a timer claims the due ones (each exactly
 * once, across replicas) and delivers a tick to the issue. While a run of an issue waits for a
 * time the issue carries the `playbook-bot:waiting` label, so a process that starts without the
 * wake-ups (the in-memory store after a restart) finds those issues and ticks them.
 *
 * A claim is a lease, not a removal: the wake-up stays in the store until its tick succeeded (or
 * the run's save replaced it with the next one). A replica that dies mid-tick lets its lease run
 * out and another replica claims the wake-up; a tick that fails gives it back for a later time.
 */

/** The label kept on issues while one of their runs waits for a time. */
export const WAITING_LABEL = {
  name: "playbook-bot:waiting",
  color: "c5def5",
  description: "A Playbook Bot run on this issue waits for a time (a reminder, a timeout, a retry)",
};

/** Where a wake-up goes: ids and numbers only (the issue itself is read when it fires). */
export interface IssueAddress {
  installation: number;
  repository: number;
  owner: string;
  repo: string;
  defaultBranch: string;
  issue: number;
}

/** A wake-up's payload: the issue, and the run to tick ("" when every run of the issue is). */
export interface IssueWakeUp extends IssueAddress {
  run: string;
}

/** How long the ids of an issue's runs that wait for a time are remembered (at most). */
const WAITING_TTL_MS = 366 * 24 * 3_600_000;
/**
 * A wake-up whose tick failed (a lock held, an error of GitHub's) is given back for this much
 * later at first, twice as long after each further failure up to `most`, less up to half at
 * random, so replicas do not retry in step. A tick that failed because GitHub could not be reached
 * gives its wake-up back at once, and that replica claims none for the same backoff (by its
 * failures in a row), so that a replica that reaches GitHub does the work.
 */
export const WAKE_UP_RETRY = { first: 5_000, most: 5 * 60_000 } as const;
/**
 * How often each process asks the store for due wake-ups. Besides the times it set itself, this
 * is how a replica takes over a wake-up whose claimer died: with the 30 s lease, a timeout falls
 * due at most about 45 s late on another replica. One cheap read (one Lua step on Redis).
 */
export const WAKE_UP_POLL_MS = 15_000;
/** How many wake-up times one process remembers for its precise timeout (the rest: polling). */
const MAX_KNOWN_TIMES = 1000;

export function wakeUpKey(a: IssueAddress, run: string): string {
  return `wake:${a.installation}:${a.repository}:${a.issue}:${run || "*"}`;
}

export function waitingKey(a: IssueAddress): string {
  return `waiting-runs:${a.installation}:${a.repository}:${a.issue}`;
}

/**
 * The wake-ups of one issue during one event, and whether its label must change at the end. The
 * interpreter's scheduler: it records each run's next wake-up and never waits in process (the
 * app moves one step per event).
 */
export class IssueWakeUps {
  private scheduled = false;
  private released = false;

  constructor(
    private readonly store: Coordination,
    private readonly address: IssueAddress,
    private readonly armed?: (at: number) => void,
  ) {}

  /** A save of the run: its wake-up (if any) is dropped; the wait that follows schedules anew. */
  async saved(run: string): Promise<void> {
    await this.store.cancel(wakeUpKey(this.address, run));
    const waiting = await this.waiting();
    if (waiting.includes(run)) {
      await this.store.put(
        waitingKey(this.address),
        waiting.filter((id) => id !== run),
        WAITING_TTL_MS,
      );
      this.released = true;
    }
  }

  /** The scheduler port: the run waits until `wake.at`; a later event or the timer carries it on. */
  readonly scheduler: Scheduler = {
    wake: async (wake: Wake) => {
      const at = Date.parse(wake.at);
      if (!Number.isFinite(at)) return false;
      const payload: IssueWakeUp = { ...this.address, run: wake.run };
      await this.store.schedule(wakeUpKey(this.address, wake.run), at, payload);
      const waiting = await this.waiting();
      if (!waiting.includes(wake.run))
        await this.store.put(waitingKey(this.address), [...waiting, wake.run], WAITING_TTL_MS);
      this.scheduled = true;
      this.armed?.(at);
      return false;
    },
  };

  /**
   * What the issue's label should become after this event: `add` when a run now waits for a
   * time and the label is not known to be there, `remove` when none does any more and the label
   * is (or may be) there; undefined when nothing changes.
   */
  async labelChange(labelled: boolean | undefined): Promise<"add" | "remove" | undefined> {
    const any = (await this.waiting()).length > 0;
    if (any && this.scheduled && labelled !== true) return "add";
    if (!any && (labelled === true || (labelled === undefined && this.released))) return "remove";
    return undefined;
  }

  private async waiting(): Promise<string[]> {
    const ids = await this.store.get<string[]>(waitingKey(this.address));
    return Array.isArray(ids) ? ids.filter((id) => typeof id === "string") : [];
  }
}

export interface WakeUpTimerOptions {
  store: Coordination;
  clock: () => Date;
  /** Delivers one wake-up (a tick to its issue); a failure is tried again later. */
  deliver: (wake: IssueWakeUp, at: number) => Promise<void>;
  log: (level: "info" | "warn" | "error", line: string) => void;
  /**
   * How often the store is asked for due wake-ups (default WAKE_UP_POLL_MS). The poll is what
   * finds a wake-up another replica claimed and died with, once the claim's lease ended.
   */
  pollMs?: number;
  /**
   * Also wake up at the times this process schedules (default true). Off when the caller moves
   * the clock itself and calls `runDue` (tests).
   */
  precise?: boolean;
  /** How long a claim holds a wake-up; renewed while its tick runs (default 60 s). */
  leaseMs?: number;
  /** The backoff after failed ticks (default WAKE_UP_RETRY). */
  retry?: { first: number; most: number };
  /** The jitter's source, from 0 to 1 (default Math.random). */
  random?: () => number;
}

/**
 * One timer per process: it asks the store for due wake-ups every `pollMs`, and also at the
 * nearest time this process scheduled. Its timers never keep the process alive; `stop` ends them
 * and waits for the deliveries under way.
 */
export class WakeUpTimer {
  private poller: ReturnType<typeof setInterval> | undefined;
  private precise: { at: number; timer: ReturnType<typeof setTimeout> } | undefined;
  /** The times this process set, nearest first (at most MAX_KNOWN_TIMES). */
  private known: number[] = [];
  private running: Promise<number> | undefined;
  private stopped = false;
  /** Ticks in a row that failed on network errors, and until when no wake-up is claimed. */
  private unreachable = { failures: 0, until: 0 };

  constructor(private readonly o: WakeUpTimerOptions) {}

  start(): void {
    if (this.poller || this.stopped) return;
    this.poller = setInterval(() => void this.runDue(), this.o.pollMs ?? WAKE_UP_POLL_MS);
    this.poller.unref();
  }

  /**
   * Wake up at `at` (epoch ms) too. The times set are kept (the nearest ones), so one that a
   * later save moved, or one that fell due while deliveries ran, is still woken up for.
   */
  arm(at: number): void {
    // Only a started timer wakes up (an app without wake-ups leaves them to the next event).
    if (!this.poller || this.o.precise === false) return;
    if (!this.known.includes(at)) {
      this.known.push(at);
      this.known.sort((a, b) => a - b);
      this.known.length = Math.min(this.known.length, MAX_KNOWN_TIMES);
    }
    this.setPrecise();
  }

  /** The one precise timeout, set for the nearest known time. */
  private setPrecise(): void {
    const next = this.known[0];
    if (next === undefined || this.stopped || this.precise?.at === next) return;
    if (this.precise) clearTimeout(this.precise.timer);
    // Timers take at most 2^31-1 ms; one that fires early just sets itself again.
    const delay = Math.min(Math.max(0, next - this.o.clock().getTime()), 2 ** 31 - 1);
    const timer = setTimeout(() => {
      this.precise = undefined;
      void this.fire();
    }, delay);
    timer.unref();
    this.precise = { at: next, timer };
  }

  /** The precise timeout fired: after the deliveries under way, claim what is due now. */
  private async fire(): Promise<void> {
    await this.running?.catch(() => undefined);
    const now = this.o.clock().getTime();
    this.known = this.known.filter((t) => t > now);
    await this.runDue();
    this.setPrecise();
  }

  /**
   * Claims the wake-ups due now and delivers each; one that fails is given back for a little
   * later, so none is lost. Returns how many were delivered. Runs one at a time.
   */
  runDue(): Promise<number> {
    if (this.stopped) return Promise.resolve(0);
    this.running ??= this.claimAndDeliver().finally(() => (this.running = undefined));
    return this.running;
  }

  private async claimAndDeliver(): Promise<number> {
    const now = this.o.clock().getTime();
    // A replica that cannot reach GitHub leaves the wake-ups to the others for a while.
    if (now < this.unreachable.until) return 0;
    let due: WakeUp[];
    try {
      // After network failures, one at a time: a probe, not a batch held by a replica that fails.
      const limit = this.unreachable.failures > 0 ? 1 : 100;
      due = await this.o.store.due(now, limit, this.leaseMs());
    } catch (err) {
      this.o.log("error", `wake-ups could not be read: ${String(err)}`);
      return 0;
    }
    let delivered = 0;
    for (const [i, w] of due.entries()) {
      if (this.o.clock().getTime() < this.unreachable.until) {
        // This replica just found GitHub unreachable: the rest go back to the others at once.
        for (const rest of due.slice(i)) await this.giveBack(rest, this.o.clock().getTime());
        break;
      }
      if (await this.deliverOne(w)) delivered++;
    }
    return delivered;
  }

  /** One claimed wake-up: its claim is renewed while the tick runs, then completed or released. */
  private async deliverOne(w: WakeUp): Promise<boolean> {
    const wake = w.payload as unknown as IssueWakeUp;
    const leaseMs = this.leaseMs();
    const renewal = setInterval(
      () =>
        void this.o.store
          .extendClaim(w.key, w.claim, this.o.clock().getTime() + leaseMs)
          // A claim the run's save ended (its next wake-up is set) needs no renewal any more.
          .then((held) => held || clearInterval(renewal))
          .catch(() => undefined),
      Math.max(10, Math.floor(leaseMs / 3)),
    );
    renewal.unref();
    try {
      await this.o.deliver(wake, w.at);
    } catch (err) {
      clearInterval(renewal);
      await this.failed(w, wake, err);
      return false;
    }
    clearInterval(renewal);
    this.unreachable = { failures: 0, until: 0 };
    // A claim the run's save ended already (it set the next wake-up) has nothing left to remove.
    await this.o.store.complete(w.key, w.claim).catch((err: unknown) => {
      this.o.log(
        "warn",
        `a delivered wake-up could not be removed (${String(err)}); its lease ends it`,
      );
    });
    return true;
  }

  /**
   * A tick failed. On a network error the failure is this replica's as much as the work's: the
   * wake-up is due again at once for the others, and this replica claims none for a while. Any
   * other failure (a lock held, an error of GitHub's) is the work's: it waits out a backoff.
   */
  private async failed(w: WakeUp, wake: IssueWakeUp, err: unknown): Promise<void> {
    const now = this.o.clock().getTime();
    const network = isNetworkError(err);
    if (network) {
      const failures = this.unreachable.failures + 1;
      this.unreachable = { failures, until: now + this.backoff(failures - 1) };
    }
    const again = network ? now : now + this.backoff(w.tries);
    const where = `${wake.owner}/${wake.repo}#${wake.issue}`;
    this.o.log(
      "warn",
      network
        ? `a wake-up of ${where} failed (${String(err)}): GitHub cannot be reached from this process, which leaves the wake-ups to the other replicas for ${Math.round((this.unreachable.until - now) / 1000)} s`
        : `a wake-up of ${where} failed (${String(err)}); it is tried again in ${Math.round((again - now) / 1000)} s`,
    );
    await this.giveBack(w, again);
  }

  /** Releases a claim for `at` (a release that fails leaves the wake-up to its lease's end). */
  private async giveBack(w: WakeUp, at: number): Promise<void> {
    await this.o.store.release(w.key, w.claim, at).catch(() => false);
    // This process looks again when it may claim again.
    this.arm(Math.max(at, this.unreachable.until));
  }

  /** The wait after `n` earlier failures: doubling from `first` up to `most`, less some jitter. */
  private backoff(n: number): number {
    const { first, most } = this.o.retry ?? WAKE_UP_RETRY;
    const full = Math.min(most, first * 2 ** Math.min(n, 30));
    return Math.max(1, Math.round(full * (1 - (this.o.random ?? Math.random)() / 2)));
  }

  private leaseMs(): number {
    return this.o.leaseMs ?? DEFAULT_WAKE_UP_LEASE_MS;
  }

  /** Stops the timers and waits for the deliveries under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.poller) clearInterval(this.poller);
    if (this.precise) clearTimeout(this.precise.timer);
    this.poller = undefined;
    this.precise = undefined;
    this.known = [];
    await this.running?.catch(() => undefined);
  }
}
