import type { LabelStep } from "../../format/types.js";
import { effectOrFail, type StepExecutor } from "../types.js";

/** Adds and removes labels on the run's issue (or another one). */
export const labelStep: StepExecutor<LabelStep> = {
  kind: "label",
  retryable: true,
  enter: (ctx) =>
    effectOrFail(ctx, "label", (render) => {
      // Lists first: when several fields fail, theirs is the failure reported.
      const add = render.list(ctx.step.add, "label");
      const remove = render.list(ctx.step.remove, "label");
      return { issue: render.optional(ctx.step.issue), add, remove };
    }),
};
