import type { CommentStep } from "../../format/types.js";
import { effectOrFail, type StepExecutor } from "../types.js";

/** Posts a comment on the run's issue. */
export const commentStep: StepExecutor<CommentStep> = {
  kind: "comment",
  retryable: true,
  enter: (ctx) => effectOrFail(ctx, "comment", (render) => ({ body: render(ctx.step.body) })),
};
