import { describe, expect, it } from "vitest";
import type { Effect } from "../../src/core/engine/events.js";
import type { AiParams } from "../../src/core/steps/ai/effect.js";
import { MockAiAdapter, runAiEffect } from "../../src/runtime/ai.js";
import type { ToolRunner } from "../../src/runtime/tool-calls.js";
import { Driver, MAINTAINER, bundle, yaml } from "../core/engine/helpers.js";

/** Four branches at once, each an ai step offered the same tool, under a run budget of 3 calls. */
const FOUR_BRANCHES = yaml`
  apiVersion: playbook-bot/v1
  id: fan
  limits: { max_tool_calls: 3 }
  steps:
    - id: look
      type: parallel
      join: all
      branches:
        a: [{ id: ask-a, type: ai, prompt: Look at a., tools: [metrics/query] }]
        b: [{ id: ask-b, type: ai, prompt: Look at b., tools: [metrics/query] }]
        c: [{ id: ask-c, type: ai, prompt: Look at c., tools: [metrics/query] }]
        d: [{ id: ask-d, type: ai, prompt: Look at d., tools: [metrics/query] }]
    - id: done
      type: end
`;

/** The same ai step for each of four items. */
const FOUR_ITEMS = yaml`
  apiVersion: playbook-bot/v1
  id: each
  inputs:
    hosts: { type: list, default: "a, b, c, d" }
  limits: { max_tool_calls: 3, max_parallel: 4 }
  steps:
    - id: ask
      type: ai
      for_each: "{{ inputs.hosts }}"
      prompt: "Look at {{ item }}."
      tools: [metrics/query]
    - id: done
      type: end
`;

/** A model that always asks for the tool, three times per answer. */
const greedy = new MockAiAdapter({
  replies: [{ when: "Look", text: "looked", calls: Array(3).fill({ tool: "metrics/query" }) }],
});

/** A read-only tool host that counts the calls it really made. */
function countingTools(): ToolRunner & { made: number } {
  const runner = {
    made: 0,
    call: async () => {
      runner.made++;
      return { ok: true as const, result: { value: 1 } };
    },
    describe: async () => ({ readOnly: true }),
  };
  return runner;
}

/** Runs every ai effect of the last result at once, as a host would, and answers each. */
async function answerAll(d: Driver, effects: readonly Effect[], tools: ToolRunner) {
  const outputs = await Promise.all(
    effects.map((e) => runAiEffect(greedy, e.params as AiParams, undefined, { tools })),
  );
  effects.forEach((e, i) => d.answer(outputs[i], e.key));
}

describe("the tool-call budget is reserved before an ai step is offered calls", () => {
  it("four parallel branches make at most 3 calls in all under a budget of 3 (12 before)", async () => {
    const d = new Driver(bundle(FOUR_BRANCHES));
    d.start();
    d.cont();
    const entered = d.cont();
    expect(entered.effects.map((e) => e.step).sort()).toEqual(["ask-a", "ask-b", "ask-c", "ask-d"]);
    const offered = entered.effects.map((e) => (e.params as AiParams).max_tool_calls);
    // The first branch reserves the whole budget; the others are offered what is left: nothing.
    expect(offered.reduce<number>((n, m) => n + (m ?? 0), 0)).toBe(3);
    expect(d.run.toolCallsReserved).toBeDefined();
    const tools = countingTools();
    await answerAll(d, entered.effects, tools);
    expect(tools.made).toBe(3);
    expect(d.run.toolCalls).toBe(3);
    // Every reservation came back with its answer.
    expect(d.run.toolCallsReserved).toBeUndefined();
  });

  it("for_each items share the budget, and what an item leaves unused goes to the next", async () => {
    const d = new Driver(bundle(FOUR_ITEMS.replace("max_parallel: 4", "max_parallel: 2")));
    d.start();
    d.cont();
    const entered = d.cont();
    expect(entered.effects.map((e) => (e.params as AiParams).max_tool_calls)).toEqual([3, 0]);
    const tools = countingTools();
    // The first item makes one call of its three: two come back, for the next item to start.
    const once = new MockAiAdapter({
      replies: [{ when: "Look", text: "one look", calls: [{ tool: "metrics/query" }] }],
    });
    const [first, second] = entered.effects as [Effect, Effect];
    d.answer(await runAiEffect(once, first.params as AiParams, undefined, { tools }), first.key);
    expect(d.run.toolCalls).toBe(1);
    const next = d.cont();
    expect(next.effects.map((e) => (e.params as AiParams).max_tool_calls)).toEqual([2]);
    await answerAll(d, [second, ...next.effects], tools);
    const last = d.cont();
    expect(last.effects.map((e) => (e.params as AiParams).max_tool_calls)).toEqual([0]);
    await answerAll(d, last.effects, tools);
    expect(tools.made).toBe(3);
    expect(d.run.toolCalls).toBe(3);
    expect(d.run.toolCallsReserved).toBeUndefined();
  });

  it("a branch cancelled while its ai step was out gives its reservation back", () => {
    const race = yaml`
      apiVersion: playbook-bot/v1
      id: race
      limits: { max_tool_calls: 3 }
      steps:
        - id: look
          type: parallel
          join: any
          branches:
            slow: [{ id: ask, type: ai, prompt: Look around., tools: [metrics/query] }]
            fast: [{ id: say, type: comment, body: quick }]
        - { id: again, type: ai, prompt: Look again., tools: [metrics/query] }
        - { id: done, type: end }
    `;
    const d = new Driver(bundle(race));
    d.start();
    d.cont();
    const entered = d.cont();
    const ask = entered.effects.find((e) => e.step === "ask")!;
    const say = entered.effects.find((e) => e.step === "say")!;
    expect((ask.params as AiParams).max_tool_calls).toBe(3);
    // The comment answers first: join any is met, the ai branch is cancelled unanswered.
    d.answer({ id: "c-1", url: "u/1" }, say.key);
    d.drive();
    expect(d.effect()).toMatchObject({ step: "again", params: { max_tool_calls: 3 } });
  });

  it("an ai step asked again (/retry of a lost result) is offered its reservation, not 20", () => {
    const one = yaml`
      apiVersion: playbook-bot/v1
      id: one
      limits: { max_tool_calls: 3 }
      steps:
        - { id: ask, type: ai, prompt: Look around., tools: [metrics/query] }
        - { id: done, type: end }
    `;
    const d = new Driver(bundle(one));
    d.start();
    d.drive();
    expect(d.effect().params).toMatchObject({ max_tool_calls: 3 });
    d.command("retry", MAINTAINER);
    expect(d.effect().params).toMatchObject({ max_tool_calls: 3 });
    expect(d.run.toolCallsReserved).toEqual({ [d.effect().key]: 3 });
  });
});
