import type { LabelStep } from "../../format/types.js";
import { effectOrFail, renderAll, renderList, type Outcome, type StepExecutor } from "../types.js";

/** Adds and removes labels on the run's issue (or another one). */
export const labelStep: StepExecutor<LabelStep> = {
  kind: "label",
  retryable: true,
  enter(ctx): Outcome {
    const add = renderList(ctx, ctx.step.add, "label");
    if (!add.ok) return { type: "fail", error: add.error };
    const remove = renderList(ctx, ctx.step.remove, "label");
    if (!remove.ok) return { type: "fail", error: remove.error };
    return effectOrFail(renderAll(ctx, { issue: { src: ctx.step.issue } }), "label", {
      add: add.values,
      remove: remove.values,
    });
  },
};
