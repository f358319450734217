import { describe, expect, it } from "vitest";
import type { AdvanceResult, Effect } from "../../../src/core/engine/events.js";
import type { Value } from "../../../src/core/engine/state.js";
import { encodeSigned, runStateProblems } from "../../../src/runtime/state-codec.js";
import { Driver, INITIATOR, MAINTAINER, bundle, yaml } from "./helpers.js";

/** Two branches of one comment each, with the join and failure policy given. */
function twoBranches(join: string, policy = "fail", third = false): string {
  return yaml`
    apiVersion: playbook-bot/v1
    id: par
    steps:
      - id: checks
        type: parallel
        join: ${join}
        on_branch_failure: ${policy}
        branches:
          lint:
            - { id: lint-say, type: comment, body: lint }
            - { id: lint-done, type: comment, body: "lint said {{ steps.lint-say.outputs.id }}" }
          tests:
            - { id: tests-say, type: comment, body: tests }
    ${third ? "      docs:\n            - { id: docs-say, type: comment, body: docs }" : ""}
      - id: report
        type: comment
        body: "done: {{ steps.checks.outputs.completed }}"
  `;
}

/** The effects the last result asked for, by step. */
function effectsByStep(r: AdvanceResult): Record<string, Effect> {
  return Object.fromEntries(r.effects.map((e) => [e.step, e]));
}

function answer(d: Driver, effect: Effect, outputs: Record<string, Value> = {}): AdvanceResult {
  return d.answer({ id: `c-${effect.step}`, url: `u/${effect.step}`, ...outputs }, effect.key);
}

function fail(d: Driver, effect: Effect): AdvanceResult {
  return d.failEffect("GH-ERROR", effect.key);
}

/** Start, then enter the parallel step and its branches: the branches' first effects. */
function forked(text: string, inputs = {}): { d: Driver; effects: Record<string, Effect> } {
  const d = new Driver(bundle(text));
  d.start(inputs);
  d.cont(); // enters the parallel step: its lanes wait to be entered
  expect(d.run.status).toBe("running");
  const r = d.cont(); // one event enters every branch
  return { d, effects: effectsByStep(r) };
}

describe("parallel: join all", () => {
  it("starts every branch on one event, each effect with its own key, and joins them all", () => {
    const { d, effects } = forked(twoBranches("all"));
    expect(Object.keys(effects).sort()).toEqual(["lint-say", "tests-say"]);
    const keys = Object.values(effects).map((e) => e.key);
    expect(new Set(keys).size).toBe(2);
    expect(keys).toContain(`${d.run.id}/lint-say/1`);
    // Answered out of order: tests first, then lint's two steps.
    answer(d, effects["tests-say"] as Effect);
    expect(d.frame.current).toBe("checks");
    expect(d.frame.forks?.["parallel:checks"]?.ended).toEqual({ tests: "completed" });
    answer(d, effects["lint-say"] as Effect);
    expect(d.last.continue).toBe(true);
    const next = d.cont();
    expect(next.effects.map((e) => e.step)).toEqual(["lint-done"]);
    expect(next.effects[0]?.params).toMatchObject({ body: "lint said c-lint-say" });
    answer(d, next.effects[0] as Effect);
    expect(d.frame.current).toBe("report");
    expect(d.frame.lanes).toBeUndefined();
    expect(d.frame.forks).toBeUndefined();
    expect(d.frame.results.checks?.outputs).toEqual({
      completed: ["lint", "tests"],
      failed: [],
      cancelled: [],
      first: "tests",
    });
    const report = d.cont();
    expect(report.effects[0]?.params).toMatchObject({ body: "done: lint, tests" });
    answer(d, report.effects[0] as Effect);
    expect(d.run.status).toBe("completed");
  });

  it("runs to the end with the interpreter, which performs every effect an advance returns", () => {
    const d = new Driver(bundle(twoBranches("all")));
    d.start();
    const performed: string[] = [];
    // The driver's interpreter stops at effects; answer each one it is left with.
    for (let i = 0; i < 20 && d.run.status !== "completed"; i++) {
      d.drive();
      for (const e of d.last.effects) {
        performed.push(e.step);
        answer(d, e);
      }
    }
    expect(d.run.status).toBe("completed");
    expect(performed.sort()).toEqual(["lint-done", "lint-say", "report", "tests-say"]);
  });
});

describe("parallel: join any and count", () => {
  it("any: the first completed branch ends the step and cancels the others", () => {
    const { d, effects } = forked(twoBranches("any"));
    answer(d, effects["tests-say"] as Effect);
    expect(d.frame.current).toBe("report");
    expect(d.frame.results.checks?.outputs).toMatchObject({
      completed: ["tests"],
      cancelled: ["lint"],
      first: "tests",
    });
    // The cancelled branch's effect result arrives late: nothing changes.
    const late = answer(d, effects["lint-say"] as Effect);
    expect(late.changed).toBe(false);
    expect(d.frame.results["lint-say"]).toBeUndefined();
  });

  it("count: two of three branches", () => {
    const { d, effects } = forked(twoBranches("{ count: 2 }", "fail", true));
    expect(Object.keys(effects).sort()).toEqual(["docs-say", "lint-say", "tests-say"]);
    answer(d, effects["docs-say"] as Effect);
    expect(d.frame.current).toBe("checks");
    answer(d, effects["tests-say"] as Effect);
    expect(d.frame.current).toBe("report");
    expect(d.frame.results.checks?.outputs).toMatchObject({
      completed: ["tests", "docs"],
      cancelled: ["lint"],
    });
  });
});

describe("parallel: failure policies", () => {
  it("fail: the step fails with the branch's own error, the others are cancelled", () => {
    const { d, effects } = forked(twoBranches("all", "fail"));
    fail(d, effects["lint-say"] as Effect);
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("GH-ERROR");
    expect(d.frame.lanes).toBeUndefined();
    expect(answer(d, effects["tests-say"] as Effect).changed).toBe(false);
  });

  it("cancel: the step fails with PB-BRANCH-FAILED naming the branch", () => {
    const { d, effects } = forked(twoBranches("all", "cancel"));
    fail(d, effects["tests-say"] as Effect);
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-BRANCH-FAILED");
    expect(d.run.error?.message).toContain("branch 'tests'");
  });

  it("continue: the others go on, and the step reports the failure at the join", () => {
    const { d, effects } = forked(twoBranches("all", "continue"));
    fail(d, effects["tests-say"] as Effect);
    expect(d.run.status).toBe("running");
    answer(d, effects["lint-say"] as Effect);
    const next = d.cont();
    answer(d, next.effects[0] as Effect);
    expect(d.frame.current).toBe("report");
    expect(d.frame.results.checks?.outputs).toMatchObject({
      completed: ["lint"],
      failed: ["tests"],
    });
  });

  it("continue with a count that can no longer be met fails with PB-JOIN-UNMET", () => {
    const { d, effects } = forked(twoBranches("{ count: 2 }", "continue"));
    fail(d, effects["tests-say"] as Effect);
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-JOIN-UNMET");
  });
});

const FOR_EACH = yaml`
  apiVersion: playbook-bot/v1
  id: each
  inputs:
    services: { type: list, default: "api, web, worker, jobs, cron" }
  limits: { max_parallel: 2, max_items: 5 }
  steps:
    - id: notify
      type: comment
      for_each: "{{ inputs.services }}"
      body: "checking {{ item }} ({{ item_index }})"
    - id: report
      type: comment
      body: "{{ steps.notify.outputs.url }}"
`;

describe("for_each", () => {
  it("runs up to max_parallel items at once, keys each by its item, and keeps outputs in item order", () => {
    const d = new Driver(bundle(FOR_EACH));
    d.start();
    d.cont();
    const first = d.cont();
    expect(first.effects.map((e) => e.params)).toEqual([
      { body: "checking api (0)" },
      { body: "checking web (1)" },
    ]);
    expect(first.effects.map((e) => e.key)).toEqual([
      `${d.run.id}/notify/1/0`,
      `${d.run.id}/notify/1/1`,
    ]);
    // Item 1 finishes first: item 2 starts in its place; never more than two at once.
    answer(d, first.effects[1] as Effect, { url: "u1" });
    const more = d.cont();
    expect(more.effects.map((e) => e.params)).toEqual([{ body: "checking worker (2)" }]);
    expect(Object.keys(d.frame.lanes ?? {})).toHaveLength(2);
    answer(d, first.effects[0] as Effect, { url: "u0" });
    answer(d, more.effects[0] as Effect, { url: "u2" });
    const rest = d.cont();
    expect(rest.effects.map((e) => e.params)).toEqual([
      { body: "checking jobs (3)" },
      { body: "checking cron (4)" },
    ]);
    answer(d, rest.effects[1] as Effect, { url: "u4" });
    answer(d, rest.effects[0] as Effect, { url: "u3" });
    expect(d.frame.current).toBe("report");
    expect(d.frame.results.notify?.outputs?.url).toEqual(["u0", "u1", "u2", "u3", "u4"]);
    expect(d.cont().effects[0]?.params).toEqual({ body: "u0, u1, u2, u3, u4" });
  });

  it("fails a list longer than limits.max_items before any item runs", () => {
    const d = new Driver(bundle(FOR_EACH));
    d.start({ services: "a,b,c,d,e,f" });
    d.cont();
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-FOR-EACH-INVALID");
    expect(d.run.error?.message).toContain("limits.max_items (5)");
  });

  it("an empty list completes the step at once with empty lists", () => {
    const d = new Driver(
      bundle(FOR_EACH.replace('default: "api, web, worker, jobs, cron"', 'default: " "')),
    );
    d.start();
    d.cont();
    expect(d.frame.current).toBe("report");
    expect(d.frame.results.notify?.outputs?.url).toEqual([]);
  });

  it("a failed item fails the step and cancels the rest", () => {
    const d = new Driver(bundle(FOR_EACH));
    d.start();
    d.cont();
    const first = d.cont();
    fail(d, first.effects[0] as Effect);
    expect(d.run.status).toBe("failed");
    expect(d.frame.lanes).toBeUndefined();
    expect(answer(d, first.effects[1] as Effect).changed).toBe(false);
  });
});

describe("routing", () => {
  it("routes an effect result by its key, ignores unknown keys and redelivered results", () => {
    const { d, effects } = forked(twoBranches("all"));
    const stray = d.answer({ id: "x" }, `${d.run.id}/nowhere/1`);
    expect(stray.changed).toBe(false);
    const tests = effects["tests-say"] as Effect;
    const event = {
      type: "effect_result" as const,
      id: "fx-tests",
      key: tests.key,
      ok: true as const,
      outputs: { id: "1", url: "u" },
    };
    const once = d.send(event);
    expect(once.changed).toBe(true);
    const before = structuredClone(d.run);
    const again = d.send(event);
    expect(again.changed).toBe(false);
    // The same result under another delivery id finds no effect waiting under its key.
    const other = d.send({ ...event, id: "fx-tests-2" });
    expect(other.changed).toBe(false);
    expect(d.run).toEqual(before);
  });

  const CHECKS = yaml`
    apiVersion: playbook-bot/v1
    id: approvals
    steps:
      - id: both
        type: parallel
        branches:
          a:
            - { id: a-check, type: checkpoint, message: "a?", approvers: { permission: maintain } }
          b:
            - { id: b-check, type: checkpoint, message: "b?", approvers: { permission: maintain } }
      - { id: after, type: comment, body: done }
  `;

  it("/approve goes to the first waiting step in the playbook's order unless it names one", () => {
    const d = new Driver(bundle(CHECKS));
    d.start();
    d.cont();
    d.cont();
    expect(d.run.status).toBe("waiting");
    expect(d.last.messages.filter((m) => m.kind === "waiting")).toHaveLength(2);
    d.tick(1000);
    const named = d.command("approve", MAINTAINER, "b-check looks good");
    expect(named.reply?.outcome).toBe("accepted");
    expect(d.frame.forks?.["parallel:both"]?.ended).toEqual({ b: "completed" });
    expect(d.frame.results["b-check"]?.outputs).toMatchObject({ note: "looks good" });
    const plain = d.command("approve", MAINTAINER);
    expect(plain.reply?.outcome).toBe("accepted");
    expect(d.frame.current).toBe("after");
  });

  it("a command no branch waits for is refused, and /retry re-asks every lost effect", () => {
    const { d, effects } = forked(twoBranches("all"));
    const refused = d.command("approve", MAINTAINER);
    expect(refused.reply?.outcome).toBe("refused");
    const retried = d.command("retry", INITIATOR);
    expect(retried.effects.map((e) => e.key).sort()).toEqual(
      Object.values(effects)
        .map((e) => e.key)
        .sort(),
    );
  });
});

describe("needs", () => {
  const DAG = yaml`
    apiVersion: playbook-bot/v1
    id: dag
    steps:
      - { id: build, type: comment, body: build }
      - { id: docs, type: comment, body: docs }
      - { id: tag, type: comment, body: "tag after {{ steps.build.outputs.id }}", needs: [build] }
      - { id: announce, type: comment, body: announce, needs: [tag, docs] }
  `;

  it("starts steps without needs together, each other one when its needs are done, and ends after all", () => {
    const d = new Driver(bundle(DAG));
    d.start();
    d.cont();
    const roots = d.cont();
    expect(roots.effects.map((e) => e.step)).toEqual(["build", "docs"]);
    answer(d, roots.effects[0] as Effect);
    const tag = d.cont();
    expect(tag.effects.map((e) => e.step)).toEqual(["tag"]);
    expect(tag.effects[0]?.params).toEqual({ body: "tag after c-build" });
    answer(d, tag.effects[0] as Effect);
    // announce still needs docs.
    expect(d.last.continue).toBe(false);
    answer(d, roots.effects[1] as Effect);
    const last = d.cont();
    expect(last.effects.map((e) => e.step)).toEqual(["announce"]);
    answer(d, last.effects[0] as Effect);
    expect(d.run.status).toBe("completed");
    expect(d.run.trace.some((t) => t.step === "announce")).toBe(true);
  });

  it("a failed step fails the run", () => {
    const d = new Driver(bundle(DAG));
    d.start();
    d.cont();
    const roots = d.cont();
    fail(d, roots.effects[1] as Effect);
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("GH-ERROR");
  });
});

describe("bounded state", () => {
  it("a for_each of the most items with long outputs still fits a status comment", () => {
    const text = FOR_EACH.replace(
      "max_parallel: 2, max_items: 5",
      "max_parallel: 20, max_items: 100",
    ).replace(
      'default: "api, web, worker, jobs, cron"',
      `default: "${Array.from({ length: 100 }, (_, i) => `s${i}`).join(",")}"`,
    );
    const d = new Driver(bundle(text));
    d.start();
    d.cont();
    let sizes = 0;
    for (let round = 0; round < 20 && d.frame.current === "notify"; round++) {
      const r = d.cont();
      expect(r.effects.length).toBeLessThanOrEqual(20);
      expect(Object.keys(d.frame.lanes ?? {}).length).toBeLessThanOrEqual(20);
      for (const e of r.effects)
        answer(d, e, { url: `https://example.test/${"y".repeat(2000)}/${e.key}` });
      sizes = Math.max(sizes, JSON.stringify(d.run).length);
    }
    expect(d.frame.current).toBe("report");
    expect(d.frame.results.notify?.outputs?.url).toHaveLength(100);
    const block = encodeSigned(d.run, { key: Buffer.alloc(32, 1), issue: 1, comment: "1" });
    expect(block.length).toBeLessThan(65_536 / 2);
    expect(sizes).toBeLessThan(200_000);
  });
});

describe("nesting, timeouts and retries", () => {
  const NESTED = yaml`
    apiVersion: playbook-bot/v1
    id: nested
    inputs:
      hosts: { type: list, default: "h1, h2" }
    steps:
      - id: outer
        type: parallel
        branches:
          graph:
            - { id: g-a, type: comment, body: a }
            - { id: g-b, type: comment, body: b, needs: [g-a] }
          items:
            - { id: each, type: comment, for_each: "{{ inputs.hosts }}", body: "{{ item }}" }
          wait:
            - { id: gate, type: checkpoint, message: ok?, timeout: 1h, approvers: { permission: maintain } }
      - { id: after, type: comment, body: "{{ steps.each.outputs.url }}" }
  `;

  /** Continue and answer every effect until the run waits for people or ends. */
  function settle(d: Driver): void {
    for (let i = 0; i < 20; i++) {
      const r = d.last.continue ? d.cont() : d.last;
      if (r.effects.length === 0 && !d.last.continue) return;
      for (const e of r.effects) answer(d, e, { url: `u-${e.key.split("/").pop()}` });
    }
  }

  it("runs a needs: list and a for_each inside branches, each joining its own host", () => {
    const d = new Driver(bundle(NESTED));
    d.start();
    settle(d);
    expect(d.run.status).toBe("waiting");
    expect(d.frame.forks?.["parallel:outer"]?.ended).toEqual({
      graph: "completed",
      items: "completed",
    });
    expect(d.frame.results.each?.outputs?.url).toEqual(["u-0", "u-1"]);
    expect(d.frame.results["g-b"]?.status).toBe("completed");
    d.command("approve", MAINTAINER);
    settle(d);
    expect(d.run.status).toBe("completed");
  });

  it("a lane's step timeout fails it at the tick, and the wake-up time says when", () => {
    const d = new Driver(bundle(NESTED));
    d.start();
    settle(d);
    expect(d.last.wakeAt).toBe(new Date(d.now.getTime() + 3600_000).toISOString());
    d.tick(3600_000);
    d.timeout();
    expect(d.run.status).toBe("failed");
    expect(d.run.error?.code).toBe("PB-TIMEOUT");
    expect(d.run.error?.message).toContain("no approval for 'gate' within 1h");
  });

  it("a branch's step retries after its backoff, woken by a tick, under a new attempt", () => {
    const text = twoBranches("all").replace(
      "- { id: tests-say, type: comment, body: tests }",
      '- { id: tests-say, type: comment, body: tests, on_error: "retry:2" }',
    );
    const { d, effects } = forked(text);
    fail(d, effects["tests-say"] as Effect);
    expect(d.run.status).toBe("running");
    const lane = d.frame.lanes?.["parallel:checks#tests"];
    expect(lane?.phase).toBe("pending");
    expect(d.last.continue).toBe(false);
    expect(d.last.wakeAt).toBe(lane?.notBefore);
    d.now = new Date(Date.parse(lane?.notBefore ?? "") + 1);
    const again = d.timeout();
    expect(again.effects.map((e) => e.key)).toEqual([`${d.run.id}/tests-say/2`]);
  });

  it("/retry of a run that failed in a branch starts the parallel step again", () => {
    const { d, effects } = forked(twoBranches("all"));
    fail(d, effects["tests-say"] as Effect);
    expect(d.run.status).toBe("failed");
    d.command("retry", INITIATOR);
    expect(d.run.status).toBe("running");
    expect(d.frame.current).toBe("checks");
    expect(d.frame.lanes).toBeUndefined();
    d.cont();
    const again = d.cont();
    // Attempts go on: the effects are asked under new keys.
    expect(again.effects.map((e) => e.key).sort()).toEqual([
      `${d.run.id}/lint-say/2`,
      `${d.run.id}/tests-say/2`,
    ]);
  });
});

describe("the state of a run with lanes, read back", () => {
  it("passes the state check while lanes run; a damaged lane or fork does not", () => {
    const { d } = forked(twoBranches("all"));
    expect(d.frame.lanes).toBeDefined();
    expect(runStateProblems(JSON.parse(JSON.stringify(d.run)))).toEqual([]);
    const badLane = structuredClone(d.run);
    (badLane.stack[0]?.lanes as Record<string, unknown>)["parallel:checks#lint"] = {
      fork: "parallel:checks",
      phase: "running",
    };
    expect(runStateProblems(badLane).join("; ")).toMatch(/lanes/);
    const badFork = structuredClone(d.run);
    (badFork.stack[0]?.forks as Record<string, { ended: unknown }>)["parallel:checks"]!.ended = {
      lint: "maybe",
    };
    expect(runStateProblems(badFork).join("; ")).toMatch(/forks/);
  });
});

describe("for_each over a list kept as JSON text", () => {
  const text = (answer: string) => ({ answer });
  it("runs once per element, an object element as JSON text whose fields the step reads", async () => {
    const { forEachItems } = await import("../../../src/core/engine/lanes.js");
    const resolve = (path: readonly string[]) =>
      path.join(".") === "steps.plan.outputs.text"
        ? text(JSON.stringify([{ id: 1 }, "two", 3, null])).answer
        : path.join(".") === "steps.big.outputs.text"
          ? JSON.stringify([{ body: "x".repeat(5000) }])
          : path.join(".") === "steps.plain.outputs.text"
            ? "[not json, b"
            : undefined;
    expect(forEachItems("{{ steps.plan.outputs.text }}", resolve)).toEqual({
      ok: true,
      items: ['{"id":1}', "two", 3, null],
    });
    expect(forEachItems("{{ steps.big.outputs.text }}", resolve)).toMatchObject({
      ok: false,
      message: expect.stringContaining(
        "item 0 is 5011 characters of JSON; an object item has at most 4000",
      ),
    });
    // Text that only looks like a list is split on commas, as before.
    expect(forEachItems("{{ steps.plain.outputs.text }}", resolve)).toEqual({
      ok: true,
      items: ["[not json", "b"],
    });
  });
});

describe("for_each with an if that reads the item", () => {
  const PER_ITEM = yaml`
    apiVersion: playbook-bot/v1
    id: per-item
    limits: { max_parallel: 1 }
    inputs:
      names: { type: string, default: "api, web, jobs" }
    steps:
      - id: size
        type: comment
        for_each: "{{ inputs.names }}"
        body: "{{ item }}"
      - id: only-long
        type: comment
        for_each: "{{ inputs.names }}"
        if: '${"$"}{{ steps.size.outputs.url[item_index].length > 6 && item != "jobs" }}'
        body: "long {{ item }}, read as {{ steps.size.outputs.url[item_index] }}"
      - id: never
        type: comment
        for_each: "{{ inputs.names }}"
        if: '${"$"}{{ inputs.names == "none" }}'
        body: "never {{ item }}"
      - { id: done, type: comment, body: "done" }
  `;

  /** Continue and answer every effect (its url: 'u-' and the body) until the run waits or ends. */
  function settle(d: Driver): string[] {
    const bodies: string[] = [];
    for (let i = 0; i < 40 && d.run.status === "running"; i++) {
      const r = d.last.continue ? d.cont() : d.last;
      if (r.effects.length === 0 && !r.continue) break;
      for (const e of r.effects) {
        const body = String((e.params as { body: string }).body);
        bodies.push(body);
        answer(d, e, { url: body === "web" ? "u-web-long" : `u-${body}` });
      }
    }
    return bodies;
  }

  it("tests each item, skips the items it is false for, and an if without the item once", () => {
    const d = new Driver(bundle(PER_ITEM));
    d.start();
    const bodies = settle(d);
    expect(bodies).toEqual(["api", "web", "jobs", "long web, read as u-web-long", "done"]);
    expect(d.frame.results["only-long"]?.outputs?.url).toEqual([
      null,
      "u-long web, read as u-web-long",
      null,
    ]);
    expect(d.frame.results.never?.status).toBe("skipped");
  });
});
