import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { advance, start, type EngineEnv } from "../../../src/core/engine/engine.js";
import type { AdvanceResult, CommandName, RunEvent } from "../../../src/core/engine/events.js";
import { parseArgs } from "../../../src/core/engine/inputs.js";
import {
  MAX_RECENT_EVENTS,
  MAX_TRACE,
  activeFrame,
  type Actor,
  type RunState,
} from "../../../src/core/engine/state.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import { PlaybookGraph } from "../../../src/core/format/graph.js";
import type { CheckpointStep } from "../../../src/core/format/types.js";
import { HOUR, MIN, T0, bundle, yaml } from "./helpers.js";

const linear = bundle(yaml`
  apiVersion: playbook-bot/v1
  id: linear
  inputs:
    package: { type: string, default: lodash }
  limits: { max_steps: 20 }
  steps:
    - id: gate
      type: checkpoint
      message: "Bump {{ inputs.package }}?"
      approvers: { permission: maintain, count: 2 }
      timeout: 2d
      reminder: 1d
      on_timeout: cancel
    - id: branch
      type: branch
      name: "pb/{{ inputs.package }}"
    - id: commit
      type: commit
      branch: "{{ steps.branch.outputs.name }}"
      message: bump
      files: [{ path: docs/x.md, content: x }]
      on_error: { GH-RATE-LIMITED: retry:2, default: fail }
    - id: pr
      type: pull_request
      head: "{{ steps.branch.outputs.name }}"
      title: bump
      wait: merged
    - id: done
      type: end
`);

const graphPb = bundle(
  yaml`
  apiVersion: playbook-bot/v1
  id: graph
  limits: { max_steps: 30 }
  entrypoint: look
  nodes:
    look:
      type: investigate
      description: look
      expected_findings: [seen]
      next:
        - { condition: something is wrong, label: bad, goto: judge }
        - { condition: all fine, label: fine, goto: sub }
    judge:
      type: decide
      rules:
        - { id: r1, all: [seen], conclusion: seen, goto: sub }
      fallback: { conclusion: none, goto: fin }
    sub:
      type: playbook
      playbook: child
      mode: delegate
      with: { ns: x }
      next: fin
    fin:
      type: end
      advice: "{{ steps.judge.outputs.conclusion }}"
`,
  { allow: ["template-order", "finding-unknown"] },
);

const childPb = bundle(
  yaml`
  apiVersion: playbook-bot/v1
  id: child
  inputs:
    ns: { type: string, required: true }
  steps:
    - id: probe
      type: investigate
      description: probe
      expected_findings: [recent_deploy]
    - id: note
      type: comment
      body: "{{ inputs.ns }}"
    - id: done
      type: end
`,
  { hash: "child-hash" },
);

const ACTORS: Actor[] = [
  { login: "alice", permission: "admin" }, // the initiator
  { login: "ALICE", permission: "admin" },
  { login: "bob", permission: "maintain" },
  { login: "carol", permission: "admin" },
  { login: "Carol", permission: "admin" },
  { login: "dave", permission: "write" },
  { login: "erin", permission: "read" },
  { login: "frank", permission: "triage" },
  { login: "gina" },
  { login: "helper[bot]", permission: "admin", bot: true },
];
const ARGS = [
  "",
  "gate",
  "other",
  "bad",
  "fine",
  "bogus",
  "seen=1",
  "recent_deploy=true seen=0",
  "x",
];
const COMMANDS: CommandName[] = ["approve", "reject", "choose", "record", "retry", "cancel"];

type Spec =
  | { t: "cont"; right: boolean }
  | { t: "effect"; right: boolean; ok: boolean; code: "GH-RATE-LIMITED" | "GH-ERROR" }
  | { t: "cmd"; command: CommandName; actor: number; args: number; early: boolean }
  | { t: "dup"; back: number }
  | { t: "withdraw"; back: number }
  | { t: "timeout"; ms: number }
  | { t: "pr"; number: number; merged: boolean }
  | { t: "wf"; ok: boolean }
  | { t: "alert" };

const often = <T>(a: T, b: T) => fc.oneof({ weight: 4, arbitrary: fc.constant(a) }, fc.constant(b));

const spec: fc.Arbitrary<Spec> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({ t: fc.constant("cont" as const), right: often(true, false) }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant("effect" as const),
      right: often(true, false),
      ok: often(true, false),
      code: fc.constantFrom("GH-RATE-LIMITED" as const, "GH-ERROR" as const),
    }),
  },
  // likely-useful commands, so runs get past the checkpoint and the investigations
  {
    weight: 6,
    arbitrary: fc.record({
      t: fc.constant("cmd" as const),
      command: fc.constantFrom<CommandName>("approve", "approve", "choose", "record", "retry"),
      actor: fc.constantFrom(2, 3, 5),
      args: fc.constantFrom(0, 1, 3, 4, 6, 7),
      early: fc.constant(false),
    }),
  },
  // anything from anyone: other actors (the initiator, bots, readers), other words, early comments
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant("cmd" as const),
      command: fc.constantFrom(...COMMANDS),
      actor: fc.nat(ACTORS.length - 1),
      args: fc.nat(ARGS.length - 1),
      early: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("dup" as const), back: fc.nat(50) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("withdraw" as const), back: fc.nat(50) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("timeout" as const),
      ms: fc.integer({ min: 0, max: 12 * HOUR }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      t: fc.constant("pr" as const),
      number: often(7, 8),
      merged: often(true, false),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("wf" as const), ok: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("alert" as const) }) },
);

interface Sent {
  event: RunEvent;
  at: number;
}

/** Independent reading of a checkpoint's policy: maintain or more, no bots, not the initiator. */
function eligible(actor: Actor, gate: CheckpointStep, initiator: string): boolean {
  if (actor.bot) return false;
  if (actor.login.toLowerCase() === initiator.toLowerCase() && !gate.approvers?.allow_initiator)
    return false;
  const rank = ["read", "triage", "write", "maintain", "admin"];
  return (
    rank.indexOf(actor.permission ?? "") >= rank.indexOf(gate.approvers?.permission ?? "write")
  );
}

/** What the random runs reached, so a property that holds only vacuously is noticed. */
const reached = new Map<string, number>();
function note(what: string): void {
  reached.set(what, (reached.get(what) ?? 0) + 1);
}

function simulate(root: PlaybookBundle, others: PlaybookBundle[], specs: Spec[]): RunState {
  const bundles = new Map([root, ...others].map((b) => [b.playbook.id, b]));
  const graphs = new Map([...bundles].map(([id, b]) => [id, new PlaybookGraph(b.playbook)]));
  let now = T0.getTime();
  const env = (): EngineEnv => ({ now: new Date(now), playbooks: (id) => bundles.get(id) });
  const started = start(
    { bundle: root, inputs: {}, initiator: ACTORS[0] as Actor, eventId: "start" },
    env(),
  );
  if (!started.ok) throw new Error("start failed");
  let run: RunState = started.result.run;
  const sent: Sent[] = [];
  const keyOwner = new Map<string, string>(); // key → path#attempt
  const ownerKey = new Map<string, string>(); // path#attempt → key
  let waitStart: { index: number; since: string } | undefined;
  let n = 0;

  for (const s of specs) {
    const frame = activeFrame(run);
    let event: RunEvent;
    const id = `e${++n}`;
    switch (s.t) {
      case "cont":
        event = { type: "continue", id, seq: s.right ? run.seq : run.seq - 1 - (n % 3) };
        break;
      case "effect": {
        const key = s.right ? (frame.effectKey ?? "none") : `bogus-${n}`;
        event = s.ok
          ? {
              type: "effect_result",
              id,
              key,
              ok: true,
              outputs: { name: "pb/lodash", sha: "abc", number: 7, url: "u" },
            }
          : {
              type: "effect_result",
              id,
              key,
              ok: false,
              error: { code: s.code, message: "x", guidance: "y" },
            };
        break;
      }
      case "cmd":
        event = {
          type: "command",
          id,
          command: s.command,
          args: parseArgs(ARGS[s.args] as string),
          actor: ACTORS[s.actor] as Actor,
          commentId: `c${n}`,
          createdAt: new Date(s.early ? Date.parse(frame.since) - MIN : now).toISOString(),
        };
        break;
      case "dup": {
        const earlier = sent[sent.length - 1 - (s.back % Math.max(1, sent.length))];
        if (!earlier) continue;
        event = earlier.event;
        break;
      }
      case "withdraw": {
        const cmds = sent.filter((x) => x.event.type === "command");
        const target = cmds[cmds.length - 1 - (s.back % Math.max(1, cmds.length))]?.event;
        event = {
          type: "vote_withdrawn",
          id,
          commentId: target?.type === "command" ? (target.commentId ?? "") : "none",
        };
        break;
      }
      case "timeout":
        now += s.ms;
        event = { type: "timeout", id };
        break;
      case "pr":
        event = { type: "pull_request", id, number: s.number, merged: s.merged };
        break;
      case "wf":
        event = {
          type: "workflow_run",
          id,
          workflow: "x.yml",
          conclusion: s.ok ? "success" : "failure",
        };
        break;
      case "alert":
        event = { type: "alert_resolved", id };
        break;
    }

    const prev = run;
    let r: AdvanceResult;
    expect(() => (r = advance(prev, event, env()))).not.toThrow();
    r = r!;
    run = r.run;
    sent.push({ event, at: now });

    // bounded state
    expect(JSON.stringify(run).length).toBeLessThanOrEqual(16 * 1024);
    expect(run.trace.length).toBeLessThanOrEqual(MAX_TRACE);
    expect(run.recentEvents.length).toBeLessThanOrEqual(MAX_RECENT_EVENTS);
    if (!r.changed) expect(run).toEqual(prev);

    // transitions follow the graph: one edge, or a delegate push, or a child's return and one edge
    const pf = activeFrame(prev);
    const nf = activeFrame(run);
    if (run.stack.length === prev.stack.length) {
      if (nf.current !== pf.current) {
        const edges = graphs
          .get(pf.playbook)
          ?.successors(pf.current ?? "")
          .map((e) => e.to);
        expect(edges, `${pf.current} → ${nf.current}`).toContain(nf.current);
      }
    } else if (run.stack.length === prev.stack.length + 1) {
      const step = graphs.get(pf.playbook)?.byId.get(pf.current ?? "")?.step;
      expect(step?.type === "playbook" && step.mode === "delegate").toBe(true);
      expect(nf.current).toBe(graphs.get(nf.playbook)?.entry);
      expect(nf.returnTo).toBe(pf.current);
      expect(run.stack[run.stack.length - 2]?.current).toBe(pf.current);
    } else {
      expect(run.stack.length).toBe(prev.stack.length - 1);
      const before = prev.stack[prev.stack.length - 2];
      expect(before?.phase).toBe("waiting");
      expect(
        graphs.get(pf.playbook)?.isTerminal(pf.current ?? "") ||
          graphs.get(pf.playbook)?.following(pf.current ?? "") === undefined,
      ).toBe(true);
      const edges = graphs
        .get(nf.playbook)
        ?.successors(before?.current ?? "")
        .map((e) => e.to);
      if (nf.current !== before?.current) expect(edges).toContain(nf.current);
    }

    // effect keys: one key per (step path, attempt); a key again only for /retry while it is out
    for (const fx of r.effects) {
      if (fx.kind === "start_playbook") continue;
      expect(nf.phase).toBe("effect");
      expect(nf.effectKey).toBe(fx.key);
      const owner = `${run.stack.map((f) => f.current).join(".")}#${nf.attempt}`;
      if (keyOwner.has(fx.key)) {
        expect(event.type === "command" && event.command === "retry").toBe(true);
        expect(pf.phase).toBe("effect");
        expect(pf.effectKey).toBe(fx.key);
      }
      expect(keyOwner.get(fx.key) ?? owner).toBe(owner);
      expect(ownerKey.get(owner) ?? fx.key).toBe(fx.key);
      keyOwner.set(fx.key, owner);
      ownerKey.set(owner, fx.key);
    }

    // checkpoint: passed only with enough eligible approvals given after it began waiting
    const gateStep = graphs.get(nf.playbook)?.byId.get(nf.current ?? "")?.step;
    if (
      gateStep?.type === "checkpoint" &&
      nf.phase === "waiting" &&
      (pf.phase !== "waiting" || pf.current !== nf.current || pf.since !== nf.since)
    )
      waitStart = { index: sent.length, since: nf.since };
    for (const [stepId, res] of Object.entries(nf.results)) {
      const step = graphs.get(nf.playbook)?.byId.get(stepId)?.step;
      if (step?.type !== "checkpoint" || res.status !== "completed") continue;
      const before = pf.playbook === nf.playbook ? pf.results[stepId] : undefined;
      if (before?.status === "completed" && before.at === res.at && before.attempt === res.attempt)
        continue;
      expect(waitStart).toBeDefined();
      const window = sent.slice(waitStart!.index);
      const withdrawn = new Set(
        window.flatMap((x) => (x.event.type === "vote_withdrawn" ? [x.event.commentId] : [])),
      );
      const last = new Map<string, string>();
      for (const { event: e } of window) {
        if (e.type !== "command" || (e.command !== "approve" && e.command !== "reject")) continue;
        if (e.createdAt < waitStart!.since || !eligible(e.actor, step, run.initiator)) continue;
        if (e.commentId && withdrawn.has(e.commentId)) continue;
        last.set(e.actor.login.toLowerCase(), e.command);
      }
      const approvals = [...last.values()].filter((c) => c === "approve").length;
      expect(approvals).toBeGreaterThanOrEqual(step.approvers?.count ?? 1);
      expect(res.outputs?.approved_by).toHaveLength(approvals);
      note("checkpoint passed");
    }
    if (r.changed) note(`${run.status} at ${run.stack.map((f) => f.current).join(".")}`);
    if (r.effects.some((fx) => keyOwner.get(fx.key) && event.type === "command"))
      note("effect asked again");
    if (run.stack.length > prev.stack.length) note("delegated");
    if (run.stack.length < prev.stack.length) note("returned");
  }
  return run;
}

const params = { numRuns: 200, seed: 20260301 };

describe("engine properties", () => {
  it("linear playbook: random events keep every invariant", () => {
    fc.assert(
      fc.property(fc.array(spec, { minLength: 1, maxLength: 80, size: "max" }), (specs) => {
        simulate(linear, [], specs);
      }),
      params,
    );
  });

  it("graph playbook with delegation: random events keep every invariant", () => {
    fc.assert(
      fc.property(
        fc.array(spec, { minLength: 1, maxLength: 80, size: "max" }),
        (specs) => void simulate(graphPb, [childPb], specs),
      ),
      params,
    );
  });

  it("the random runs reach the interesting states", () => {
    for (const want of [
      "checkpoint passed",
      "waiting at pr",
      "failed at commit",
      "cancelled at gate",
      "delegated",
      "returned",
      "completed at fin",
      "effect asked again",
    ])
      expect(reached.get(want) ?? 0, want).toBeGreaterThan(0);
  });
});
