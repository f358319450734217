import { describe, expect, it } from "vitest";
import {
  collectAiOutputs,
  MockAiAdapter,
  runAiEffect,
  type AiAdapter,
  type AiMessage,
} from "../../../src/adapters/ai/adapter.js";

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
