import { describe, expect, it } from "vitest";
import { findingsOfResult } from "../../../src/core/steps/investigate/findings.js";
import { Driver, MAINTAINER, READER, bundle, yaml } from "./helpers.js";

const LOOK = yaml`
  apiVersion: playbook-bot/v1
  id: look
  inputs:
    order: { type: string, default: o-1 }
  limits: { max_tool_calls: 3 }
  steps:
    - id: query
      type: investigate
      suggested_calls:
        - { tool: db/readonly_query, args: { table: orders, id: "{{ inputs.order }}" }, run: auto, required: true }
        - { tool: redis/get, args: { key: "order:{{ inputs.order }}" }, purpose: see the cache }
      expected_findings: [db_row_missing, cache_key_exists]
    - id: d
      type: decide
      rules:
        - { id: stale, all: [db_row_missing, cache_key_exists], conclusion: cache_short_circuit }
      fallback: { conclusion: inconclusive }
    - { id: done, type: end }
`;

describe("tool calls of investigate steps", () => {
  it("makes the auto calls when the step starts, with rendered arguments, and waits for what is missing", () => {
    const d = new Driver(bundle(LOOK));
    d.start();
    d.drive();
    expect(d.effect()).toMatchObject({
      kind: "tool_call",
      params: {
        calls: [
          {
            number: 1,
            tool: "db/readonly_query",
            args: { table: "orders", id: "o-1" },
            required: true,
          },
        ],
      },
    });
    d.answer({
      called: 1,
      failed: [],
      results: "1. db/readonly_query: []",
      "finding.db_row_missing": true,
    });
    d.drive();
    expect(d.run.status).toBe("waiting");
    expect(d.frame.findings.db_row_missing).toBe(true);
    const waiting = d.last.messages.find((m) => m.kind === "waiting")?.text ?? "";
    expect(waiting).toContain("/call <n>");
    expect(waiting).toContain("see the cache");
  });

  it("/call <n> makes a suggested call; its findings finish the step", () => {
    const d = new Driver(bundle(LOOK));
    d.start();
    d.drive();
    d.answer({ called: 1, failed: [], results: "", "finding.db_row_missing": true });
    d.drive();
    d.command("call", MAINTAINER, "2");
    expect(d.effect()).toMatchObject({
      params: { calls: [{ number: 2, tool: "redis/get", args: { key: "order:o-1" } }] },
    });
    d.answer({ called: 1, failed: [], results: "", "finding.cache_key_exists": "ttl 300" });
    d.drive();
    expect(d.run.status).toBe("completed");
    expect(d.frame.results.d?.outputs?.conclusion).toBe("cache_short_circuit");
  });

  it("refuses /call from a reader, and a number that names no call", () => {
    const d = new Driver(bundle(LOOK));
    d.start();
    d.drive();
    d.answer({ called: 1, failed: [], results: "" });
    d.drive();
    expect(d.command("call", READER, "2").reply).toMatchObject({ outcome: "refused" });
    expect(d.command("call", MAINTAINER, "7").reply).toEqual({
      outcome: "refused",
      reason: "name a suggested call by its number, 1 to 2: /call 1",
    });
  });

  it("holds limits.max_tool_calls across the run", () => {
    const d = new Driver(bundle(LOOK));
    d.start();
    d.drive();
    d.answer({ called: 1, failed: [], results: "" });
    d.drive();
    for (let i = 0; i < 2; i++) {
      d.command("call", MAINTAINER, "2");
      d.answer({ called: 1, failed: [], results: "" });
      d.drive();
    }
    expect(d.run.toolCalls).toBe(3);
    d.command("call", MAINTAINER, "1");
    expect(d.run.status).toBe("failed");
    expect(d.run.error).toMatchObject({
      code: "PB-TOOL-BUDGET",
      message: "step query would make tool call 4 of a run allowed 3 (limits.max_tool_calls)",
    });
  });
});

const ASK = yaml`
  apiVersion: playbook-bot/v1
  id: ask
  limits: { max_tool_calls: 5 }
  steps:
    - id: first
      type: ai
      prompt: Look around.
      tools: [metrics/query]
    - id: second
      type: ai
      prompt: Look again.
      tools: [metrics/query]
    - id: plain
      type: ai
      prompt: Say something.
    - id: query
      type: investigate
      suggested_calls:
        - { tool: db/readonly_query, args: { table: orders }, run: auto }
    - { id: done, type: end }
`;

describe("the model's tool calls in ai steps", () => {
  it("may spend what is left of the run's budget, and what it spent counts", () => {
    const d = new Driver(bundle(ASK));
    d.start();
    d.drive();
    expect(d.effect()).toMatchObject({ kind: "ai", params: { max_tool_calls: 5 } });
    d.answer({ text: "a", tool_calls: 3 });
    d.drive();
    expect(d.run.toolCalls).toBe(3);
    expect(d.effect()).toMatchObject({ kind: "ai", params: { max_tool_calls: 2 } });
    d.answer({ text: "b", tool_calls: 2 });
    d.drive();
    expect(d.run.toolCalls).toBe(5);
    // A step that offers no tools is given no allowance.
    expect(d.effect()).toMatchObject({ kind: "ai" });
    expect((d.effect()?.params as { max_tool_calls?: number }).max_tool_calls).toBeUndefined();
    d.answer({ text: "c" });
    d.drive();
    expect(d.run.status).toBe("failed");
    expect(d.run.error).toMatchObject({
      code: "PB-TOOL-BUDGET",
      message: "step query would make tool call 6 of a run allowed 5 (limits.max_tool_calls)",
    });
  });

  it("bounds what one answer may claim, and ignores a count that is no number", () => {
    const d = new Driver(bundle(ASK.replace("max_tool_calls: 5", "max_tool_calls: 500")));
    d.start();
    d.drive();
    expect(d.effect()).toMatchObject({ params: { max_tool_calls: 20 } });
    d.answer({ text: "a", tool_calls: 1e9 });
    d.drive();
    expect(d.run.toolCalls).toBe(20);
    d.answer({ text: "b", tool_calls: "many" });
    d.drive();
    expect(d.run.toolCalls).toBe(20);
  });
});

describe("findings of a tool's result", () => {
  it("reads evidence items as the runbook spec's tools return them", () => {
    expect(
      findingsOfResult("db/readonly_query", {
        evidence: [
          { finding_type: "db_row_missing", summary: "no row for o-1", confidence: 0.9 },
          { finding_type: "cache_key_exists", summary: "key present", confidence: "high" },
          { finding_type: "db_row_missing", summary: "a second item of the type" },
        ],
      }),
    ).toEqual({
      db_row_missing: "no row for o-1",
      db_row_missing_confidence: 0.9,
      cache_key_exists: "key present",
      cache_key_exists_confidence: 0.85,
    });
  });

  it("reads a findings map, and otherwise names one finding after the tool", () => {
    expect(
      findingsOfResult("x/y", { findings: { pods: 3, "bad key!": "v", deep: { a: 1 } } }),
    ).toEqual({
      pods: 3,
      bad_key_: "v",
    });
    expect(
      findingsOfResult("github/issue_get", { title: "Broken", body: "x".repeat(2000) }),
    ).toEqual({
      github_issue_get: expect.stringMatching(/^\{"title":"Broken","body":"x+…$/),
    });
  });
});
