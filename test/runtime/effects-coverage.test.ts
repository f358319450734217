import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MockAiAdapter } from "../../src/runtime/ai.js";
import { LocalEffects } from "../../src/adapters/local/effects.js";
import { MemoryGitHub } from "../../src/adapters/memory/github.js";
import { EFFECT_KINDS, EFFECT_OUTPUTS } from "../../src/core/steps/effects.js";
import { defaultRegistry } from "../../src/core/steps/executors.js";
import { stepKind } from "../../src/core/steps/registry.js";
import type { EffectHandlers } from "../../src/runtime/effects.js";
import { testPort } from "../entries/app/harness.js";
import { cleanup, makeDir } from "../helpers/git-repo.js";

beforeAll(() => nock.disableNetConnect());
afterAll(() => {
  nock.enableNetConnect();
  cleanup();
});

/** Every adapter's handler map, as the code builds it (no request is made). */
function adapters(): [string, EffectHandlers][] {
  const local = new LocalEffects({
    repo: makeDir(),
    dryRun: false,
    ai: new MockAiAdapter(),
    log: () => undefined,
  });
  return [
    ["octokit", testPort().handlers],
    ["memory", new MemoryGitHub().handlers],
    ["local", local.handlers],
  ];
}

describe("effect kinds", () => {
  it("are listed once each, with the outputs each promises", () => {
    expect(new Set(EFFECT_KINDS).size).toBe(EFFECT_KINDS.length);
    expect(Object.keys(EFFECT_OUTPUTS).sort()).toEqual([...EFFECT_KINDS].sort());
  });

  it.each(adapters())("have a handler each in the %s adapter, and no other", (_name, handlers) => {
    for (const kind of EFFECT_KINDS) expect(typeof handlers[kind], kind).toBe("function");
    expect(Object.keys(handlers).sort()).toEqual([...EFFECT_KINDS].sort());
  });

  it("type the handler maps: one that lacks a kind or returns wrong outputs does not compile", () => {
    const memory = new MemoryGitHub().handlers;
    // @ts-expect-error -- no ai handler (tsc checks these lines; vitest runs the rest)
    const lacking: EffectHandlers = { ...memory, ai: undefined };
    const wrong: EffectHandlers = {
      ...memory,
      // @ts-expect-error -- a branch's outputs without its url
      branch: async () => ({ ok: true, outputs: { name: "b", sha: "s", created: true } }),
    };
    expect(lacking.ai).toBeUndefined();
    expect(Object.keys(wrong).sort()).toEqual([...EFFECT_KINDS].sort());
  });

  it("promise only outputs the vocabulary names for the step kind of the same name", () => {
    for (const kind of EFFECT_KINDS) {
      const plugin = stepKind(kind);
      if (!plugin) continue; // start_playbook: a handoff, no step's outputs
      const named = plugin.outputs ?? [];
      for (const output of EFFECT_OUTPUTS[kind])
        expect(named, `${kind}.${output}`).toContain(output);
    }
  });

  it("name a registered step kind, except the handoff and the investigate step's tool calls", () => {
    const registry = defaultRegistry();
    const withoutStep = EFFECT_KINDS.filter((kind) => registry.get(kind) === undefined);
    expect(withoutStep).toEqual(["start_playbook", "tool_call"]);
  });
});
