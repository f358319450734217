import type { CloseStep } from "../../format/types.js";
import { effectOrFail, renderAll, type StepExecutor } from "../types.js";

/** Closes the run's issue (or another one), with an optional comment. */
export const closeStep: StepExecutor<CloseStep> = {
  kind: "close",
  retryable: true,
  enter: (ctx) =>
    effectOrFail(
      renderAll(ctx, { comment: { src: ctx.step.comment }, issue: { src: ctx.step.issue } }),
      "close",
      {
        reason: ctx.step.reason ?? "completed",
      },
    ),
};
