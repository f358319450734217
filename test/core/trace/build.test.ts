import { describe, expect, it } from "vitest";
import { advance, start } from "../../../src/core/engine/engine.js";
import type { AdvanceResult } from "../../../src/core/engine/events.js";
import { parseArgs } from "../../../src/core/engine/inputs.js";
import {
  handoffOrigin,
  outcomeOfText,
  runSeed,
  runSpanKey,
  summaryRecords,
  traceRecords,
} from "../../../src/core/trace/build.js";
import { APP_ACTOR, TRACE_TEXT_MAX, type TraceRecord } from "../../../src/core/trace/types.js";
import {
  Driver,
  INITIATOR,
  MAINTAINER,
  READER,
  T0,
  TRIAGER,
  WRITER,
  bundle,
  yaml,
} from "../engine/helpers.js";

const RUN = "20260301-1000-001";

const records = (results: readonly AdvanceResult[]): TraceRecord[] =>
  results.flatMap((r) => r.records ?? []);

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
      conclusion: greeted
  outputs:
    branch: "{{ steps.branch.outputs.name }}"
`;

describe("trace records of a run", () => {
  it("records the start, the escalation, the approval, the effect and its result, and the end", () => {
    const d = new Driver(bundle(HELLO));
    const started = d.start({}, { eventId: "delivery-1" });
    expect(started.records).toEqual([
      {
        run_id: RUN,
        root_run_id: RUN,
        span_key: JSON.stringify(["span", RUN, 1, 0]),
        parent_key: runSpanKey(RUN),
        seq: 1,
        time: T0.toISOString(),
        end: T0.toISOString(),
        duration_ms: 0,
        event: "start",
        event_id: "delivery-1",
        actor: "alice",
        target: "run",
        authority: { claim: "admin", by: "alice", granted: true },
        playbook: "hello",
        depth: 0,
        inputs: {},
        outcome: "success",
        detail: "started",
      },
    ]);

    d.drive();
    const opened = d.last.records ?? [];
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({
      event: "continue",
      actor: APP_ACTOR,
      target: "step approve",
      step: "approve",
      kind: "checkpoint",
      outcome: "escalation",
      seq: 2,
      span_key: JSON.stringify(["span", RUN, 2, 0]),
    });

    // An hour later a writer approves: the checkpoint's act is theirs, under their permission.
    d.tick(3_600_000);
    const approved = d.command("approve", WRITER, "", { id: "comment-7" }).records ?? [];
    expect(approved).toHaveLength(1);
    expect(approved[0]).toMatchObject({
      event: "/approve",
      event_id: "comment-7",
      actor: "dave",
      step: "approve",
      authority: { claim: "write", by: "dave", granted: true },
      outcome: "success",
      duration_ms: 3_600_000,
      time: T0.toISOString(),
      outputs: { approved_by: ["dave"] },
    });
    expect(approved[0]?.inputs).toEqual({
      command: "approve",
      positional: [],
      values: {},
      text: "",
    });

    d.drive();
    const requested = d.last.records ?? [];
    expect(requested).toHaveLength(1);
    expect(requested[0]).toMatchObject({
      event: "continue",
      step: "branch",
      kind: "branch",
      tool: "git",
      // A side effect of a playbook whose default authority is show-me, for the initiator.
      authority: { claim: "show-me", by: "alice", granted: true },
      outcome: "waiting",
      detail: "effect branch requested",
    });
    expect(requested[0]?.inputs).toEqual(d.effect().params);

    d.tick(2_000);
    d.answer({ name: "playbook/hello", sha: "abc", url: "u", created: true });
    const answered = d.last.records ?? [];
    expect(answered[0]).toMatchObject({
      event: "effect_result",
      step: "branch",
      tool: "git",
      outcome: "success",
      duration_ms: 2_000,
      outputs: { name: "playbook/hello", sha: "abc", url: "u", created: true },
    });

    d.drive();
    const ended = d.last.records ?? [];
    expect(ended.map((r) => [r.target, r.outcome, r.detail])).toEqual([
      ["step done", "success", "ended (success)"],
      ["run", "success", "greeted"],
    ]);
    expect(ended[1]?.outputs).toEqual({ branch: "playbook/hello" });
    // Every span seed of the run is its own.
    const all = records(d.all);
    expect(new Set(all.map((r) => r.span_key)).size).toBe(all.length);
    expect(all.every((r) => r.parent_key === runSpanKey(RUN) && r.root_run_id === RUN)).toBe(true);
  });

  it("gives the same records for the same run state, event and time", () => {
    const d = new Driver(bundle(HELLO));
    d.start();
    d.drive();
    const before = d.run;
    const event = {
      type: "command" as const,
      id: "c-1",
      command: "approve" as const,
      args: parseArgs("ok"),
      actor: WRITER,
      createdAt: d.now.toISOString(),
    };
    const a = advance(before, event, d.env);
    const b = advance(structuredClone(before), event, d.env);
    expect(a.records).toBeDefined();
    expect(b.records).toEqual(a.records);
    // Built again from the same before, event and result: the same.
    expect(traceRecords(before, event, a, d.env)).toEqual(a.records);
  });

  it("records a refused command (and only a refused one) though nothing changed", () => {
    const d = new Driver(bundle(HELLO));
    d.start();
    d.drive();
    const refused = d.command("approve", READER, "", { id: "comment-9" });
    expect(refused.changed).toBe(false);
    expect(refused.records).toEqual([
      expect.objectContaining({
        event: "/approve",
        event_id: "comment-9",
        actor: "erin",
        target: "step approve",
        authority: { claim: "read", by: "erin", granted: false },
        outcome: "refused",
        seq: d.run.seq,
        span_key: JSON.stringify(["refused", RUN, d.run.seq, "comment-9"]),
      }),
    ]);
    expect(refused.records?.[0]?.detail).toMatch(/may not approve/);
    // A comment handled already is a duplicate: no record.
    expect(d.command("approve", WRITER, "", { id: "comment-10" }).records).toHaveLength(1);
    expect(d.command("approve", WRITER, "", { id: "comment-10" }).records).toBeUndefined();
    // A stale continuation changes nothing and says nothing.
    expect(d.cont(d.run.seq - 1).records).toBeUndefined();
  });

  it("records an ask-first gate as an escalation and the effect it allows under its approvers", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: gated
        steps:
          - id: tag
            type: label
            authority: ask-first
            add: [ready]
          - { id: done, type: end }
      `),
    );
    d.start();
    d.drive();
    expect(d.last.records).toEqual([
      expect.objectContaining({ step: "tag", kind: "label", outcome: "escalation" }),
    ]);
    d.command("approve", MAINTAINER);
    expect(d.last.records).toEqual([
      expect.objectContaining({
        event: "/approve",
        actor: "bob",
        step: "tag",
        authority: { claim: "maintain", by: "bob", granted: true },
        outcome: "success",
        detail: "approved (ask-first)",
      }),
    ]);
    d.drive();
    expect(d.last.records).toEqual([
      expect.objectContaining({
        step: "tag",
        tool: "label",
        authority: { claim: "ask-first", by: "bob", granted: true },
        outcome: "waiting",
      }),
    ]);
  });

  it("names the tools of tool calls and keeps their arguments only as raw inputs", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: look
        steps:
          - id: query
            type: investigate
            suggested_calls:
              - { tool: db/query, args: { token: "s3cr3t-value" }, run: auto }
              - { tool: http/get, args: { url: "https://x" }, run: auto }
            expected_findings: [found]
          - { id: done, type: end }
      `),
    );
    d.start();
    d.drive();
    const [r] = d.last.records ?? [];
    expect(r).toMatchObject({ step: "query", kind: "investigate", tool: "db/query,http/get" });
    expect(JSON.stringify(r?.inputs)).toContain("s3cr3t-value");
    // Only inputs carry the arguments: every other field is free of them.
    expect(JSON.stringify({ ...r, inputs: undefined })).not.toContain("s3cr3t");
  });

  it("marks a failure whose cause is a refused authority as not granted", () => {
    const d = new Driver(bundle(HELLO));
    d.start();
    d.drive();
    d.command("approve", WRITER);
    d.drive();
    d.send({
      type: "effect_result",
      id: "fx-denied",
      key: d.frame.effectKey ?? "",
      ok: false,
      error: { code: "GH-PERMISSION", message: "lost", guidance: "ask" },
    });
    expect(d.last.records?.[0]).toMatchObject({
      step: "branch",
      outcome: "failure",
      authority: { granted: false },
    });
    expect(d.last.records?.at(-1)).toMatchObject({
      target: "run",
      outcome: "failure",
      detail: "failed (GH-PERMISSION)",
    });
  });

  it("records a cancellation as the canceller's act on the run", () => {
    const d = new Driver(bundle(HELLO));
    d.start();
    d.drive();
    d.command("cancel", MAINTAINER, "not now");
    expect(d.last.records).toEqual([
      expect.objectContaining({
        event: "/cancel",
        actor: "bob",
        target: "run",
        outcome: "cancelled",
        authority: { claim: "maintain", by: "bob", granted: true },
      }),
    ]);
  });

  it("bounds the text that comes from people", () => {
    const d = new Driver(bundle(HELLO));
    d.start();
    d.drive();
    const long = { login: `x${"y".repeat(500)}`, permission: "write" as const };
    const [r] = d.command("approve", long, "").records ?? [];
    expect(r?.actor.length).toBe(TRACE_TEXT_MAX);
    expect(r?.authority.by?.length).toBe(TRACE_TEXT_MAX);
  });
});

const CHILD = yaml`
  apiVersion: playbook-bot/v1
  id: child
  inputs:
    ns: { type: string, required: true }
  steps:
    - id: look
      type: investigate
      description: "look in {{ inputs.ns }}"
      expected_findings: [recent_deploy]
    - id: done
      type: end
      conclusion: gathered
`;

const PARENT = yaml`
  apiVersion: playbook-bot/v1
  id: parent
  steps:
    - id: sub
      type: playbook
      playbook: child
      mode: delegate
      with: { ns: shop }
    - id: fin
      type: end
`;

describe("trace records of delegations", () => {
  it("hangs a delegated playbook's records under the step that delegated", () => {
    const d = new Driver(bundle(PARENT, { allow: ["template-unresolved"] }), [
      bundle(CHILD, { hash: "child-hash" }),
    ]);
    d.start();
    d.drive();
    const delegation = records(d.all).find((r) => r.delegation);
    expect(delegation).toMatchObject({
      step: "sub",
      kind: "playbook",
      tool: "playbook",
      depth: 0,
      delegation: { playbook: "child", mode: "delegate", run_id: RUN },
      inputs: { ns: "shop" },
      outcome: "waiting",
      parent_key: runSpanKey(RUN),
    });
    const waiting = d.last.records?.[0];
    expect(waiting).toMatchObject({ playbook: "child", step: "look", depth: 1 });
    expect(waiting?.parent_key).toBe(delegation?.span_key);

    d.command("record", TRIAGER, "recent_deploy=true");
    d.drive();
    expect(d.run.status).toBe("completed");
    const tail = records(d.all.slice(-3));
    const look = tail.find((r) => r.step === "look");
    const childEnd = tail.find((r) => r.step === "done");
    const sub = tail.find((r) => r.step === "sub");
    expect(look?.parent_key).toBe(delegation?.span_key);
    expect(childEnd).toMatchObject({ playbook: "child", depth: 1 });
    expect(childEnd?.parent_key).toBe(delegation?.span_key);
    // Back in the parent: the delegating step finished, at the run's own level.
    expect(sub).toMatchObject({ playbook: "parent", depth: 0, outcome: "success" });
    expect(sub?.parent_key).toBe(runSpanKey(RUN));
  });

  it("links a run a handoff starts to the step that handed off, in the same trace", () => {
    const giver = bundle(yaml`
      apiVersion: playbook-bot/v1
      id: giver
      steps:
        - id: pass
          type: playbook
          playbook: storage
          mode: handoff
          with: { namespace: db }
    `);
    const d = new Driver(giver);
    d.start();
    d.drive();
    const effect = d.last.effects.find((e) => e.kind === "start_playbook");
    const pass = d.last.records?.find((r) => r.step === "pass");
    expect(pass).toMatchObject({
      tool: "playbook",
      delegation: { playbook: "storage", mode: "handoff" },
      inputs: { namespace: "db" },
      span_key: JSON.stringify(["handoff", effect?.key]),
    });

    const storage = bundle(yaml`
      apiVersion: playbook-bot/v1
      id: storage
      inputs:
        namespace: { type: string, required: true }
      steps:
        - { id: done, type: end }
    `);
    const later = new Date(T0.getTime() + 60_000);
    const next = start(
      {
        bundle: storage,
        inputs: { namespace: "db" },
        initiator: INITIATOR,
        eventId: effect?.key ?? "",
        runIndex: 2,
        origin: handoffOrigin(d.run, effect?.key ?? ""),
      },
      { now: later, playbooks: () => storage },
    );
    if (!next.ok) throw new Error(next.error.message);
    const run = next.result.run;
    expect(run.origin).toEqual({ run: RUN, root: RUN, key: effect?.key });
    expect(next.result.records?.[0]).toMatchObject({ root_run_id: RUN, run_id: run.id });
    const seed = runSeed(run);
    expect(seed).toMatchObject({ root_run_id: RUN, origin_run_id: RUN });
    expect(seed.parent_key).toBe(pass?.span_key);
    // A run handed off from that one still belongs to the first run's trace.
    expect(handoffOrigin(run, "k").root).toBe(RUN);
  });
});

describe("records rebuilt from the state's bounded summary", () => {
  it("keeps the entries' times, steps and words, with seeds from their places", () => {
    const d = new Driver(bundle(HELLO));
    d.start();
    d.drive();
    d.command("approve", WRITER);
    d.drive();
    d.failEffect("GH-ERROR");
    const rebuilt = summaryRecords(d.run);
    expect(rebuilt).toHaveLength(d.run.trace.length);
    expect(rebuilt[0]).toMatchObject({ event: "start", target: "run", outcome: "success" });
    expect(rebuilt.map((r) => r.span_key)).toEqual(
      d.run.trace.map((_, i) => JSON.stringify(["summary", RUN, d.run.traceDropped + i])),
    );
    expect(rebuilt.at(-1)).toMatchObject({
      step: "branch",
      outcome: "failure",
      authority: { claim: "unknown", granted: true },
    });
  });

  it("reads outcomes from the engine's words", () => {
    expect(outcomeOfText("failed (PB-REJECTED)")).toBe("failure");
    expect(outcomeOfText("child failed (GH-ERROR)")).toBe("failure");
    expect(outcomeOfText("ended (failure)")).toBe("failure");
    expect(outcomeOfText("cancelled")).toBe("cancelled");
    expect(outcomeOfText("waiting for ask-first approval")).toBe("escalation");
    expect(outcomeOfText("child returned; waiting for /choose")).toBe("waiting");
    expect(outcomeOfText("delegated to failsafe")).toBe("success");
    expect(outcomeOfText("completed")).toBe("success");
  });
});

describe("record outcomes for people who cannot act", () => {
  it("refuses a bot's command with a record naming the bot", () => {
    const d = new Driver(bundle(HELLO));
    d.start();
    d.drive();
    const r = d.command("approve", { login: "ci[bot]", permission: "admin", bot: true });
    expect(r.records?.[0]).toMatchObject({ actor: "ci[bot]", outcome: "refused" });
    expect(r.records?.[0]?.authority.granted).toBe(false);
  });

  it("records a vote that does not yet complete a checkpoint as the voter's act", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: two
        steps:
          - id: ok
            type: checkpoint
            message: two please
            approvers: { permission: write, count: 2 }
          - { id: done, type: end }
      `),
    );
    d.start();
    d.drive();
    const first = d.command("approve", WRITER, "lgtm").records ?? [];
    expect(first).toEqual([
      expect.objectContaining({
        actor: "dave",
        step: "ok",
        outcome: "waiting",
        authority: { claim: "write", by: "dave", granted: true },
      }),
    ]);
    expect(first[0]?.inputs).toMatchObject({ command: "approve", text: "lgtm" });
    const second = d.command("approve", MAINTAINER).records ?? [];
    expect(second[0]).toMatchObject({
      outcome: "success",
      authority: { claim: "maintain", by: "dave, bob", granted: true },
    });
  });
});

describe("trace records of branches that run side by side", () => {
  it("records the fork as a wait, then one act per branch's effect and per step that finished", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: par
        steps:
          - id: checks
            type: parallel
            join: all
            branches:
              lint:
                - { id: lint-say, type: comment, body: lint }
              tests:
                - { id: tests-say, type: comment, body: tests }
          - { id: done, type: end }
      `),
    );
    d.start();
    expect(d.cont().records).toEqual([
      expect.objectContaining({
        step: "checks",
        kind: "parallel",
        outcome: "waiting",
        detail: "started 2 branch(es)",
      }),
    ]);
    const entered = d.cont();
    expect(entered.records?.map((r) => [r.step, r.tool, r.outcome])).toEqual([
      ["lint-say", "comment", "waiting"],
      ["tests-say", "comment", "waiting"],
    ]);
    const keys = Object.fromEntries(entered.effects.map((e) => [e.step, e.key]));
    d.tick(5_000);
    const lint = d.answer({ id: "c-1", url: "u" }, keys["lint-say"]);
    expect(lint.records?.map((r) => [r.step, r.outcome, r.duration_ms])).toEqual([
      ["lint-say", "success", 5_000],
    ]);
    const tests = d.answer({ id: "c-2", url: "u" }, keys["tests-say"]);
    expect(tests.records?.map((r) => [r.step, r.outcome])).toEqual([
      ["tests-say", "success"],
      ["checks", "success"],
    ]);
  });
});
