/**
 * Mindscape's playbook runner, by its own tests: backend/tests/test_workflow_scheduling.py
 * (conditions, skipped steps), playbook_run_executor_input_contract_spec.py (inputs and their
 * defaults) and test_workflow_step_dispatch.py (a playbook slot's outputs). Each case's inputs
 * and expected outcome are theirs; the spec around it is the smallest that holds it.
 */
import { describe, expect, it } from "vitest";
import { start } from "../../../src/core/engine/engine.js";
import { INITIATOR, T0 } from "../../core/engine/helpers.js";
import { loadSpec, runWith, type Tools } from "./harness.js";

const spec = (inputs: Record<string, unknown>, steps: unknown[], outputs = {}) => ({
  version: "1.0",
  playbook_code: "case",
  kind: "user_workflow",
  description: "A case of Mindscape's own tests.",
  inputs,
  steps,
  outputs,
});

const ECHO: Tools = {
  "demo/prepare": () => ({ summary: "ok" }),
  "demo/report": (args) => ({ echoed: args }),
};

describe("conditions (test_workflow_scheduling.py)", () => {
  const steps = (condition: string) => [
    { id: "prepare", tool: "demo.prepare", inputs: {}, outputs: { summary: "summary" } },
    {
      id: "report",
      tool: "demo.report",
      inputs: { summary: "{{step.prepare.summary}}" },
      outputs: { echoed: "echoed" },
      depends_on: ["prepare"],
      condition,
    },
  ];

  it("a template condition reading an input and a step's output holds: the step runs", async () => {
    const bundle = loadSpec(
      spec(
        { enabled: { type: "boolean", required: true } },
        steps("{{input.enabled and step.prepare.summary}}"),
      ),
    );
    const { driver, calls } = await runWith(bundle, { enabled: true }, ECHO);
    expect(driver.run.status).toBe("completed");
    expect(calls.map((c) => c.tool)).toEqual(["demo/prepare", "demo/report"]);
  });

  it("a condition that does not hold skips its step, marked skipped, and the run goes on", async () => {
    const bundle = loadSpec(
      spec({ enabled: { type: "boolean", required: true } }, steps("{{input.enabled}}")),
    );
    const { driver, calls } = await runWith(bundle, { enabled: false }, ECHO);
    expect(driver.run.status).toBe("completed");
    expect(calls.map((c) => c.tool)).toEqual(["demo/prepare"]);
    expect(driver.frame.results.report?.status).toBe("skipped");
  });
});

describe("the input contract (playbook_run_executor_input_contract_spec.py)", () => {
  const use = (names: string[]) => [
    {
      id: "use",
      tool: "demo.report",
      inputs: Object.fromEntries(names.map((n) => [n, `{{input.${n}}}`])),
      outputs: {},
    },
  ];

  it("a missing optional input takes its default", async () => {
    const bundle = loadSpec(
      spec(
        {
          workspace_id: { type: "string", required: true },
          target_handle: { type: "string", required: true },
          target_count: { type: "integer", required: false, default: 100 },
          source_mode: { type: "string", required: false, default: "browser" },
        },
        use(["workspace_id", "target_handle", "target_count", "source_mode"]),
      ),
    );
    const { calls } = await runWith(
      bundle,
      { workspace_id: "ws-1", target_handle: "target" },
      ECHO,
    );
    expect(calls[0]?.args).toEqual({
      workspace_id: "ws-1",
      target_handle: "target",
      target_count: 100,
      source_mode: "browser",
    });
  });

  it("a required input given empty is refused, the run not started, the input named", () => {
    const bundle = loadSpec(
      spec(
        {
          workspace_id: { type: "string", required: true },
          reference_id: { type: "string", required: true },
          analysis_profile: { type: "string", required: false, default: "visual_anatomy" },
        },
        use(["workspace_id", "reference_id"]),
      ),
    );
    const r = start(
      {
        bundle,
        inputs: { workspace_id: "ws-1", reference_id: "" },
        initiator: INITIATOR,
        eventId: "e1",
      },
      { now: T0, playbooks: () => undefined },
    );
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.error.message).toContain("reference_id");
  });

  it("an object default is the same in every run, whatever an earlier run did", async () => {
    const bundle = loadSpec(
      spec(
        {
          workspace_id: { type: "string", required: true },
          filters: { type: "object", required: false, default: { mode: "all" } },
        },
        use(["filters"]),
      ),
    );
    const first = await runWith(bundle, { workspace_id: "ws-1" }, ECHO);
    const second = await runWith(bundle, { workspace_id: "ws-1" }, ECHO);
    expect(first.calls[0]?.args).toEqual({ filters: { mode: "all" } });
    (first.calls[0]?.args.filters as { mode: string }).mode = "changed";
    expect(second.calls[0]?.args).toEqual({ filters: { mode: "all" } });
  });
});

describe("a playbook slot (test_workflow_step_dispatch.py)", () => {
  it("the step's outputs are the sub-playbook's outputs under the names it maps them to", async () => {
    const sub = loadSpec(
      {
        ...spec({ x: { type: "integer", required: true } }, [
          {
            id: "make",
            tool: "demo.make",
            inputs: { x: "{{input.x}}" },
            outputs: { report: "report", score: "score" },
          },
        ]),
        playbook_code: "sub_playbook",
        outputs: {
          report: { type: "string", source: "step.make.report" },
          score: { type: "integer", source: "step.make.score" },
        },
      },
      {},
      "backend/playbooks/specs/sub_playbook.json",
    );
    const parent = loadSpec(
      spec(
        {},
        [
          {
            id: "dispatch_sub",
            playbook_slot: "sub_playbook",
            inputs: { x: 1 },
            outputs: { summary: "report", grade: "score" },
          },
          {
            id: "use",
            tool: "demo.report",
            inputs: {
              summary: "{{step.dispatch_sub.summary}}",
              grade: "{{step.dispatch_sub.grade}}",
            },
            outputs: {},
            depends_on: ["dispatch_sub"],
          },
        ],
        { summary: { type: "string", source: "step.dispatch_sub.summary" } },
      ),
    );
    const tools: Tools = { ...ECHO, "demo/make": () => ({ report: "ok", score: 42 }) };
    const { driver, calls } = await runWith(parent, {}, tools, "done", [sub]);
    expect(driver.run.status).toBe("completed");
    // Mindscape's case gives grade 42: a playbook's outputs are text here (see the table).
    expect(calls.map((c) => c.args)).toEqual([{ x: 1 }, { summary: "ok", grade: "42" }]);
    expect(driver.run.outputs).toEqual({ summary: "ok" });
  });
});
