import { validateSource } from "../../../src/core/rules/validate.js";
import { describe, expect, it } from "vitest";
import { advance, start } from "../../../src/core/engine/engine.js";
import { MAX_RECENT_EVENTS, MAX_TRACE } from "../../../src/core/engine/state.js";
import {
  DAY,
  Driver,
  HOUR,
  INITIATOR,
  MAINTAINER,
  SEC,
  T0,
  TRIAGER,
  WRITER,
  bundle,
  yaml,
} from "./helpers.js";

const RUN = "20260301-1000-001";

const child = yaml`
  apiVersion: playbook-bot/v1
  id: child
  inputs:
    ns: { type: string, required: true }
  outputs:
    where: "{{ inputs.ns }}"
  steps:
    - id: look
      type: investigate
      description: "look in {{ inputs.ns }}"
      expected_findings: [recent_deploy]
    - id: done
      type: end
      conclusion: gathered
`;

const parent = yaml`
  apiVersion: playbook-bot/v1
  id: parent
  inputs:
    service: { type: string, default: shop }
  steps:
    - id: first
      type: investigate
      description: first
      expected_findings: [seen]
    - id: sub
      type: playbook
      playbook: child
      mode: delegate
      with: { ns: "{{ inputs.service }}-ns" }
    - id: fin
      type: end
      advice: "{{ steps.sub.outputs.conclusion }} in {{ steps.sub.outputs.where }}; deploy={{ findings.recent_deploy }}"
`;

describe("playbook delegate", () => {
  it("runs the child in isolation with mapped inputs; the parent resumes with its findings", () => {
    const d = new Driver(bundle(parent, { allow: ["template-unresolved", "finding-unknown"] }), [
      bundle(child, { hash: "child-hash" }),
    ]);
    d.start();
    d.drive();
    d.command("record", TRIAGER, "seen=1");
    d.drive();
    expect(d.run.stack).toHaveLength(2);
    const texts = d.all.flatMap((r) => r.messages.map((m) => m.text));
    expect(texts).toContain("**sub** runs playbook **child** and comes back with its findings.");
    expect(texts.at(-1)).toContain("look in shop-ns");
    const c = d.frame;
    expect(c).toMatchObject({
      playbook: "child",
      hash: "child-hash",
      inputs: { ns: "shop-ns" },
      returnTo: "sub",
    });
    // isolation: the child sees neither the parent's inputs nor its findings
    expect(c.findings).toEqual({});
    expect(d.run.stack[0]?.phase).toBe("waiting");
    d.command("record", TRIAGER, "recent_deploy=true");
    d.drive();
    expect(d.run.stack).toHaveLength(1);
    expect(d.frame.current).toBe("fin");
    expect(d.frame.findings).toEqual({ seen: 1, recent_deploy: true });
    expect(d.frame.results.sub?.outputs).toEqual({ where: "shop-ns", conclusion: "gathered" });
    d.drive();
    expect(d.run.status).toBe("completed");
    expect(d.run.end?.advice).toBe("gathered in shop-ns; deploy=true");
  });

  it("a child's failure is its delegating step's: that step's on_error goes on; without one the child waits for /retry", () => {
    const kid = yaml`
      apiVersion: playbook-bot/v1
      id: kid
      steps:
        - id: note
          type: comment
          body: hi
        - id: done
          type: end
    `;
    const mom = (policy: string) => yaml`
      apiVersion: playbook-bot/v1
      id: mom
      steps:
        - id: sub
          type: playbook
          playbook: kid
          mode: delegate
          on_error: ${policy}
        - id: fin
          type: end
          conclusion: fine
        - id: rescue
          type: end
          status: failure
          conclusion: rescued
    `;
    const recovering = new Driver(bundle(mom("{ GH-CONFLICT: goto:rescue }")), [bundle(kid)]);
    recovering.start();
    recovering.drive();
    expect(recovering.run.stack).toHaveLength(2);
    recovering.failEffect("GH-CONFLICT");
    expect(recovering.run.stack).toHaveLength(1);
    expect(recovering.frame.current).toBe("rescue");
    expect(recovering.frame.results.sub).toMatchObject({
      status: "failed",
      error: { code: "GH-CONFLICT" },
    });
    recovering.drive();
    expect(recovering.run.end).toMatchObject({ status: "failure", conclusion: "rescued" });

    const continuing = new Driver(bundle(mom("continue"), { allow: ["unreachable"] }), [
      bundle(kid),
    ]);
    continuing.start();
    continuing.drive();
    continuing.failEffect("GH-ERROR");
    continuing.drive();
    expect(continuing.run.end?.conclusion).toBe("fine");

    // Another code: the run fails where the child failed, the child kept for /retry.
    const failing = new Driver(bundle(mom("{ GH-CONFLICT: goto:rescue }")), [bundle(kid)]);
    failing.start();
    failing.drive();
    failing.failEffect("GH-ERROR");
    expect(failing.run.status).toBe("failed");
    expect(failing.run.stack).toHaveLength(2);
    expect(failing.frame.current).toBe("note");
  });

  it("keys effects of a child by the whole stack", () => {
    const kid = yaml`
      apiVersion: playbook-bot/v1
      id: kid
      steps:
        - id: note
          type: comment
          body: hi
        - id: done
          type: end
          handoff: [elsewhere]
    `;
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: top
        steps:
          - id: sub
            type: playbook
            playbook: kid
            mode: delegate
          - id: fin
            type: end
      `),
      [bundle(kid)],
    );
    d.start();
    d.drive();
    d.drive();
    expect(d.effect().key).toBe(`${RUN}/sub.note/1`);
    d.answer({});
    d.drive();
    // a child's handoff is only suggested to people; the parent goes on
    expect(
      d.all
        .flatMap((r) => r.messages)
        .some((m) => m.text.includes("suggests continuing with `/run elsewhere`")),
    ).toBe(true);
    expect(d.run.status).toBe("completed");
    expect(d.last.effects).toEqual([]);
  });

  it("fails with PB-MAX-DEPTH when a playbook delegates to itself", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: loop
        limits: { max_depth: 3 }
        steps:
          - id: again
            type: playbook
            playbook: loop
            mode: delegate
          - id: fin
            type: end
      `),
    );
    d.start();
    d.drive();
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-MAX-DEPTH");
    expect(d.run.stack).toHaveLength(3);
    expect(d.run.error?.message).toContain("would nest 4 playbooks deep (limit 3)");
  });

  it("fails with PB-PLAYBOOK-INVALID when the child's file does not load, saying why", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: caller
        steps:
          - id: sub
            type: playbook
            playbook: broken
            mode: delegate
          - id: fin
            type: end
      `),
    );
    // A Triagent sibling with four findings: the first three are named, the rest counted.
    const broken = [
      "id: broken",
      "symptom: ''",
      "entrypoint: a",
      "nodes:",
      "  a:",
      "    description: ''",
      "    next: [{ condition: '', goto: b }, { condition: '', goto: b }]",
      "  b:",
      "    description: Done.",
      "    terminal_advice: Stop.",
      "",
    ].join("\n");
    d.invalid.set("broken", validateSource("investigation/broken.yaml", broken));
    d.start();
    d.drive();
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-PLAYBOOK-INVALID");
    expect(d.run.error?.message).toBe(
      "playbook 'broken' cannot run: investigation/broken.yaml is invalid — line 2: the playbook has no symptom; line 6: node 'a' has an empty description; line 7: node 'a' next[0] has an empty condition: every branch says when it applies (and 1 more)",
    );
    expect(d.run.error?.guidance).toContain("playbook-bot validate");
  });

  it("fails with PB-PLAYBOOK-UNKNOWN for an unknown child, and PB-INPUT-INVALID for bad inputs", () => {
    const text = (target: string, w = "") => yaml`
      apiVersion: playbook-bot/v1
      id: caller
      steps:
        - id: sub
          type: playbook
          playbook: ${target}
          mode: delegate
          ${w}
        - id: fin
          type: end
    `;
    const d = new Driver(bundle(text("nobody")));
    d.start();
    d.drive();
    expect(d.run.error?.code).toBe("PB-PLAYBOOK-UNKNOWN");

    const bad = new Driver(bundle(text("child", "with: { other: 1 }")), [bundle(child)]);
    bad.start();
    bad.drive();
    expect(bad.run.error?.code).toBe("PB-INPUT-INVALID");
    expect(bad.run.error?.message).toContain("'ns' is required");
  });

  it("a child playbook that changed since the run started fails the run (pinned hash)", () => {
    const d = new Driver(bundle(parent, { allow: ["template-unresolved", "finding-unknown"] }), [
      bundle(child, { hash: "c1" }),
    ]);
    d.start();
    d.drive();
    d.command("record", TRIAGER, "seen=1");
    d.drive();
    d.bundles.set("child", bundle(child, { hash: "c2" }));
    d.cont();
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-PLAYBOOK-CHANGED");
    expect(d.run.error?.message).toContain("pinned to c1");
  });
});

describe("playbook handoff", () => {
  it("ends the run and requests a start_playbook effect with the mapped inputs", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: giver
        inputs:
          ns: { type: string, default: db }
        steps:
          - id: pass
            type: playbook
            playbook: storage
            mode: handoff
            with: { namespace: "{{ inputs.ns }}", n: 2 }
      `),
    );
    d.start();
    d.drive();
    expect(d.run.status).toBe("completed");
    expect(d.run.end).toEqual({ status: "neutral", handoff: ["storage"] });
    expect(d.last.effects).toEqual([
      {
        key: `${RUN}/handoff/storage`,
        kind: "start_playbook",
        step: "pass",
        params: { playbook: "storage", inputs: { namespace: "db", n: 2 } },
      },
    ]);
    expect(d.last.messages.at(-1)?.text).toContain("Continuing with playbook **storage**.");
  });
});

const flaky = (policy: string, kind = "comment\n      body: hi") => yaml`
  apiVersion: playbook-bot/v1
  id: flaky
  steps:
    - id: act
      type: ${kind}
      on_error: ${policy}
    - id: fin
      type: end
      conclusion: "reached"
`;

describe("on_error", () => {
  it("fail (the default) fails the run at the step", () => {
    const d = new Driver(bundle(flaky("fail")));
    d.start();
    d.drive();
    const r = d.failEffect("GH-ERROR");
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("GH-ERROR");
    expect(r.messages[0]?.text).toContain(`Run ${RUN} failed at **act**: boom (GH-ERROR)`);
    expect(d.frame.results.act?.status).toBe("failed");
  });

  it("continue and ignore move on; ignore records the step as ignored", () => {
    const c = new Driver(bundle(flaky("continue")));
    c.start();
    c.drive();
    c.failEffect();
    expect(c.frame.current).toBe("fin");
    expect(c.frame.results.act?.status).toBe("failed");
    c.drive();
    expect(c.run.end?.conclusion).toBe("reached");

    const i = new Driver(bundle(flaky("ignore")));
    i.start();
    i.drive();
    i.failEffect();
    expect(i.frame.results.act).toMatchObject({ status: "ignored", error: { code: "GH-ERROR" } });
    expect(i.frame.current).toBe("fin");
  });

  it("a map is keyed by error code, with a default", () => {
    const text = flaky("{ GH-RATE-LIMITED: retry:2, GH-CONFLICT: continue, default: fail }");
    const conflict = new Driver(bundle(text));
    conflict.start();
    conflict.drive();
    conflict.failEffect("GH-CONFLICT");
    expect(conflict.frame.current).toBe("fin");

    const other = new Driver(bundle(text));
    other.start();
    other.drive();
    other.failEffect("PB-EFFECT-FAILED");
    expect(other.run.status).toBe("failed");

    const noDefault = new Driver(bundle(flaky("{ GH-CONFLICT: continue }")));
    noDefault.start();
    noDefault.drive();
    noDefault.failEffect("GH-ERROR");
    expect(noDefault.run.status).toBe("failed");
  });

  it("goto:<step> goes on at that step, skipping those between; the failed step keeps its error", () => {
    const text = yaml`
      apiVersion: playbook-bot/v1
      id: recover
      steps:
        - id: act
          type: comment
          body: hi
          on_error: { GH-CONFLICT: goto:cleanup, default: fail }
        - id: skipped
          type: comment
          body: never
        - id: done
          type: end
          conclusion: "done"
        - id: cleanup
          type: end
          status: failure
          conclusion: "cleaned up"
    `;
    const d = new Driver(bundle(text));
    d.start();
    d.drive();
    d.failEffect("GH-CONFLICT");
    expect(d.frame.current).toBe("cleanup");
    expect(d.frame.results.act).toMatchObject({ status: "failed", error: { code: "GH-CONFLICT" } });
    d.drive();
    expect(d.run.end).toMatchObject({ status: "failure", conclusion: "cleaned up" });
    expect(d.frame.results.skipped).toBeUndefined();

    const other = new Driver(bundle(text));
    other.start();
    other.drive();
    other.failEffect("GH-ERROR");
    expect(other.run.status).toBe("failed");
  });

  it("retry:N waits out an exponential backoff, then asks again with a new key; then fails", () => {
    const d = new Driver(bundle(flaky("{ GH-RATE-LIMITED: retry:2 }")));
    d.start();
    d.drive();
    expect(d.effect().key).toBe(`${RUN}/act/1`);
    const r1 = d.failEffect("GH-RATE-LIMITED");
    expect(r1.messages[0]?.text).toContain("retrying (1 of 2)");
    expect(r1.continue).toBe(false);
    // backoff: 2 s before the first retry, 4 s before the second
    const due = new Date(T0.getTime() + 2 * SEC).toISOString();
    expect(r1.wakeAt).toBe(due);
    expect(d.frame.notBefore).toBe(due);
    // a continuation before the backoff changes nothing and says when to come back
    d.tick(SEC);
    const early = d.cont();
    expect(early.changed).toBe(false);
    expect(early.effects).toEqual([]);
    expect(early.wakeAt).toBe(due);
    d.tick(SEC);
    d.cont();
    expect(d.effect().key).toBe(`${RUN}/act/2`);
    const r2 = d.failEffect("GH-RATE-LIMITED");
    expect(r2.wakeAt).toBe(new Date(d.now.getTime() + 4 * SEC).toISOString());
    d.tick(4 * SEC);
    d.cont();
    expect(d.effect().key).toBe(`${RUN}/act/3`);
    d.failEffect("GH-RATE-LIMITED");
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("GH-RATE-LIMITED");
  });

  it("/retry during a backoff runs the step at once", () => {
    const d = new Driver(bundle(flaky("retry:1")));
    d.start();
    d.drive();
    d.failEffect();
    const r = d.command("retry", WRITER);
    expect(r.reply?.outcome).toBe("accepted");
    expect(r.continue).toBe(true);
    d.cont();
    expect(d.effect().key).toBe(`${RUN}/act/2`);
  });

  it("a step timeout while waiting fails the step, which on_error may continue past", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: slow
        steps:
          - id: ask
            type: investigate
            description: ask
            timeout: 1h
            on_error: continue
          - id: fin
            type: end
      `),
    );
    d.start();
    d.drive();
    expect(d.last.wakeAt).toBe(new Date(T0.getTime() + HOUR).toISOString());
    d.tick(HOUR - 1);
    expect(d.timeout().changed).toBe(false);
    d.tick(1);
    d.timeout();
    expect(d.frame.results.ask?.error?.code).toBe("PB-TIMEOUT");
    expect(d.frame.current).toBe("fin");
  });
});

describe("/retry and /cancel", () => {
  it("/retry of a failed run starts a new attempt with a new key", () => {
    const d = new Driver(bundle(flaky("fail")));
    d.start();
    d.drive();
    d.failEffect();
    expect(d.run.status).toBe("failed");
    const r = d.command("retry", MAINTAINER);
    expect(r.reply?.outcome).toBe("accepted");
    expect(r.messages[0]?.text).toBe("@\u200bbob retries **act** (attempt 2).");
    expect(d.run.status).toBe("running");
    expect(d.run.error).toBeUndefined();
    d.drive();
    expect(d.effect().key).toBe(`${RUN}/act/2`);
    d.answer({});
    d.drive();
    expect(d.run.status).toBe("completed");
  });

  it("/retry while an effect result is lost asks again with the same key", () => {
    const d = new Driver(bundle(flaky("fail")));
    d.start();
    d.drive();
    const first = d.effect();
    const r = d.command("retry", WRITER);
    expect(r.effects).toEqual([first]);
    expect(d.frame.phase).toBe("effect");
    d.answer({});
    expect(d.frame.current).toBe("fin");
  });

  it("/retry while people are awaited is refused; commands on an ended run are refused", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: w
        steps:
          - id: ok
            type: checkpoint
            message: go?
          - id: fin
            type: end
      `),
    );
    d.start();
    d.drive();
    const r = d.command("retry", WRITER);
    expect(r.reply).toEqual({
      outcome: "refused",
      reason: "nothing to retry: 'ok' is waiting for people, not failed",
    });
    d.command("approve", WRITER);
    d.drive();
    expect(d.run.status).toBe("completed");
    expect(d.command("retry", WRITER).reply).toEqual({
      outcome: "refused",
      reason: `run ${RUN} has ended (completed)`,
    });
    expect(d.cont().changed).toBe(false);
  });

  it("/cancel cancels with the reason; a bot cannot cancel", () => {
    const d = new Driver(bundle(flaky("fail")));
    d.start();
    d.drive();
    expect(d.command("cancel", { login: "x[bot]", bot: true }).changed).toBe(false);
    const r = d.command("cancel", WRITER, "wrong issue");
    expect(r.reply?.outcome).toBe("accepted");
    expect(d.run.status).toBe("cancelled");
    expect(d.run.error).toMatchObject({
      code: "PB-CANCELLED",
      message: "cancelled by @dave: wrong issue",
    });
    // the lost effect's result no longer moves the run
    expect(d.answer({}).changed).toBe(false);
    expect(d.command("retry", WRITER).reply?.reason).toContain("has ended (cancelled)");
  });
});

describe("limits, outputs, pinning, dedupe", () => {
  it("limits.max_steps stops a looping playbook with PB-MAX-STEPS", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: looping
        limits: { max_steps: 5 }
        steps:
          - id: a
            type: decide
            rules:
              - { id: out, all: [stop], conclusion: stop, goto: fin }
            fallback: { conclusion: again, goto: b }
          - id: b
            type: decide
            rules:
              - { id: out2, all: [stop], conclusion: stop, goto: fin }
            fallback: { conclusion: again, goto: a }
          - id: fin
            type: end
      `),
    );
    d.start();
    d.drive();
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-MAX-STEPS");
    expect(d.run.steps).toBe(6);
  });

  it("limits.timeout fails a run that takes too long", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: timed
        limits: { timeout: 2d }
        steps:
          - id: ok
            type: checkpoint
            message: go?
          - id: fin
            type: end
      `),
    );
    d.start();
    d.drive();
    d.tick(DAY);
    expect(d.timeout().changed).toBe(false);
    d.tick(DAY);
    d.timeout();
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-TIMEOUT");
    expect(d.run.error?.message).toContain("limits.timeout 2d");
  });

  const withOutputs = yaml`
    apiVersion: playbook-bot/v1
    id: outs
    inputs:
      skip: { type: boolean, default: false }
    outputs:
      url: "{{ steps.note.outputs.url }}"
    steps:
      - id: note
        type: comment
        if: inputs.skip == false
        body: hi
      - id: fin
        type: end
  `;

  it("declared outputs are recorded at the end", () => {
    const d = new Driver(bundle(withOutputs));
    d.start();
    d.drive();
    d.answer({ url: "https://c/1" });
    d.drive();
    expect(d.run.outputs).toEqual({ url: "https://c/1" });
  });

  it("a declared output without a value fails the run with PB-OUTPUT-MISSING", () => {
    const d = new Driver(bundle(withOutputs));
    d.start({ skip: true });
    d.drive();
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-OUTPUT-MISSING");
    expect(d.run.error?.message).toContain("output 'url' has no value");
  });

  it("a run is pinned to its playbook hash: a changed or removed playbook fails it", () => {
    const d = new Driver(bundle(flaky("fail"), { hash: "h1" }));
    d.start();
    d.bundles.set("flaky", bundle(flaky("fail"), { hash: "h2" }));
    const r = d.cont();
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-PLAYBOOK-CHANGED");
    expect(r.messages[0]?.kind).toBe("failure");
    // once failed, a changed playbook changes nothing more
    expect(d.cont().changed).toBe(false);

    const gone = new Driver(bundle(flaky("fail")));
    gone.start();
    gone.bundles.clear();
    gone.cont();
    expect(gone.run.error?.message).toBe("playbook 'flaky' is no longer available");
  });

  it("a duplicate event id or a stale continuation changes nothing", () => {
    const d = new Driver(bundle(flaky("fail")));
    d.start();
    const c = { type: "continue" as const, id: "same", seq: d.run.seq };
    d.send(c);
    const before = structuredClone(d.run);
    const dup = d.send({ ...c, seq: d.run.seq });
    expect(dup.changed).toBe(false);
    expect(dup.reply).toEqual({ outcome: "ignored", reason: "this event was already handled" });
    expect(d.run).toEqual(before);
    const stale = d.cont(d.run.seq - 1);
    expect(stale.changed).toBe(false);
    expect(stale.continue).toBe(false);
    expect(d.run).toEqual(before);
  });

  it("advance is pure: the input state is not modified", () => {
    const d = new Driver(bundle(flaky("fail")));
    d.start();
    const snapshot = structuredClone(d.run);
    const r = advance(d.run, { type: "continue", id: "x", seq: d.run.seq }, d.env);
    expect(d.run).toEqual(snapshot);
    expect(r.run).not.toBe(d.run);
    const again = advance(d.run, { type: "continue", id: "x", seq: d.run.seq }, d.env);
    expect(again).toEqual(r);
  });

  it("trace and recent events stay bounded", () => {
    const d = new Driver(
      bundle(yaml`
        apiVersion: playbook-bot/v1
        id: long
        steps:
          - id: ask
            type: investigate
            description: ask
            expected_findings: [never]
          - id: fin
            type: end
      `),
    );
    d.start();
    d.drive();
    for (let i = 0; i < 60; i++) d.command("record", TRIAGER, `k${i}=${i}`);
    expect(d.run.trace).toHaveLength(MAX_TRACE);
    expect(d.run.recentEvents).toHaveLength(MAX_RECENT_EVENTS);
    expect(d.run.traceDropped).toBeGreaterThan(0);
    expect(d.run.trace.at(-1)).toMatchObject({ event: "/record", actor: "frank", step: "ask" });
  });

  it("an alert resolving is noted without moving the run", () => {
    const d = new Driver(bundle(flaky("fail")));
    d.start();
    d.drive();
    const r = d.send({ type: "alert_resolved", id: "a1" });
    expect(r.messages[0]?.text).toBe("The alert that started this run has resolved.");
    expect(d.frame.current).toBe("act");
    expect(d.frame.phase).toBe("effect");
  });
});

describe("start", () => {
  it("checks inputs at once and refuses to start with every problem", () => {
    const b = bundle(yaml`
      apiVersion: playbook-bot/v1
      id: strict
      inputs:
        a: { type: number, required: true }
        b: { type: enum, values: [x, y], required: true }
      steps:
        - id: fin
          type: end
    `);
    const r = start(
      { bundle: b, inputs: { b: "z", c: "1" }, initiator: INITIATOR, eventId: "e" },
      {
        now: T0,
        playbooks: () => b,
      },
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("PB-INPUT-INVALID");
    expect(r.problems.map((p) => p.input).sort()).toEqual(["a", "b", "c"]);
  });

  it("names the run by time and index and records who started it", () => {
    const b = bundle(flaky("fail"));
    const r = start(
      { bundle: b, inputs: {}, initiator: { login: "zoe" }, eventId: "e", runIndex: 1234 },
      { now: T0, playbooks: () => b },
    );
    if (!r.ok) throw new Error("expected a start");
    expect(r.result.run.id).toBe("20260301-1000-234");
    expect(r.result.run.initiatorPermission).toBeUndefined();
    expect(r.result.messages[0]?.text).toBe(
      "Run 20260301-1000-234 of **flaky** started by @\u200bzoe.",
    );
    expect(r.result.continue).toBe(true);
  });
});
