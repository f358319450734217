import { playbookError } from "../errors.js";
import type { Value } from "../state.js";
import type { DispatchStep } from "../../playbook/types.js";
import { effectOrFail, renderAll, renderValues, type Outcome, type StepExecutor } from "./types.js";

/** Starts a workflow with workflow_dispatch and, by default, waits for its run's conclusion. */
export const dispatchStep: StepExecutor<DispatchStep> = {
  kind: "dispatch",
  retryable: true,
  enter(ctx): Outcome {
    const inputs = renderValues(ctx, ctx.step.inputs);
    if (!inputs.ok) return { type: "fail", error: inputs.error };
    return effectOrFail(
      renderAll(ctx, {
        workflow: { src: ctx.step.workflow },
        ref: { src: ctx.step.ref, use: "branch" },
      }),
      "dispatch",
      { inputs: inputs.values },
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
