import type { Clock, Scheduler, Wake } from "./ports.js";

/** The machine's clock. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told to (tests, playbook tests). */
export class ManualClock implements Clock {
  private ms: number;

  constructor(start: Date | string | number) {
    this.ms = new Date(start).getTime();
    if (Number.isNaN(this.ms)) throw new Error(`ManualClock: '${String(start)}' is not a time`);
  }

  now(): Date {
    return new Date(this.ms);
  }

  /** Move forward by `ms` and return the new time. */
  advance(ms: number): Date {
    this.ms += ms;
    return this.now();
  }

  /** Move forward to `at`; a time already past leaves the clock where it is. */
  reach(at: Date | string): Date {
    this.ms = Math.max(this.ms, new Date(at).getTime());
    return this.now();
  }
}

/** Which kinds of wait a scheduler takes on in process; the others are left to a later event. */
export type WakeReasons = ReadonlySet<Wake["reason"]>;

/** Only retry backoffs: a waiting step waits for people, not for the clock. */
export const BACKOFF_ONLY: WakeReasons = new Set(["backoff"]);

/** Sleeps until the time has come (the CLI). */
export class SleepScheduler implements Scheduler {
  constructor(
    private readonly o: {
      clock: Clock;
      /** Injectable so tests need not sleep. */
      sleep?: (ms: number) => Promise<void>;
      reasons?: WakeReasons;
      /** Told how long the wait is, before it starts. */
      waiting?: (wake: Wake, ms: number) => void;
    },
  ) {}

  async wake(wake: Wake): Promise<boolean> {
    if (!(this.o.reasons ?? BACKOFF_ONLY).has(wake.reason)) return false;
    const ms = Math.max(0, Date.parse(wake.at) - this.o.clock.now().getTime());
    this.o.waiting?.(wake, ms);
    await (this.o.sleep ?? sleep)(ms);
    return true;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Moves a manual clock to the time instead of waiting (tests, playbook tests). */
export class ManualScheduler implements Scheduler {
  readonly asked: Wake[] = [];

  constructor(
    private readonly clock: ManualClock,
    private readonly reasons: WakeReasons = BACKOFF_ONLY,
  ) {}

  wake(wake: Wake): boolean {
    this.asked.push(wake);
    if (!this.reasons.has(wake.reason)) return false;
    this.clock.reach(wake.at);
    return true;
  }
}

/**
 * Writes down what it is asked and leaves every wait to a later event (the app, one step per
 * event, until something delivers these wake-ups).
 */
export class RecordingScheduler implements Scheduler {
  readonly asked: Wake[] = [];

  wake(wake: Wake): boolean {
    this.asked.push(wake);
    return false;
  }
}
