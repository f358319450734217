import {
  advance,
  start,
  type EngineEnv,
  type StartRequest,
  type StartResult,
} from "../../core/engine/engine.js";
import type { AdvanceResult, RunEvent } from "../../core/engine/events.js";
import type { RunState } from "../../core/engine/state.js";
import {
  Interpreter,
  pickUp,
  type Interpretation,
  type InterpreterOptions,
  type InterpreterPorts,
} from "../interpreter.js";

/** A new run's first answer from the engine (its inputs checked); nothing is performed yet. */
export function beginRun(request: StartRequest, env: EngineEnv): StartResult {
  return start(request, env);
}

/** What an outside event did: the engine's own answer to it, and where the run stopped after. */
export interface Driven {
  first: AdvanceResult;
  done: Interpretation;
}

/**
 * One run moved by events: how every host (the app's issues, the CLI's local runs, playbook test
 * cases) reaches the engine. The engine answers each outside event once; the interpreter carries
 * the run on from that answer — saves, tells, performs effects, continues — as far as it goes.
 */
export class RunDriver {
  private readonly interpreter: Interpreter;

  constructor(
    private readonly ports: InterpreterPorts,
    private readonly options: InterpreterOptions,
  ) {
    this.interpreter = new Interpreter(ports, options);
  }

  /** The engine's answer to an outside event (at the clock's time); nothing is performed yet. */
  answer(run: RunState, event: RunEvent): AdvanceResult {
    return advance(run, event, { ...this.options.env, now: this.ports.clock.now() });
  }

  /** Carries the run on from an answer of the engine. */
  carryOn(run: RunState, first: AdvanceResult): Promise<Interpretation> {
    return this.interpreter.interpret(run, first);
  }

  /** An outside event, then on as far as the run goes. */
  async send(run: RunState, event: RunEvent): Promise<Driven> {
    const first = this.answer(run, event);
    return { first, done: await this.carryOn(run, first) };
  }

  /** A run no event moved (picked up after a stop): on as far as it goes by itself. */
  resume(run: RunState): Promise<Interpretation> {
    return this.carryOn(run, pickUp(run));
  }
}
