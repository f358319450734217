import { afterEach, describe, expect, it, vi } from "vitest";
import { advance, start } from "../../src/core/engine/engine.js";
import { playbookError } from "../../src/core/engine/errors.js";
import type { AdvanceResult, Effect } from "../../src/core/engine/events.js";
import { activeFrame, type RunState } from "../../src/core/engine/state.js";
import type { PlaybookBundle } from "../../src/core/steps/types.js";
import type { EffectOutcome } from "../../src/runtime/effects.js";
import {
  Interpreter,
  type InterpreterOptions,
  type InterpreterPorts,
} from "../../src/runtime/interpreter.js";
import type { Scheduler, Wake } from "../../src/runtime/ports.js";
import {
  ManualClock,
  ManualScheduler,
  RecordingScheduler,
  SleepScheduler,
} from "../../src/runtime/time.js";
import { DAY, HOUR, INITIATOR, SEC, T0, bundle, yaml } from "../core/engine/helpers.js";

const RUN = "20260301-1000-001";

const COMMENT_THEN_END = yaml`
  apiVersion: playbook-bot/v1
  id: note
  steps:
    - id: say
      type: comment
      body: hi
    - id: fin
      type: end
      conclusion: "said"
`;

const flaky = (policy: string) => yaml`
  apiVersion: playbook-bot/v1
  id: flaky
  steps:
    - id: act
      type: comment
      body: hi
      on_error: ${policy}
    - id: fin
      type: end
`;

/** A run of `text` with fake ports that write down everything they are asked, in order. */
function setup(
  text: string,
  opts: {
    outcomes?: EffectOutcome[];
    ports?: Partial<InterpreterPorts>;
    options?: Partial<InterpreterOptions>;
    others?: PlaybookBundle[];
  } = {},
) {
  const root = bundle(text);
  const bundles = new Map([root, ...(opts.others ?? [])].map((b) => [b.playbook.id, b]));
  const playbooks = (id: string) => bundles.get(id);
  const clock = new ManualClock(T0);
  const log: string[] = [];
  const saved: RunState[] = [];
  const told: AdvanceResult[] = [];
  const performed: { effect: Effect; run: RunState }[] = [];
  const outcomes = [...(opts.outcomes ?? [])];
  const ports: InterpreterPorts = {
    store: {
      save: (run) => {
        log.push(`save ${run.seq}`);
        saved.push(run);
      },
    },
    teller: {
      tell: (messages, result) => {
        log.push(`tell ${result.run.seq}${messages.map((m) => ` ${m.kind}`).join("")}`);
        told.push(result);
      },
    },
    effects: {
      perform: async (effect, run) => {
        log.push(`perform ${effect.kind} at ${run.seq}`);
        performed.push({ effect, run });
        return outcomes.shift() ?? { ok: true, outputs: { id: "c-1" } };
      },
    },
    clock,
    ...opts.ports,
  };
  const interpreter = new Interpreter(ports, {
    env: { playbooks },
    inProcess: true,
    ...opts.options,
  });
  const started = start(
    { bundle: root, inputs: {}, initiator: INITIATOR, eventId: "start" },
    { now: clock.now(), playbooks },
  );
  if (!started.ok) throw new Error(started.error.message);
  return { interpreter, started: started.result, playbooks, clock, log, saved, told, performed };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the interpreter", () => {
  it("saves each changed run before it tells its messages and before it performs its effects", async () => {
    const t = setup(COMMENT_THEN_END);
    const done = await t.interpreter.interpret(t.started.run, t.started);
    expect(done.stop).toBe("finished");
    expect(done.run.status).toBe("completed");
    expect(t.log).toEqual([
      "save 1",
      "tell 1 info",
      "save 2",
      "tell 2",
      "perform comment at 2",
      "save 3",
      "tell 3",
      "save 4",
      "tell 4 done",
    ]);
    // The effect is performed on the very run that was saved with it requested.
    expect(t.performed[0]?.run).toBe(t.saved[1]);
    expect(activeFrame(t.saved[1] as RunState).phase).toBe("effect");
  });

  it("feeds each outcome back as an effect_result with the effect's key", async () => {
    const t = setup(COMMENT_THEN_END, { outcomes: [{ ok: true, outputs: { id: "c-42" } }] });
    const done = await t.interpreter.interpret(t.started.run, t.started);
    const key = `${RUN}/say/1`;
    expect(t.performed.map((p) => p.effect.key)).toEqual([key]);
    expect(done.run.recentEvents).toContain(`${key}:result`);
    expect(activeFrame(done.run).results.say).toMatchObject({
      status: "completed",
      outputs: { id: "c-42" },
    });
  });

  it("a failed outcome is the step's failure", async () => {
    const error = playbookError("GH-ERROR", "the comment could not be made");
    const t = setup(COMMENT_THEN_END, { outcomes: [{ ok: false, error }] });
    const done = await t.interpreter.interpret(t.started.run, t.started);
    expect(done.stop).toBe("finished");
    expect(done.run.status).toBe("failed");
    expect(done.run.error?.code).toBe("GH-ERROR");
  });

  it("in process, goes on until the run ends; otherwise stops after one transition", async () => {
    const inProcess = setup(COMMENT_THEN_END);
    expect(
      (await inProcess.interpreter.interpret(inProcess.started.run, inProcess.started)).stop,
    ).toBe("finished");

    const oneStep = setup(COMMENT_THEN_END, { options: { inProcess: false } });
    let done = await oneStep.interpreter.interpret(oneStep.started.run, oneStep.started);
    expect(done.stop).toBe("continues");
    expect(done.run.seq).toBe(1);
    expect(oneStep.performed).toEqual([]);
    // The continuation is the next event; its effect and result are handled within it.
    const next = advance(
      done.run,
      { type: "continue", id: "next", seq: done.run.seq },
      { now: oneStep.clock.now(), playbooks: oneStep.playbooks },
    );
    done = await oneStep.interpreter.interpret(done.run, next);
    expect(done.stop).toBe("continues");
    expect(oneStep.performed).toHaveLength(1);
    expect(activeFrame(done.run).current).toBe("fin");
    expect(oneStep.log.filter((l) => l.startsWith("save"))).toEqual(["save 1", "save 2", "save 3"]);
  });

  it("a guard's refusal is the effect's failed result; the effect is not performed", async () => {
    const guard = vi.fn((_effect: Effect, _run: RunState) =>
      playbookError("GH-PERMISSION", "the approval no longer holds"),
    );
    const t = setup(COMMENT_THEN_END, { ports: { guard } });
    const done = await t.interpreter.interpret(t.started.run, t.started);
    expect(guard).toHaveBeenCalledTimes(1);
    expect(guard.mock.calls[0]?.[0]).toMatchObject({ kind: "comment", key: `${RUN}/say/1` });
    expect(t.performed).toEqual([]);
    expect(done.run.status).toBe("failed");
    expect(done.run.error?.code).toBe("GH-PERMISSION");
    expect(activeFrame(done.run).results.say?.status).toBe("failed");
  });

  it("a guard that lets the effect through changes nothing", async () => {
    const t = setup(COMMENT_THEN_END, { ports: { guard: async () => undefined } });
    const done = await t.interpreter.interpret(t.started.run, t.started);
    expect(t.performed).toHaveLength(1);
    expect(done.run.status).toBe("completed");
  });

  it("hands a handoff's start_playbook to the hook, never to the effects port", async () => {
    const handoff = vi.fn();
    const text = yaml`
      apiVersion: playbook-bot/v1
      id: hands
      steps:
        - id: pass
          type: playbook
          playbook: next-one
          mode: handoff
          with: { namespace: db, n: 2 }
    `;
    const t = setup(text, { ports: { handoff } });
    const done = await t.interpreter.interpret(t.started.run, t.started);
    expect(done.stop).toBe("finished");
    expect(handoff).toHaveBeenCalledTimes(1);
    expect(handoff.mock.calls[0]?.[0]).toEqual({
      key: `${RUN}/handoff/next-one`,
      playbook: "next-one",
      inputs: { namespace: "db", n: 2 },
    });
    expect(handoff.mock.calls[0]?.[1]).toBe(done.run);
    expect(t.performed).toEqual([]);

    // Without a hook the handoff is passed over.
    const quiet = setup(text);
    expect((await quiet.interpreter.interpret(quiet.started.run, quiet.started)).stop).toBe(
      "finished",
    );
    expect(quiet.performed).toEqual([]);
  });

  it("without an effects port, stops at the first effect and leaves it to the caller", async () => {
    const t = setup(COMMENT_THEN_END, { ports: { effects: undefined } });
    const done = t.interpreter.interpretNow(t.started.run, t.started);
    expect(done.stop).toBe("effect");
    expect(done.result.effects.map((e) => e.kind)).toEqual(["comment"]);
    expect(activeFrame(done.run).phase).toBe("effect");
  });

  it("interpretNow refuses a port that answers later", () => {
    const t = setup(COMMENT_THEN_END);
    expect(() => t.interpreter.interpretNow(t.started.run, t.started)).toThrow(/use interpret\(\)/);
  });

  it("stops with 'limit' when a call would make more transitions than allowed", async () => {
    const t = setup(COMMENT_THEN_END, { options: { maxTransitions: 2 } });
    const done = await t.interpreter.interpret(t.started.run, t.started);
    expect(done.stop).toBe("limit");
    expect(done.run.status).toBe("running");
  });
});

describe("waits for time", () => {
  it("a retry's backoff goes through the scheduler and the clock, never a real sleep", async () => {
    const timers = vi.spyOn(globalThis, "setTimeout");
    const rateLimited = playbookError("GH-RATE-LIMITED", "slow down");
    const clock = new ManualClock(T0);
    const scheduler = new ManualScheduler(clock);
    const t = setup(flaky("{ GH-RATE-LIMITED: retry:2 }"), {
      outcomes: [{ ok: false, error: rateLimited }],
      ports: { clock, scheduler },
    });
    const done = await t.interpreter.interpret(t.started.run, t.started);
    expect(done.stop).toBe("finished");
    expect(done.run.status).toBe("completed");
    expect(scheduler.asked).toEqual([
      {
        run: RUN,
        step: "act",
        at: new Date(T0.getTime() + 2 * SEC).toISOString(),
        reason: "backoff",
      },
    ]);
    expect(clock.now().getTime()).toBe(T0.getTime() + 2 * SEC);
    // Asked again after the backoff, with a new key for the new attempt.
    expect(t.performed.map((p) => p.effect.key)).toEqual([`${RUN}/act/1`, `${RUN}/act/2`]);
    expect(timers).not.toHaveBeenCalled();
  });

  it("without a scheduler, or with one that leaves it to a later event, the run waits", async () => {
    const rateLimited: EffectOutcome = {
      ok: false,
      error: playbookError("GH-RATE-LIMITED", "slow down"),
    };
    const text = flaky("{ GH-RATE-LIMITED: retry:2 }");
    const none = setup(text, { outcomes: [rateLimited] });
    const waited = await none.interpreter.interpret(none.started.run, none.started);
    expect(waited.stop).toBe("waiting");
    expect(activeFrame(waited.run).notBefore).toBe(new Date(T0.getTime() + 2 * SEC).toISOString());

    const recorder = new RecordingScheduler();
    const later = setup(text, { outcomes: [rateLimited], ports: { scheduler: recorder } });
    expect((await later.interpreter.interpret(later.started.run, later.started)).stop).toBe(
      "waiting",
    );
    expect(recorder.asked.map((w) => w.reason)).toEqual(["backoff"]);
    expect(later.performed).toHaveLength(1);
  });

  it("gives up after wake-ups that change nothing (a clock that does not move)", async () => {
    const asked: Wake[] = [];
    const stuck: Scheduler = {
      wake: (w) => {
        asked.push(w);
        return true;
      },
    };
    const t = setup(flaky("{ GH-RATE-LIMITED: retry:2 }"), {
      outcomes: [{ ok: false, error: playbookError("GH-RATE-LIMITED", "slow down") }],
      ports: { scheduler: stuck },
    });
    const done = await t.interpreter.interpret(t.started.run, t.started);
    expect(done.stop).toBe("idle");
    expect(asked).toHaveLength(4);
    expect(t.performed).toHaveLength(1);
  });

  it("a waiting step's timeout and the playbook's limits.timeout are deadlines for the scheduler", async () => {
    const gate = (extra: string) => yaml`
      apiVersion: playbook-bot/v1
      id: gate
      ${extra}
      steps:
        - id: ok
          type: checkpoint
          message: Go ahead?
          approvers: {}
          ${extra ? "" : "timeout: 1h"}
        - id: fin
          type: end
    `;
    const clock = new ManualClock(T0);
    const deadlines = new ManualScheduler(clock, new Set(["deadline"]));
    const step = setup(gate(""), { ports: { clock, scheduler: deadlines } });
    const timedOut = await step.interpreter.interpret(step.started.run, step.started);
    expect(deadlines.asked.map((w) => [w.reason, w.step])).toEqual([["deadline", "ok"]]);
    expect(Date.parse(deadlines.asked[0]?.at ?? "")).toBe(T0.getTime() + HOUR);
    expect(timedOut.stop).toBe("finished");
    expect(timedOut.run.error?.code).toBe("PB-TIMEOUT");

    const runClock = new ManualClock(T0);
    const limit = new ManualScheduler(runClock, new Set(["deadline"]));
    const whole = setup(gate("limits: { timeout: 2d }"), {
      ports: { clock: runClock, scheduler: limit },
    });
    const tooLong = await whole.interpreter.interpret(whole.started.run, whole.started);
    expect(Date.parse(limit.asked[0]?.at ?? "")).toBe(T0.getTime() + 2 * DAY);
    expect(tooLong.run.error?.message).toContain("limits.timeout 2d");
  });
});

describe("schedulers", () => {
  const wake = (reason: Wake["reason"], at: Date): Wake => ({
    run: RUN,
    step: "act",
    at: at.toISOString(),
    reason,
  });

  it("the sleeping scheduler sleeps out a backoff with the injected sleep and leaves deadlines", async () => {
    const clock = new ManualClock(T0);
    const sleeps: number[] = [];
    const said: number[] = [];
    const s = new SleepScheduler({
      clock,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      waiting: (_w, ms) => said.push(ms),
    });
    expect(await s.wake(wake("backoff", new Date(T0.getTime() + 4 * SEC)))).toBe(true);
    expect(await s.wake(wake("backoff", new Date(T0.getTime() - SEC)))).toBe(true);
    expect(await s.wake(wake("deadline", new Date(T0.getTime() + HOUR)))).toBe(false);
    expect(sleeps).toEqual([4 * SEC, 0]);
    expect(said).toEqual([4 * SEC, 0]);
  });

  it("the manual clock refuses what is not a time and never goes back", () => {
    expect(() => new ManualClock("soon")).toThrow(/'soon' is not a time/);
    const clock = new ManualClock(T0);
    clock.reach(new Date(T0.getTime() - HOUR));
    expect(clock.now()).toEqual(T0);
    expect(clock.advance(SEC).getTime()).toBe(T0.getTime() + SEC);
  });
});
