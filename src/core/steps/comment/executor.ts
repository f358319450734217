import type { CommentStep } from "../../format/types.js";
import { effectOrFail, renderAll, type StepExecutor } from "../types.js";

/** Posts a comment on the run's issue. */
export const commentStep: StepExecutor<CommentStep> = {
  kind: "comment",
  retryable: true,
  enter: (ctx) => effectOrFail(renderAll(ctx, { body: { src: ctx.step.body } }), "comment"),
};
