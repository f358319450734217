import type { CommentStep } from "../../format/types.js";
import { effectOrFail, type StepExecutor } from "../types.js";

/** Posts a comment on the run's issue, another issue or pull request, or in a review thread. */
export const commentStep: StepExecutor<CommentStep> = {
  kind: "comment",
  retryable: true,
  enter: (ctx) =>
    effectOrFail(ctx, "comment", (render) => ({
      body: render(ctx.step.body),
      issue: render.optional(ctx.step.issue, "number"),
      reply_to: render.optional(ctx.step.reply_to, "number"),
    })),
};
