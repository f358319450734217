import { playbookError } from "../errors.js";
import type { Value } from "../state.js";
import type { DispatchStep } from "../../playbook/types.js";
import { effectOrFail, renderAll, type Outcome, type StepExecutor } from "./types.js";

/** Starts a workflow with workflow_dispatch and, by default, waits for its run's conclusion. */
export const dispatchStep: StepExecutor<DispatchStep> = {
  kind: "dispatch",
  retryable: true,
  enter(ctx): Outcome {
    const inputs: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(ctx.step.inputs ?? {})) {
      if (typeof v !== "string") {
        inputs[k] = v;
        continue;
      }
      const r = ctx.render(v, "value");
      if (!r.ok) return { type: "fail", error: r.error };
      inputs[k] = r.value;
    }
    return effectOrFail(
      renderAll(ctx, {
        workflow: { src: ctx.step.workflow },
        ref: { src: ctx.step.ref, use: "branch" },
      }),
      "dispatch",
      { inputs },
    );
  },
  onEffect(ctx, outputs): Outcome {
    if (ctx.step.wait === false) return { type: "done", outputs };
    const awaiting: { workflow: string; workflowRun?: number } = { workflow: ctx.step.workflow };
    if (typeof outputs.run_id === "number") awaiting.workflowRun = outputs.run_id;
    return {
      type: "wait",
      awaiting,
      messages: [{ kind: "waiting", text: `Waiting for workflow ${ctx.step.workflow} to finish.` }],
    };
  },
  onEvent(ctx, event): Outcome {
    if (event.type !== "workflow_run") return { type: "ignored" };
    const want = ctx.frame.awaiting;
    const matches =
      want?.workflowRun !== undefined
        ? event.runId === want.workflowRun
        : event.workflow === want?.workflow;
    if (!matches) return { type: "ignored" };
    const outputs: Record<string, Value> = { conclusion: event.conclusion };
    if (event.runId !== undefined) outputs.run_id = event.runId;
    if (event.url) outputs.url = event.url;
    if (event.conclusion !== "success") {
      return {
        type: "fail",
        error: playbookError(
          "PB-WORKFLOW-FAILED",
          `workflow ${ctx.step.workflow} ended with '${event.conclusion}'`,
        ),
      };
    }
    return { type: "done", outputs };
  },
};
