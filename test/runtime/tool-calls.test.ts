import { describe, expect, it, vi } from "vitest";
import { NO_TOOLS, performToolCalls, type ToolRunner } from "../../src/runtime/tool-calls.js";
import { createToolsPort, toolRunnerOf, type ToolProvider } from "../../src/runtime/tools.js";

const call = (number: number, tool: string, required = false) => ({
  number,
  tool,
  args: { id: number },
  required,
});

describe("performToolCalls", () => {
  it("makes the calls in order and turns their results into findings and lines", async () => {
    const seen: string[] = [];
    const runner: ToolRunner = {
      call: async (tool, args) => {
        seen.push(`${tool} ${JSON.stringify(args)}`);
        return {
          ok: true,
          result: [{ finding_type: `${tool.split("/")[0]}_seen`, summary: "yes" }],
        };
      },
    };
    const out = await performToolCalls(runner, { calls: [call(1, "db/q"), call(2, "redis/get")] });
    expect(seen).toEqual(['db/q {"id":1}', 'redis/get {"id":2}']);
    expect(out).toEqual({
      called: 2,
      failed: [],
      results:
        '1. db/q: [{"finding_type":"db_seen","summary":"yes"}]\n2. redis/get: [{"finding_type":"redis_seen","summary":"yes"}]',
      "finding.db_seen": "yes",
      "finding.redis_seen": "yes",
    });
  });

  it("never fails the step: an unknown tool, a hang and a throw are each reported; a required one as step_error", async () => {
    const runner: ToolRunner = {
      call: async (tool, _args, signal) => {
        if (tool === "slow/hang") return new Promise(() => void signal);
        if (tool === "bad/throw") throw new Error("socket closed\nwith detail");
        return NO_TOOLS.call(tool, {}, signal);
      },
    };
    const out = await performToolCalls(
      runner,
      { calls: [call(1, "none/here"), call(2, "slow/hang", true), call(3, "bad/throw")] },
      50,
    );
    expect(out.failed).toEqual([
      "none/here (TOOL-UNKNOWN)",
      "slow/hang (TOOL-TIMEOUT)",
      "bad/throw (TOOL-FAILED)",
    ]);
    expect(out["finding.step_error"]).toBe("slow/hang: TOOL-TIMEOUT");
    expect(out.results).toContain("3. bad/throw failed: TOOL-FAILED socket closed with detail");
  });
});

describe("one deadline", () => {
  it("the port's own deadline is kept: its answer arrives, and its timeout message is the one recorded", async () => {
    const slow = (ms: number): ToolProvider => ({
      server: "slow",
      describe: async (tool) => ({
        name: `slow/${tool}`,
        server: "slow",
        tool,
        readOnly: true,
        allowWrites: false,
        description: "answers late",
      }),
      call: (_tool, _args, signal) =>
        new Promise((resolve) => {
          const t = setTimeout(() => resolve({ done: true }), ms);
          signal.addEventListener("abort", () => clearTimeout(t));
        }),
    });
    // The deployment allows 60 s: an answer after 45 s arrives, past the 30 s kept without one.
    vi.useFakeTimers();
    try {
      const patient = toolRunnerOf(createToolsPort([slow(45_000)], { defaultDeadlineMs: 60_000 }));
      expect(patient.deadlineMs).toBe(60_000);
      const pending = performToolCalls(patient, { calls: [call(1, "slow/x")] });
      await vi.advanceTimersByTimeAsync(46_000);
      const ok = await pending;
      expect(ok.failed).toEqual([]);
      expect(ok.results).toContain('1. slow/x: {"done":true}');
    } finally {
      vi.useRealTimers();
    }
    const hasty = toolRunnerOf(createToolsPort([slow(5_000)], { defaultDeadlineMs: 60 }));
    const late = await performToolCalls(hasty, { calls: [call(1, "slow/x")] });
    expect(late.failed).toEqual(["slow/x (TOOL-TIMEOUT)"]);
    expect(late.results).toContain("slow/x gave no answer in 60 ms");
  });
});

describe("a call's outputs", () => {
  it("take values from the result by dotted path: scalars, lists of scalars, or bounded JSON", async () => {
    const runner: ToolRunner = {
      call: async () => ({
        ok: true,
        result: { extracted: { topics: ["cats", "dogs"], count: 2, meta: { a: 1 } } },
      }),
    };
    const out = await performToolCalls(runner, {
      calls: [
        {
          number: 1,
          tool: "core_llm/structured_extract",
          args: {},
          required: false,
          outputs: {
            topics: "extracted.topics",
            first: "extracted.topics.0",
            count: "extracted.count",
            meta: "extracted.meta",
            gone: "extracted.nowhere",
          },
        },
      ],
    });
    expect(out).toMatchObject({
      "output.topics": ["cats", "dogs"],
      "output.first": "cats",
      "output.count": 2,
      "output.meta": '{"a":1}',
    });
    expect(out).not.toHaveProperty("output.gone");
  });
});
