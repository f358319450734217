/**
 * Mindscape's HandoffPlan scheduling, by its own test (backend/tests/test_workflow_scheduling.py):
 * `$previous` references order the steps, a `$previous` condition reads the earlier outputs.
 */
import { describe, expect, it } from "vitest";
import { loadSpec, runWith, type Tools } from "./harness.js";

/** A child playbook: one tool call, its result's fields as the playbook's outputs. */
const child = (code: string, outputs: string[]) =>
  loadSpec(
    {
      version: "1.0",
      playbook_code: code,
      kind: "system_tool",
      description: `The ${code} playbook.`,
      inputs: {
        summary: { type: "string", required: false },
        other: { type: "string", required: false },
      },
      steps: [
        {
          id: "work",
          tool: `demo.${code}`,
          inputs: { summary: "{{input.summary}}", other: "{{input.other}}" },
          outputs: Object.fromEntries(outputs.map((o) => [o, o])),
        },
      ],
      outputs: Object.fromEntries(
        outputs.map((o) => [o, { type: "string", source: `step.work.${o}` }]),
      ),
    },
    {},
    `backend/playbooks/specs/${code}.json`,
  );

const TOOLS: Tools = {
  "demo/first": () => ({ summary: "ok", extra: "more" }),
  "demo/prepare": () => ({ summary: "ok" }),
  "demo/second": () => ({ done: "yes" }),
  "demo/step-3": () => ({ done: "yes" }),
};

describe("a HandoffPlan's steps (test_workflow_scheduling.py)", () => {
  it("a step reading $previous.<code> in inputs and input_mapping runs after that step, with its outputs", async () => {
    // Written second-first: the $previous references, not the list, give the order.
    const plan = loadSpec(
      {
        steps: [
          {
            playbook_code: "second",
            kind: "system_tool",
            inputs: { summary: "$previous.first.outputs.summary" },
            input_mapping: { other: "$previous.first.outputs.extra" },
          },
          { playbook_code: "first", kind: "system_tool", inputs: {} },
        ],
        context: {},
      },
      {},
      "plans/case.handoff.json",
    );
    const { driver, calls } = await runWith(plan, {}, TOOLS, "done", [
      child("first", ["summary", "extra"]),
      child("second", ["done"]),
    ]);
    expect(driver.run.error?.message ?? driver.run.status).toBe("completed");
    expect(calls).toEqual([
      { tool: "demo/first", args: { summary: "", other: "" } },
      { tool: "demo/second", args: { summary: "ok", other: "more" } },
    ]);
  });

  it("a condition $previous.prepare.outputs.summary holds when that output has a value", async () => {
    const plan = loadSpec(
      {
        steps: [
          { playbook_code: "prepare", kind: "system_tool", inputs: {} },
          {
            playbook_code: "step-3",
            kind: "system_tool",
            inputs: {},
            condition: "$previous.prepare.outputs.summary",
          },
        ],
        context: {},
      },
      {},
      "plans/case.handoff.json",
    );
    const { driver, calls } = await runWith(plan, {}, TOOLS, "done", [
      child("prepare", ["summary"]),
      child("step-3", ["done"]),
    ]);
    expect(driver.run.error?.message ?? driver.run.status).toBe("completed");
    expect(calls.map((c) => c.tool)).toEqual(["demo/prepare", "demo/step-3"]);
  });
});
