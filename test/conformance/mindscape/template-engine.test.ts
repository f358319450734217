/**
 * Mindscape's template engine (backend/app/services/workflow_template_engine.py) and its test
 * (backend/tests/services/workflow_gate_decision_spec.py): what a step's tool is given.
 */
import { describe, expect, it } from "vitest";
import { loadSpec, runWith } from "./harness.js";

const step = (inputs: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: "use",
  tool: "demo.take",
  inputs,
  outputs: { taken: "taken" },
  ...extra,
});

const spec = (inputs: Record<string, unknown>, steps: unknown[]) => ({
  version: "1.0",
  playbook_code: "case",
  kind: "user_workflow",
  description: "A case of Mindscape's own tests.",
  inputs,
  steps,
  outputs: {},
});

describe("a template that is exactly one variable passes the value itself", () => {
  it("a gate decision's payload reaches the tool as the object, its digest as text (gate decision spec)", async () => {
    const decision = {
      payload: { approval: { approval_id: "approval-001" } },
      payload_sha256: "9f2c",
    };
    const bundle = loadSpec(
      spec({ gate_decisions: { type: "object", required: true } }, [
        step({
          approval: "{{input.gate_decisions.validate_acceptance.payload.approval}}",
          decision_payload_sha256: "{{input.gate_decisions.validate_acceptance.payload_sha256}}",
        }),
      ]),
    );
    const { calls, driver } = await runWith(
      bundle,
      { gate_decisions: JSON.stringify({ validate_acceptance: decision }) },
      { "demo/take": () => ({ taken: true }) },
    );
    expect(driver.run.status).toBe("completed");
    expect(calls).toEqual([
      {
        tool: "demo/take",
        args: { approval: { approval_id: "approval-001" }, decision_payload_sha256: "9f2c" },
      },
    ]);
  });

  it("a step's list output is passed as the list, an object output as the object", async () => {
    const bundle = loadSpec(
      spec({}, [
        {
          id: "search",
          tool: "demo.search",
          inputs: {},
          outputs: { photos: "results", meta: "meta" },
        },
        step(
          {
            photos: "{{step.search.photos}}",
            meta: "{{ step.search.meta }}",
            n: "{{step.search.count}}",
          },
          { depends_on: ["search"] },
        ),
      ]),
    );
    const photos = [{ id: "p1" }, { id: "p2" }];
    const { calls } = await runWith(
      bundle,
      {},
      {
        "demo/search": () => ({ results: photos, meta: { total: 2 }, count: 2 }),
        "demo/take": () => ({ taken: true }),
      },
    );
    expect(calls[1]?.args).toEqual({ photos, meta: { total: 2 }, n: 2 });
  });

  it("a list input is passed as the list alone, joined with ', ' inside text", async () => {
    const bundle = loadSpec(
      spec({ tags: { type: "list[string]", required: true } }, [
        step({ tags: "{{input.tags}}", text: "Tags: {{input.tags}}" }),
      ]),
    );
    const { calls } = await runWith(
      bundle,
      { tags: "yoga, travel" },
      {
        "demo/take": () => ({ taken: true }),
      },
    );
    expect(calls[0]?.args).toEqual({ tags: ["yoga", "travel"], text: "Tags: yoga, travel" });
  });

  it("an optional input not given, or one the spec does not declare, reads as empty text", async () => {
    const bundle = loadSpec(
      spec({ note: { type: "string", required: false } }, [
        step({ note: "{{input.note}}", text: "by {{input.workspace_id}}." }),
      ]),
    );
    const { driver, calls } = await runWith(bundle, {}, { "demo/take": () => ({ taken: true }) });
    expect(driver.run.status).toBe("completed");
    expect(calls[0]?.args).toEqual({ note: "", text: "by ." });
  });
});
