import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { advance, start } from "../../src/core/engine/engine.js";
import type { AdvanceResult, RunEvent } from "../../src/core/engine/events.js";
import type { RunState } from "../../src/core/engine/state.js";
import { runSeed } from "../../src/core/trace/build.js";
import type { StoredTraceRecord, TraceRecord } from "../../src/core/trace/types.js";
import { checkStoredRecord } from "../../src/core/trace/types.js";
import type { EffectOutcome } from "../../src/runtime/effects.js";
import { Interpreter } from "../../src/runtime/interpreter.js";
import type { TraceLog, TraceRead } from "../../src/runtime/ports.js";
import { ManualClock } from "../../src/runtime/time.js";
import {
  canonicalJson,
  digest,
  guardedTraceLog,
  scopedTraceLog,
  spanIdOf,
  storedRecord,
  storedRun,
  traceIdOf,
  traceOfRun,
} from "../../src/runtime/trace.js";
import { MemoryTraceLog } from "../../src/adapters/coordination/trace-log.js";
import { INITIATOR, T0, bundle, yaml } from "../core/engine/helpers.js";

const RUN = "20260301-1000-001";
const SECRET = "ghp_abcdefghijklmnop1234";

const PLAYBOOK = yaml`
  apiVersion: playbook-bot/v1
  id: probe
  steps:
    - id: query
      type: investigate
      suggested_calls:
        - { tool: api/get, args: { authorization: "Bearer ${SECRET}" }, run: auto }
      expected_findings: [ok]
    - id: say
      type: comment
      body: done
    - { id: fin, type: end }
`;

function raw(over: Partial<TraceRecord> = {}): TraceRecord {
  return {
    run_id: RUN,
    root_run_id: RUN,
    span_key: '["span","r",2,0]',
    parent_key: '["run","r"]',
    seq: 2,
    time: "2026-03-01T10:00:00.000Z",
    end: "2026-03-01T10:00:01.000Z",
    duration_ms: 1000,
    event: "continue",
    event_id: "e-1",
    actor: "playbook-bot",
    target: "step query",
    authority: { claim: "just-do-it", by: "alice", granted: true },
    playbook: "probe",
    depth: 0,
    step: "query",
    kind: "investigate",
    tool: "api/get",
    inputs: { calls: [{ tool: "api/get", args: { authorization: `Bearer ${SECRET}` } }] },
    outputs: { results: "ok" },
    outcome: "waiting",
    detail: "effect tool_call requested",
    ...over,
  };
}

describe("digests and ids", () => {
  it("writes canonical JSON: keys sorted at every depth, undefined left out, arrays in order", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: undefined, x: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"x":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson(Number.NaN)).toBe("null");
    expect(canonicalJson(undefined)).toBe("null");
  });

  it("digests a value the same whatever the order of its keys, and differently when it differs", () => {
    const a = digest({ x: 1, y: [1, 2] });
    expect(a).toBe(digest({ y: [1, 2], x: 1 }));
    expect(a).toBe(`sha256:${createHash("sha256").update('{"x":1,"y":[1,2]}').digest("hex")}`);
    expect(digest({ x: 1, y: [2, 1] })).not.toBe(a);
  });

  it("derives a 32-hex trace id from a run id and 16-hex span ids from seeds, stably", () => {
    expect(traceIdOf(RUN)).toMatch(/^[0-9a-f]{32}$/);
    expect(traceIdOf(RUN)).toBe(traceIdOf(RUN));
    expect(traceIdOf(RUN)).not.toBe(traceIdOf("20260301-1000-002"));
    expect(spanIdOf("a")).toMatch(/^[0-9a-f]{16}$/);
    expect(spanIdOf("a")).not.toBe(spanIdOf("b"));
  });

  it("keeps a record's fields, derives its ids and keeps only digests of its values", () => {
    const r = raw();
    const s = storedRecord(r);
    expect(s).toEqual({
      trace_id: traceIdOf(RUN),
      span_id: spanIdOf(r.span_key),
      parent_span_id: spanIdOf(r.parent_key),
      run_id: RUN,
      seq: 2,
      time: r.time,
      end: r.end,
      duration_ms: 1000,
      event: "continue",
      event_id: "e-1",
      actor: "playbook-bot",
      target: "step query",
      authority: { claim: "just-do-it", by: "alice", granted: true },
      playbook: "probe",
      depth: 0,
      step: "query",
      kind: "investigate",
      tool: "api/get",
      inputs: digest(r.inputs),
      outputs: digest(r.outputs),
      outcome: "waiting",
      detail: "effect tool_call requested",
    });
    expect(JSON.stringify(s)).not.toContain(SECRET);
    expect(checkStoredRecord(s)).toEqual(s);
    // Fields a stored record does not have never pass through.
    const extra = storedRecord({ ...r, secret: SECRET } as TraceRecord);
    expect(JSON.stringify(extra)).not.toContain(SECRET);
  });
});

/** A log that keeps everything appended, as it was appended. */
class ListLog implements TraceLog {
  readonly appended: { runId: string; records: StoredTraceRecord[] }[] = [];
  append(runId: string, records: readonly StoredTraceRecord[]): void {
    this.appended.push({ runId, records: [...records] });
  }
  read(): TraceRead {
    return { records: this.appended.flatMap((a) => a.records), dropped: 0 };
  }
}

function setup(trace: TraceLog, warn?: (line: string) => void) {
  const root = bundle(PLAYBOOK);
  const playbooks = () => root;
  const clock = new ManualClock(T0);
  const saved: RunState[] = [];
  const interpreter = new Interpreter(
    {
      store: { save: (run) => void saved.push(run) },
      teller: { tell: () => undefined },
      effects: {
        perform: async (effect): Promise<EffectOutcome> => {
          clock.advance(250);
          return effect.kind === "tool_call"
            ? {
                ok: true,
                outputs: { called: 1, failed: [], results: "1. api/get: ok", "finding.ok": true },
              }
            : { ok: true, outputs: { id: "c-1", url: "u" } };
        },
      },
      clock,
      trace,
      ...(warn ? { warn } : {}),
    },
    { env: { playbooks }, inProcess: true },
  );
  const started = start(
    { bundle: root, inputs: {}, initiator: INITIATOR, eventId: "start" },
    { now: clock.now(), playbooks },
  );
  if (!started.ok) throw new Error(started.error.message);
  return { interpreter, started: started.result, saved, clock, playbooks };
}

describe("the interpreter's trace", () => {
  it("appends each result's records, digested, after the state that did them was saved", async () => {
    const log = new ListLog();
    const order: string[] = [];
    const t = setup({
      append: (runId, records) => {
        order.push(`append ${records[0]?.seq}`);
        log.append(runId, records);
      },
      read: () => log.read(),
    });
    const save = t.saved.push.bind(t.saved);
    t.saved.push = (...runs: RunState[]) => {
      for (const r of runs) order.push(`save ${r.seq}`);
      return save(...runs);
    };
    const done = await t.interpreter.interpret(t.started.run, t.started);
    expect(done.run.status).toBe("completed");
    // Every append comes right after the save of the state whose transition it records.
    for (const [i, line] of order.entries())
      if (line.startsWith("append")) expect(order[i - 1]).toBe(line.replace("append", "save"));
    const records = log.read().records;
    expect(log.appended.every((a) => a.runId === RUN)).toBe(true);
    expect(records.map((r) => [r.event, r.target, r.outcome])).toEqual([
      ["start", "run", "success"],
      ["continue", "step query", "waiting"],
      ["effect_result", "step query", "success"],
      ["continue", "step say", "waiting"],
      ["effect_result", "step say", "success"],
      ["continue", "step fin", "success"],
      ["continue", "run", "success"],
    ]);
    expect(records[2]?.duration_ms).toBe(250);
    expect(JSON.stringify(records)).not.toContain(SECRET);
    expect(records.every((r) => r.trace_id === traceIdOf(RUN))).toBe(true);
    expect(new Set(records.map((r) => r.span_id)).size).toBe(records.length);
  });

  it("gives a replay from a saved state the same span ids, which the log keeps once", async () => {
    const log = new MemoryTraceLog();
    const first = setup(log);
    await first.interpreter.interpret(first.started.run, first.started);
    const once = log.read(RUN).records;
    // A crash after the state at seq 3 was saved: the run is carried on again from there, by a
    // process whose event ids differ, at another time.
    const resumed = first.saved.find((r) => r.seq === 3) as RunState;
    const again = setup(log);
    again.clock.advance(3_600_000);
    const next = advance(
      resumed,
      { type: "continue", id: "another-process-1", seq: resumed.seq },
      { now: again.clock.now(), playbooks: again.playbooks },
    );
    await again.interpreter.interpret(resumed, next);
    const twice = log.read(RUN).records;
    expect(twice).toHaveLength(once.length);
    expect(twice.map((r) => r.span_id)).toEqual(once.map((r) => r.span_id));
    // The records kept are the first ones (their times are the first run's).
    expect(twice).toEqual(once);
  });

  it("goes on when the log throws or rejects, and says so", async () => {
    for (const failing of [
      {
        append: () => {
          throw new Error("disk full");
        },
        read: () => ({ records: [], dropped: 0 }),
      },
      {
        append: () => Promise.reject(new Error("redis down")),
        read: () => ({ records: [], dropped: 0 }),
      },
    ] satisfies TraceLog[]) {
      const warned: string[] = [];
      const t = setup(failing, (line) => warned.push(line));
      const done = await t.interpreter.interpret(t.started.run, t.started);
      expect(done.run.status).toBe("completed");
      expect(t.saved.at(-1)?.status).toBe("completed");
      expect(warned.length).toBeGreaterThan(0);
      expect(warned[0]).toMatch(
        new RegExp(`^trace: could not append the records of run ${RUN}: (disk full|redis down)$`),
      );
    }
  });

  it("appends a refused command's record, which saves no state", async () => {
    const log = new ListLog();
    const t = setup(log);
    const ended = await t.interpreter.interpret(t.started.run, t.started);
    const appended = log.appended.length;
    const saves = t.saved.length;
    const late: RunEvent = {
      type: "command",
      id: "comment-1",
      command: "cancel",
      args: { positional: [], values: {}, text: "" },
      actor: { login: "bob", permission: "maintain" },
      createdAt: T0.toISOString(),
    };
    const result: AdvanceResult = advance(ended.run, late, {
      now: t.clock.now(),
      playbooks: t.playbooks,
    });
    expect(result.changed).toBe(false);
    await t.interpreter.interpret(ended.run, result);
    expect(t.saved).toHaveLength(saves);
    expect(log.appended).toHaveLength(appended + 1);
    expect(log.appended.at(-1)?.records).toEqual([
      expect.objectContaining({
        event: "/cancel",
        actor: "bob",
        outcome: "refused",
        authority: { claim: "maintain", by: "bob", granted: false },
      }),
    ]);
  });
});

describe("trace logs around the interpreter", () => {
  it("guards a log: failures are reported, an append resolves, a read is empty", async () => {
    const said: string[] = [];
    const broken: TraceLog = {
      append: () => Promise.reject(new Error("nope")),
      read: () => {
        throw new Error("gone");
      },
    };
    const guarded = guardedTraceLog(broken, (line) => said.push(line));
    await expect(guarded.append(RUN, [])).resolves.toBeUndefined();
    await expect(guarded.read(RUN)).resolves.toEqual({ records: [], dropped: 0 });
    expect(said).toEqual([
      `trace: could not append the records of run ${RUN}: nope`,
      `trace: could not read the records of run ${RUN}: gone`,
    ]);
  });

  it("scopes one shared log by repository: the same run id in two repositories stays apart", async () => {
    const shared = new MemoryTraceLog();
    const a = scopedTraceLog(shared, "acme/one");
    const b = scopedTraceLog(shared, "acme/two");
    await a.append(RUN, [storedRecord(raw())]);
    expect((await a.read(RUN)).records).toHaveLength(1);
    expect((await b.read(RUN)).records).toEqual([]);
    expect(shared.read(`acme/one:${RUN}`).records).toHaveLength(1);
  });

  it("rebuilds a run's trace from its log and its state's summary, without doubling", async () => {
    const log = new MemoryTraceLog();
    const t = setup(log);
    const done = await t.interpreter.interpret(t.started.run, t.started);
    const full = traceOfRun(done.run, log.read(RUN));
    expect(full.records).toEqual(log.read(RUN).records);
    expect(full.runs).toEqual([storedRun(runSeed(done.run))]);
    // Without a log: the summary alone.
    const summary = traceOfRun(done.run);
    expect(summary.records).toHaveLength(done.run.trace.length);
    expect(summary.records.every((r) => r.authority.claim === "unknown")).toBe(true);
  });
});
