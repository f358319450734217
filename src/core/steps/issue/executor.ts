import type { IssueStep } from "../../format/types.js";
import { effectOrFail, renderAll, renderList, type Outcome, type StepExecutor } from "../types.js";

/** Opens an issue; a hidden marker with the effect key lets a retry find it. */
export const issueStep: StepExecutor<IssueStep> = {
  kind: "issue",
  retryable: true,
  enter(ctx): Outcome {
    const labels = renderList(ctx, ctx.step.labels, "label");
    if (!labels.ok) return { type: "fail", error: labels.error };
    const assignees = renderList(ctx, ctx.step.assignees);
    if (!assignees.ok) return { type: "fail", error: assignees.error };
    return effectOrFail(
      renderAll(ctx, { title: { src: ctx.step.title }, body: { src: ctx.step.body } }),
      "issue",
      {
        labels: labels.values,
        assignees: assignees.values,
      },
    );
  },
};
