import type { PlaybookError } from "../core/engine/errors.js";
import type { AdvanceResult, Effect, Message } from "../core/engine/events.js";
import type { RunState } from "../core/engine/state.js";
import type { StoredTraceRecord } from "../core/trace/types.js";

/**
 * What a port answers: at once, or later. The interpreter awaits either; `interpretNow` (for ports
 * that all answer at once, as the engine tests' are) refuses a later answer.
 */
export type MaybePromise<T> = T | PromiseLike<T>;

/** Where a run's state is kept: its status comment (app), a file (CLI), memory (tests). */
export interface RunStore {
  /** Called whenever a result changed the run, before its messages are told or its effects performed. */
  save(run: RunState, result: AdvanceResult): MaybePromise<void>;
}

/** Who hears what the engine says to people: comments (app), the terminal (CLI), a list (tests). */
export interface Teller {
  /** Every result is told, after it was saved; `result` carries the rest (steps finished, reply). */
  tell(messages: readonly Message[], result: AdvanceResult): MaybePromise<void>;
}

/** The time, for every engine transition and every wait. */
export interface Clock {
  now(): Date;
}

/** A time at which a run can go on by itself. */
export interface Wake {
  /** The run's id. */
  run: string;
  /** The step the run is at. */
  step: string | null;
  /** When, as an ISO instant. */
  at: string;
  /**
   * `backoff`: a failed step may be tried again (the run is continued then); `deadline`: a waiting
   * step's reminder or timeout, or the playbook's `limits.timeout` (a timeout event is sent then).
   */
  reason: "backoff" | "deadline";
}

/** Waits for time: sleeps (CLI), moves a manual clock (tests), or leaves it to a later event (app). */
export interface Scheduler {
  /**
   * true: the time has come in this process (slept, or a manual clock moved there), so the run goes
   * on now; false: the interpreter stops and an outside event carries the run on later.
   */
  wake(wake: Wake): MaybePromise<boolean>;
}

/**
 * Checked before each effect (the app looks up again whether the approvals the run rests on still
 * hold). An error refuses the effect: the engine gets it as the effect's failed result.
 */
export type EffectGuard = (
  effect: Effect,
  run: RunState,
) => MaybePromise<PlaybookError | undefined>;

/** A run that ended by handing over: the playbook to start next, with its inputs. */
export interface Handoff {
  /** The `start_playbook` effect's key: the event id of the start, so a repeat starts nothing. */
  key: string;
  playbook: string;
  inputs: Record<string, unknown>;
}

/**
 * The `start_playbook` effect of a handoff: the app starts the other playbook, the CLI prints the
 * command. The run has ended by then, so no result goes back to it.
 */
export type HandoffHook = (handoff: Handoff, run: RunState) => MaybePromise<void>;

/**
 * Where a run's trace records are kept (src/runtime/trace.ts makes them): the coordination store
 * (the app), a JSONL file next to the run's state (the CLI), memory (tests). Appending a record
 * whose span id is there already adds nothing (a redelivered event, a replay).
 */
export interface TraceLog {
  append(runId: string, records: readonly StoredTraceRecord[]): MaybePromise<void>;
  /** The run's records in the order they were appended, and how many a bound dropped. */
  read(runId: string): MaybePromise<TraceRead>;
}

export interface TraceRead {
  records: StoredTraceRecord[];
  /** Records the store dropped to stay within its bound (the oldest first). */
  dropped: number;
}
