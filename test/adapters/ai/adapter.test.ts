import { describe, expect, it } from "vitest";
import {
  collectAiOutputs,
  MockAiAdapter,
  runAiEffect,
  type AiAdapter,
  type AiMessage,
} from "../../../src/runtime/ai.js";
import type { ToolRunner } from "../../../src/runtime/tool-calls.js";

describe("MockAiAdapter", () => {
  it("echoes the prompt's first line when no scripted reply matches, and records the call", async () => {
    const ai = new MockAiAdapter();
    const out = await collectAiOutputs(ai, "Summarise this\nmore text", ["metrics/query"], {
      scope: "read-only",
    });
    expect(out).toEqual({ text: "mock response to: Summarise this" });
    expect(ai.name).toBe("mock");
    expect(ai.calls).toEqual([
      {
        prompt: "Summarise this\nmore text",
        tools: ["metrics/query"],
        options: { scope: "read-only" },
      },
    ]);
  });

  it("answers with the first matching reply and only the expected findings", async () => {
    const ai = new MockAiAdapter({
      replies: [
        { when: "disk", text: "disk full", findings: { full: true, pct: 99, extra: "x" } },
        { when: "disk", text: "never" },
      ],
    });
    const out = await collectAiOutputs(ai, "check disk", [], {
      scope: "write",
      expectedFindings: ["full", "pct"],
    });
    expect(out).toEqual({ text: "disk full", "finding.full": true, "finding.pct": 99 });
    const all = await collectAiOutputs(ai, "disk?", [], { scope: "read-only" });
    expect(all["finding.extra"]).toBe("x");
  });

  it("streams text, then findings, then done", async () => {
    const ai = new MockAiAdapter({ replies: [{ when: "a", text: "t", findings: { k: "v" } }] });
    const seen: AiMessage["type"][] = [];
    for await (const m of ai.invoke("a", [], { scope: "read-only" })) seen.push(m.type);
    expect(seen).toEqual(["text", "finding", "done"]);
  });
});

describe("collectAiOutputs", () => {
  it("joins text messages and ignores tool calls and empty messages", async () => {
    const adapter: AiAdapter = {
      name: "fake",
      async *invoke() {
        yield { type: "text", text: "a" };
        yield { type: "tool_call", tool: "x/y", args: {} };
        yield { type: "text" };
        yield { type: "finding" };
        yield { type: "text", text: "b" };
        yield { type: "done" };
      },
    };
    expect(await collectAiOutputs(adapter, "p", [], { scope: "read-only" })).toEqual({
      text: "ab",
    });
  });
});

describe("cache: true on an ai step", () => {
  const params = {
    prompt: "Summarise the incident.",
    tools: [],
    scope: "read-only" as const,
    expected_findings: [],
  };

  it("answers the same ask from the cache, and only when the step opted in", async () => {
    const adapter = new MockAiAdapter();
    const first = await runAiEffect(adapter, { ...params, cache: true });
    const again = await runAiEffect(adapter, { ...params, cache: true });
    expect(again).toEqual(first);
    expect(adapter.calls).toHaveLength(1);
    await runAiEffect(adapter, { ...params, cache: true, prompt: "Something else." });
    expect(adapter.calls).toHaveLength(2);
    await runAiEffect(adapter, params);
    await runAiEffect(adapter, params);
    expect(adapter.calls).toHaveLength(4);
  });

  it("keeps each adapter's answers apart", async () => {
    const a = new MockAiAdapter({ replies: [{ when: "Summarise", text: "from a" }] });
    const b = new MockAiAdapter({ replies: [{ when: "Summarise", text: "from b" }] });
    expect((await runAiEffect(a, { ...params, cache: true })).text).toBe("from a");
    expect((await runAiEffect(b, { ...params, cache: true })).text).toBe("from b");
  });
});

describe("runAiEffect with the host's tools", () => {
  /** A runner recording each call with the authority it carried; writes need just-do-it. */
  function runner(): ToolRunner & {
    seen: { tool: string; authority: string | undefined }[];
  } {
    const seen: { tool: string; authority: string | undefined }[] = [];
    return {
      seen,
      call: async (tool, _args, _signal, authority) => {
        seen.push({ tool, authority });
        if (tool === "ops/restart" && authority !== "just-do-it")
          return { ok: false, code: "TOOL-DENIED", message: "ops/restart may change things" };
        return { ok: true, result: { tool } };
      },
      describe: async (tool) => ({ readOnly: tool !== "ops/restart" }),
    };
  }
  const script = (calls: string[]) =>
    new MockAiAdapter({
      replies: [{ when: "look", text: "looked", calls: calls.map((tool) => ({ tool })) }],
    });

  it("makes the model's calls to the step's tools, counts them, and shows each result", async () => {
    const tools = runner();
    const seen: AiMessage[] = [];
    const out = await runAiEffect(
      script(["ops/pods", "ops/logs", "ops/other"]),
      { prompt: "look", tools: ["ops/pods", "ops/logs"] },
      undefined,
      { tools, onMessage: (m) => seen.push(m) },
    );
    // A read-only step's calls carry no authority; a tool the step does not list is not offered.
    expect(tools.seen).toEqual([
      { tool: "ops/pods", authority: undefined },
      { tool: "ops/logs", authority: undefined },
    ]);
    expect(out).toEqual({ text: "looked", tool_calls: 2 });
    expect(seen.filter((m) => m.type === "tool_result")).toEqual([
      { type: "tool_result", tool: "ops/pods", ok: true, text: '{"tool":"ops/pods"}' },
      { type: "tool_result", tool: "ops/logs", ok: true, text: '{"tool":"ops/logs"}' },
    ]);
  });

  it("gives a write step's calls the playbook's consent, and refuses calls past the allowance", async () => {
    const tools = runner();
    const seen: AiMessage[] = [];
    const out = await runAiEffect(
      script(["ops/restart", "ops/restart", "ops/restart"]),
      { prompt: "look", tools: ["ops/restart"], scope: "write", max_tool_calls: 2 },
      undefined,
      { tools, onMessage: (m) => seen.push(m) },
    );
    expect(tools.seen).toEqual([
      { tool: "ops/restart", authority: "just-do-it" },
      { tool: "ops/restart", authority: "just-do-it" },
    ]);
    expect(out.tool_calls).toBe(2);
    expect(seen.filter((m) => m.type === "tool_result").at(-1)).toMatchObject({
      ok: false,
      text: expect.stringContaining("TOOL-DENIED: this step may make no more tool calls"),
    });
  });

  it("only reports the calls when the run's budget is spent or the host has no tools", async () => {
    const tools = runner();
    const spent = await runAiEffect(
      script(["ops/pods"]),
      { prompt: "look", tools: ["ops/pods"], max_tool_calls: 0 },
      undefined,
      { tools },
    );
    const noHost = await runAiEffect(script(["ops/pods"]), { prompt: "look", tools: ["ops/pods"] });
    expect(tools.seen).toEqual([]);
    expect(spent).toEqual({ text: "looked" });
    expect(noHost).toEqual({ text: "looked" });
  });

  it("gives up on a call that outlives the runner's deadline, and goes on", async () => {
    const slow: ToolRunner = {
      deadlineMs: 20,
      call: () => new Promise(() => undefined),
      describe: async () => ({ readOnly: true }),
    };
    const seen: AiMessage[] = [];
    const out = await runAiEffect(
      script(["ops/pods"]),
      { prompt: "look", tools: ["ops/pods"] },
      undefined,
      { tools: slow, onMessage: (m) => seen.push(m) },
    );
    expect(out).toEqual({ text: "looked", tool_calls: 1 });
    expect(seen.find((m) => m.type === "tool_result")).toMatchObject({
      ok: false,
      text: expect.stringMatching(/^TOOL-TIMEOUT: no answer in \d+ ms$/),
    });
  });
});
