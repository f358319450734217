import type { IssueStep } from "../../format/types.js";
import { effectOrFail, type StepExecutor } from "../types.js";

/** Opens an issue; a hidden marker with the effect key lets a retry find it. */
export const issueStep: StepExecutor<IssueStep> = {
  kind: "issue",
  retryable: true,
  enter: (ctx) =>
    effectOrFail(ctx, "issue", (render) => {
      // Lists first: when several fields fail, theirs is the failure reported.
      const labels = render.list(ctx.step.labels, "label");
      const assignees = render.list(ctx.step.assignees);
      return {
        title: render(ctx.step.title),
        body: render.optional(ctx.step.body),
        labels,
        assignees,
      };
    }),
};
