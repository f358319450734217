import { advance, type EngineEnv } from "../core/engine/engine.js";
import type { AdvanceResult, Effect, RunEvent } from "../core/engine/events.js";
import { wakeAt } from "../core/engine/deadlines.js";
import { activeFrame, isFinished, type RunState } from "../core/engine/state.js";
import type { EffectOutcome, EffectPerformer } from "./effects.js";
import { storedRecords } from "./trace.js";
import type {
  Clock,
  EffectGuard,
  Handoff,
  HandoffHook,
  MaybePromise,
  RunStore,
  Scheduler,
  Teller,
  TraceLog,
  Wake,
} from "./ports.js";

export interface InterpreterPorts {
  store: RunStore;
  teller: Teller;
  /** Absent: the interpreter stops at the first effect and leaves it to the caller. */
  effects?: EffectPerformer;
  guard?: EffectGuard;
  /** Absent: a handoff's `start_playbook` is passed over. */
  handoff?: HandoffHook;
  clock: Clock;
  /** Absent: every wait for time stops the interpreter. */
  scheduler?: Scheduler;
  /** Where each result's trace records go (digested); absent: they are not kept. */
  trace?: TraceLog;
  /** Told what went wrong without stopping the run (a trace that could not be written). */
  warn?: (line: string) => void;
}

/** The ids of the events the interpreter sends: each must be new to the run (it drops repeats). */
export interface EventIds {
  effectResult(effect: Effect, run: RunState): string;
  continuation(run: RunState): string;
  timeout(run: RunState): string;
}

/** Ids derived from the run alone: the same for a redelivered event (the app). */
export const RUN_EVENT_IDS: EventIds = {
  effectResult: (effect) => `${effect.key}:result`,
  continuation: (run) => `${run.id}:continue:${run.seq}`,
  timeout: (run) => `${run.id}:timeout:${run.seq}`,
};

export interface InterpreterOptions {
  /** The engine's environment but its time, which the clock port gives at each transition. */
  env: Omit<EngineEnv, "now">;
  /**
   * true: a run that can go on is advanced here until it waits or ends (CLI, Action, simulate,
   * tests). false: one transition per event; the next event carries the run on (the app: its own
   * edit of the status comment).
   */
  inProcess: boolean;
  ids?: Partial<EventIds>;
  /** Transitions one call may make before it stops with `limit` (a guard against a loop). */
  maxTransitions?: number;
  /** Wake-ups that changed nothing (a clock that does not move) before the interpreter gives up. */
  maxIdleWakeups?: number;
}

/**
 * Why the interpreter stopped: the run `finished`; it `waiting`s for people, an outside event or a
 * time left to the scheduler; it `continues` with the next event (not in process); an `effect` is
 * left to the caller (no effects port); wake-ups were `idle`; or the transition `limit` was reached.
 */
export type Stop = "finished" | "waiting" | "continues" | "effect" | "idle" | "limit";

export interface Interpretation {
  /** The run as last saved (or as given, when nothing changed it). */
  run: RunState;
  /** The last result the engine gave. */
  result: AdvanceResult;
  stop: Stop;
}

export const DEFAULT_MAX_TRANSITIONS = 1000;
export const DEFAULT_MAX_IDLE_WAKEUPS = 3;

/**
 * The one loop around the pure engine: advance → perform → result → continue. Each result is saved
 * when it changed the run, then told, then its effects are performed one by one and each outcome is
 * fed back as an `effect_result`; a run that can go on is continued in process or left to the next
 * event, and waits for time go through the scheduler.
 */
export class Interpreter {
  private idleWakeups = 0;
  private readonly ids: EventIds;

  constructor(
    private readonly ports: InterpreterPorts,
    private readonly options: InterpreterOptions,
  ) {
    this.ids = { ...RUN_EVENT_IDS, ...options.ids };
  }

  /** Carry the run on from `first`, the result of the event that woke it. */
  async interpret(run: RunState, first: AdvanceResult): Promise<Interpretation> {
    const steps = this.steps(run, first);
    let next = steps.next();
    while (!next.done) next = steps.next(await next.value);
    return next.value;
  }

  /** The same, for ports that all answer at once (the engine tests' driver). */
  interpretNow(run: RunState, first: AdvanceResult): Interpretation {
    const steps = this.steps(run, first);
    let next = steps.next();
    while (!next.done) {
      if (isThenable(next.value))
        throw new Error("interpretNow: a port answered with a promise; use interpret()");
      next = steps.next(next.value);
    }
    return next.value;
  }

  /** The loop itself; it yields what a port answered, and gets it back once it is there. */
  private *steps(start: RunState, first: AdvanceResult): Generator<unknown, Interpretation> {
    const { store, teller, effects, guard, handoff, scheduler } = this.ports;
    const max = this.options.maxTransitions ?? DEFAULT_MAX_TRANSITIONS;
    const queue: Effect[] = [];
    let run = start;
    let result = first;
    let transitions = 0;
    let woke = false;
    const step = (event: RunEvent): AdvanceResult => {
      transitions++;
      return advance(run, event, { ...this.options.env, now: this.ports.clock.now() });
    };
    for (;;) {
      if (result.changed) {
        run = result.run;
        yield* answer(store.save(run, result));
      }
      // After the save: a record tells what a saved state did (or a refusal, which saves nothing).
      if (result.records?.length) yield* answer(this.appendTrace(result));
      yield* answer(teller.tell(result.messages, result));
      if (woke && !result.changed && ++this.idleWakeups > this.maxIdle())
        return { run, result, stop: "idle" };
      woke = false;
      queue.push(...result.effects);
      let next: AdvanceResult | undefined;
      while (!next && queue.length > 0) {
        if (!effects) return { run, result, stop: "effect" };
        if (transitions >= max) return { run, result, stop: "limit" };
        const effect = queue.shift() as Effect;
        if (effect.kind === "start_playbook") {
          if (handoff) yield* answer(handoff(handoffOf(effect), run));
          continue;
        }
        const refusal = guard ? yield* answer(guard(effect, run)) : undefined;
        const outcome: EffectOutcome = refusal
          ? { ok: false, error: refusal }
          : yield* answer(effects.perform(effect, run));
        next = step(effectResult(effect, outcome, this.ids.effectResult(effect, run)));
      }
      if (next) {
        result = next;
        continue;
      }
      if (isFinished(run)) return { run, result, stop: "finished" };
      if (transitions >= max) return { run, result, stop: "limit" };
      if (result.continue) {
        if (!this.options.inProcess) return { run, result, stop: "continues" };
        result = step({ type: "continue", id: this.ids.continuation(run), seq: run.seq });
        continue;
      }
      const wake = this.wakeOf(run);
      if (!wake || !scheduler || !(yield* answer(scheduler.wake(wake))))
        return { run, result, stop: "waiting" };
      woke = true;
      result = step(
        wake.reason === "backoff"
          ? { type: "continue", id: this.ids.continuation(run), seq: run.seq }
          : { type: "timeout", id: this.ids.timeout(run) },
      );
    }
  }

  /**
   * The result's records, digested, appended to the trace log: the one place they are kept. An
   * append that fails is told and the run goes on (the state's bounded summary still has it).
   */
  private appendTrace(result: AdvanceResult): MaybePromise<void> {
    const { trace } = this.ports;
    if (!trace || !result.records?.length) return undefined;
    const runId = result.run.id;
    const warn = (err: unknown): void =>
      (this.ports.warn ?? console.warn)(
        `trace: could not append the records of run ${runId}: ${err instanceof Error ? err.message : String(err)}`,
      );
    try {
      const done = trace.append(runId, storedRecords(result.records));
      if (isThenable(done)) return Promise.resolve(done).then(() => undefined, warn);
    } catch (err) {
      warn(err);
    }
    return undefined;
  }

  private maxIdle(): number {
    return this.options.maxIdleWakeups ?? DEFAULT_MAX_IDLE_WAKEUPS;
  }

  /**
   * The next time the run can go on by itself: a retry's backoff, or the engine's `wakeAt` (a
   * waiting step's reminder or timeout on any line, the playbook's `limits.timeout`), whichever
   * is first. Asked of the run itself, so a run picked up with no event knows it too.
   */
  private wakeOf(run: RunState): Wake | undefined {
    const frame = activeFrame(run);
    const wake = (at: string, reason: Wake["reason"]): Wake => ({
      run: run.id,
      step: frame.current,
      at,
      reason,
    });
    // A step that waits out its backoff is tried again then, whatever else is due.
    if (frame.phase === "pending" && frame.notBefore) return wake(frame.notBefore, "backoff");
    const at = wakeAt(run, this.options.env);
    return at ? wake(at, "deadline") : undefined;
  }
}

/**
 * The result to pick up a run with that no event moved (a resumed run): nothing changed, and the
 * run goes on by itself when its step is pending.
 */
export function pickUp(run: RunState): AdvanceResult {
  return {
    run,
    effects: [],
    messages: [],
    finished: [],
    continue: !isFinished(run) && activeFrame(run).phase === "pending",
    changed: false,
  };
}

/** The event that gives an effect's outcome back to the engine. */
export function effectResult(effect: Effect, outcome: EffectOutcome, id: string): RunEvent {
  return outcome.ok
    ? { type: "effect_result", id, key: effect.key, ok: true, outputs: outcome.outputs }
    : { type: "effect_result", id, key: effect.key, ok: false, error: outcome.error };
}

/** What a `start_playbook` effect asks for. */
function handoffOf(effect: Effect & { kind: "start_playbook" }): Handoff {
  const inputs = effect.params.inputs as Record<string, unknown> | undefined;
  return { key: effect.key, playbook: String(effect.params.playbook), inputs: inputs ?? {} };
}

/** Hands what a port answered to the runner (which awaits it) and takes back its value. */
function* answer<T>(value: MaybePromise<T>): Generator<unknown, T> {
  return (yield value) as T;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
