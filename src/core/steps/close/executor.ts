import type { CloseStep } from "../../format/types.js";
import { effectOrFail, type StepExecutor } from "../types.js";

/** Closes the run's issue (or another one), with an optional comment. */
export const closeStep: StepExecutor<CloseStep> = {
  kind: "close",
  retryable: true,
  enter: (ctx) =>
    effectOrFail(ctx, "close", (render) => ({
      comment: render.optional(ctx.step.comment),
      issue: render.optional(ctx.step.issue),
      reason: ctx.step.reason ?? "completed",
    })),
};
