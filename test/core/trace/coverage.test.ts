import { describe, expect, it } from "vitest";
import type { AdvanceResult, Effect, RunEvent } from "../../../src/core/engine/events.js";
import { parseArgs } from "../../../src/core/engine/inputs.js";
import type { Frame, RunState } from "../../../src/core/engine/state.js";
import {
  runSeed,
  runSpanKey,
  summaryRecords,
  traceRecords,
  type TraceEnv,
} from "../../../src/core/trace/build.js";
import { Driver, READER, T0, WRITER, bundle, yaml } from "../engine/helpers.js";

/**
 * Edges of the trace builder that a well-formed engine result rarely reaches: records built from
 * states and results made by hand (a frame without a current step, a playbook no longer known, a
 * clock that went back), so each field's fallback is seen.
 */

const HELLO = yaml`
  apiVersion: playbook-bot/v1
  id: hello
  authority: { default: show-me }
  steps:
    - id: approve
      type: checkpoint
      message: Go?
      approvers: { permission: write }
    - id: branch
      type: branch
      name: playbook/hello
    - id: done
      type: end
`;

const NOW = new Date(T0.getTime() + 60_000);
/** The playbooks are gone: nothing is known of any step. */
const FORGETFUL: TraceEnv = { now: NOW, playbooks: () => undefined };

/** A run of `hello` waiting at its checkpoint. */
function waitingRun(): { d: Driver; run: RunState } {
  const d = new Driver(bundle(HELLO));
  d.start();
  d.drive();
  expect(d.frame).toMatchObject({ current: "approve", phase: "waiting" });
  return { d, run: d.run };
}

function withFrame(run: RunState, over: Partial<Frame>, depth = run.stack.length - 1): RunState {
  const stack = run.stack.map((f, i) => (i === depth ? { ...f, ...over } : f));
  return { ...run, stack };
}

function result(run: RunState, over: Partial<AdvanceResult> = {}): AdvanceResult {
  return {
    run,
    effects: [],
    messages: [],
    finished: [],
    continue: false,
    changed: true,
    ...over,
  };
}

const CONTINUE: RunEvent = { type: "continue", id: "c-x", seq: 2 };

function approveBy(actor = READER): RunEvent {
  return {
    type: "command",
    id: "cmd-x",
    command: "approve",
    args: parseArgs(""),
    actor,
    createdAt: NOW.toISOString(),
  };
}

describe("a run's seed and summary without frames", () => {
  it("names no playbook for a run whose stack is empty", () => {
    const { run } = waitingRun();
    const bare = { ...run, stack: [] };
    expect(runSeed(bare).playbook).toBe("");
    const summary = summaryRecords(bare);
    expect(summary.length).toBe(run.trace.length);
    expect(summary.every((r) => r.playbook === "")).toBe(true);
    expect(summaryRecords(run).every((r) => r.playbook === "hello")).toBe(true);
  });
});

describe("a refused command", () => {
  it("targets the run when no step is current, with no kind and no reason", () => {
    const { run } = waitingRun();
    const before = withFrame(run, { current: null });
    const r = traceRecords(
      before,
      approveBy(),
      result(before, { changed: false, reply: { outcome: "refused" } }),
      { now: NOW, playbooks: () => bundle(HELLO) },
    );
    expect(r).toHaveLength(1);
    expect(r[0]).toMatchObject({
      target: "run",
      outcome: "refused",
      authority: { granted: false },
    });
    expect(r[0]).not.toHaveProperty("step");
    expect(r[0]).not.toHaveProperty("kind");
    expect(r[0]).not.toHaveProperty("detail");
  });

  it("names the step but not its kind when its playbook is no longer known", () => {
    const { run } = waitingRun();
    const r = traceRecords(
      run,
      approveBy(),
      result(run, { changed: false, reply: { outcome: "refused", reason: "nope" } }),
      FORGETFUL,
    );
    expect(r[0]).toMatchObject({ step: "approve", target: "step approve", detail: "nope" });
    expect(r[0]).not.toHaveProperty("kind");
  });

  it("gives nothing for an ignored command or an unchanged continuation", () => {
    const { run } = waitingRun();
    const ignored = result(run, { changed: false, reply: { outcome: "ignored" } });
    expect(traceRecords(run, approveBy(), ignored, FORGETFUL)).toEqual([]);
    expect(traceRecords(run, CONTINUE, result(run, { changed: false }), FORGETFUL)).toEqual([]);
  });
});

describe("steps that finished", () => {
  it("says how a step failed, with and without an error, when the engine wrote nothing new", () => {
    const { run } = waitingRun();
    const after = withFrame(
      { ...run, seq: run.seq + 1 },
      {
        results: {
          approve: {
            status: "failed",
            attempt: 1,
            at: NOW.toISOString(),
            error: { code: "PB-REJECTED", message: "no", guidance: "" },
          },
        },
      },
    );
    const r = traceRecords(
      run,
      CONTINUE,
      result(after, {
        finished: [
          { playbook: "hello", step: "approve", kind: "checkpoint", status: "failed", depth: 0 },
          { playbook: "hello", step: "branch", kind: "branch", status: "skipped", depth: 0 },
        ],
      }),
      { now: NOW, playbooks: () => bundle(HELLO) },
    );
    expect(r.map((x) => [x.step, x.outcome, x.detail, x.authority.granted])).toEqual([
      // A rejection is an authority that was not granted.
      ["approve", "failure", "failed (PB-REJECTED)", false],
      ["branch", "success", "skipped", true],
    ]);
    // The checkpoint's act began when its line began waiting, a minute before.
    expect(r[0]?.duration_ms).toBe(60_000);
  });

  it("starts an act now when the clock went back, and knows no tool for a step no longer known", () => {
    const { run } = waitingRun();
    const future = new Date(NOW.getTime() + 3_600_000).toISOString();
    const before = withFrame(run, { since: future });
    const after = { ...before, seq: before.seq + 1 };
    const r = traceRecords(
      before,
      CONTINUE,
      result(after, {
        finished: [
          { playbook: "hello", step: "approve", kind: "checkpoint", status: "ignored", depth: 0 },
        ],
      }),
      FORGETFUL,
    );
    expect(r[0]).toMatchObject({
      step: "approve",
      time: NOW.toISOString(),
      duration_ms: 0,
      outcome: "failure",
      detail: "ignored",
    });
    expect(r[0]).not.toHaveProperty("tool");
  });

  it("finds a child's frame after the transition, and none for a playbook in no frame", () => {
    const { run } = waitingRun();
    const child: Frame = {
      ...(run.stack[0] as Frame),
      playbook: "child",
      current: "look",
      phase: "waiting",
      since: T0.toISOString(),
      results: {},
    };
    const after = { ...run, seq: run.seq + 1, stack: [...run.stack, child] };
    const r = traceRecords(
      run,
      CONTINUE,
      result(after, {
        finished: [
          { playbook: "child", step: "look", kind: "investigate", status: "completed", depth: 1 },
          { playbook: "ghost", step: "gone", kind: "script", status: "completed", depth: 3 },
        ],
      }),
      FORGETFUL,
    );
    const look = r.find((x) => x.step === "look");
    const gone = r.find((x) => x.step === "gone");
    // The child's act began when its frame's line began (T0); the ghost's, now.
    expect(look).toMatchObject({ playbook: "child", depth: 1, time: T0.toISOString() });
    expect(gone).toMatchObject({ playbook: "ghost", depth: 3, time: NOW.toISOString() });
    expect(look).not.toHaveProperty("detail");
  });
});

describe("effects asked for", () => {
  it("names a tool call without calls by its kind", () => {
    const { run } = waitingRun();
    const after = withFrame({ ...run, seq: run.seq + 1 }, { current: "approve", phase: "effect" });
    const effect = {
      key: "fx-1",
      kind: "tool_call",
      step: "approve",
      params: { calls: [] },
    } as unknown as Effect;
    const r = traceRecords(run, CONTINUE, result(after, { effects: [effect] }), FORGETFUL);
    expect(r).toEqual([
      expect.objectContaining({
        step: "approve",
        tool: "tool_call",
        outcome: "waiting",
        detail: "effect tool_call requested",
      }),
    ]);
    expect(r[0]).not.toHaveProperty("kind");
  });

  it("records a handoff asked for by a step that did not finish in the transition as an act of its own", () => {
    const { run } = waitingRun();
    const after = withFrame({ ...run, seq: run.seq + 1 }, { phase: "effect" });
    const effect = {
      key: "fx-handoff",
      kind: "start_playbook",
      step: "approve",
      params: { playbook: "storage", inputs: { ns: "db" } },
    } as unknown as Effect;
    const r = traceRecords(run, CONTINUE, result(after, { effects: [effect] }), {
      now: NOW,
      playbooks: () => bundle(HELLO),
    });
    expect(r).toEqual([
      expect.objectContaining({
        depth: 0,
        playbook: "hello",
        step: "approve",
        tool: "playbook",
        delegation: { playbook: "storage", mode: "handoff" },
        inputs: { ns: "db" },
        outcome: "success",
        span_key: JSON.stringify(["handoff", "fx-handoff"]),
        // The playbook's default authority, for the initiator.
        authority: { claim: "show-me", by: "alice", granted: true },
      }),
    ]);
  });
});

describe("delegations and waits", () => {
  it("records a delegation from a frame without a current step, and hangs the child's wait under it", () => {
    const { run } = waitingRun();
    const parent = { ...(run.stack[0] as Frame), current: null };
    const child: Frame = {
      ...(run.stack[0] as Frame),
      playbook: "child",
      current: "look",
      phase: "waiting",
      since: NOW.toISOString(),
      results: {},
      inputs: { ns: "shop" },
    };
    const after = { ...run, seq: run.seq + 1, stack: [parent, child] };
    const r = traceRecords(run, CONTINUE, result(after), FORGETFUL);
    expect(r.map((x) => [x.depth, x.playbook, x.step ?? null, x.outcome, x.detail])).toEqual([
      [0, "hello", null, "waiting", "delegated to child"],
      // A wait at a step no longer known is no approval: just waiting.
      [1, "child", "look", "waiting", "waiting"],
    ]);
    const [delegation, wait] = r;
    expect(delegation).toMatchObject({
      kind: "playbook",
      tool: "playbook",
      target: "run",
      inputs: { ns: "shop" },
      delegation: { playbook: "child", mode: "delegate", run_id: run.id },
    });
    expect(wait?.parent_key).toBe(delegation?.span_key);
    expect(delegation?.parent_key).toBe(runSpanKey(run.id));
  });

  it("records a wait in a frame of another playbook than before as a wait that began", () => {
    const { run } = waitingRun();
    const before = withFrame(run, { playbook: "earlier" });
    const after = withFrame(
      { ...run, seq: run.seq + 1 },
      {
        current: "branch",
        phase: "waiting",
        since: before.stack[0]!.since,
      },
    );
    const r = traceRecords(before, CONTINUE, result(after), {
      now: NOW,
      playbooks: () => bundle(HELLO),
    });
    expect(r).toEqual([
      expect.objectContaining({
        step: "branch",
        kind: "branch",
        outcome: "waiting",
        detail: "waiting",
      }),
    ]);
  });
});

describe("effect results and quiet transitions", () => {
  it("does not give an effect's outputs to an act when the line awaiting it has no step", () => {
    const { run } = waitingRun();
    const before = withFrame(run, { current: null, phase: "effect", effectKey: "fx-9" });
    const after = withFrame(
      { ...run, seq: run.seq + 1 },
      { current: "branch", phase: "waiting", since: NOW.toISOString() },
    );
    const event: RunEvent = {
      type: "effect_result",
      id: "fx-ev",
      key: "fx-9",
      ok: true,
      outputs: { sha: "abc" },
    };
    const r = traceRecords(before, event, result(after), FORGETFUL);
    expect(r).toHaveLength(1);
    expect(r[0]).toMatchObject({ event: "effect_result", step: "branch", outcome: "waiting" });
    expect(r[0]).not.toHaveProperty("outputs");
  });

  it("records a transition that did nothing else as one act on the run", () => {
    const { run } = waitingRun();
    const before = withFrame(run, { current: null, phase: "pending" });
    const after = { ...before, seq: before.seq + 1, status: "running" as const };
    const r = traceRecords(before, CONTINUE, result(after), FORGETFUL);
    expect(r).toEqual([
      expect.objectContaining({
        event: "continue",
        target: "run",
        outcome: "success",
        depth: 0,
        // Without the playbook, its default authority is not known: just-do-it.
        authority: { claim: "just-do-it", by: "alice", granted: true },
      }),
    ]);
    expect(r[0]).not.toHaveProperty("step");
    expect(r[0]).not.toHaveProperty("kind");
    expect(r[0]).not.toHaveProperty("detail");
    expect(r[0]).not.toHaveProperty("inputs");
  });

  it("gives a command that did nothing else its inputs, at a step no longer known", () => {
    const { run } = waitingRun();
    const after = { ...run, seq: run.seq + 1 };
    const r = traceRecords(run, approveBy(WRITER), result(after), FORGETFUL);
    expect(r).toHaveLength(1);
    expect(r[0]).toMatchObject({
      event: "/approve",
      actor: "dave",
      step: "approve",
      outcome: "waiting",
      authority: { claim: "write", by: "dave", granted: true },
      inputs: { command: "approve", positional: [], values: {}, text: "" },
    });
    expect(r[0]).not.toHaveProperty("kind");
  });
});
