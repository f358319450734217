import { playbookError } from "../../engine/errors.js";
import type { Value } from "../../engine/state.js";
import type { PullRequestStep } from "../../format/types.js";
import { issueRef, paragraph, renderMarkdown } from "../../markdown/comment.js";
import { effectOrFail, type Outcome, type StepContext, type StepExecutor } from "../types.js";

/**
 * The body with `Closes #<n>` for the run's issue as its last line, when the step asks and the run
 * has an issue (the number is the run's own, never text from people).
 */
function withClosingLine(
  body: string | undefined,
  ctx: StepContext<PullRequestStep>,
): string | undefined {
  const issue = ctx.run.context.issue?.number;
  if (!ctx.step.closes_issue || typeof issue !== "number") return body;
  const line = `Closes #${issue}`;
  return body ? `${body}\n\n${line}` : line;
}

/** Opens a pull request (or reuses the open one for the head) and optionally waits for its merge. */
export const pullRequestStep: StepExecutor<PullRequestStep> = {
  kind: "pull_request",
  retryable: true,
  enter: (ctx) =>
    effectOrFail(ctx, "pull_request", (render) => {
      // Lists first: when several fields fail, theirs is the failure reported.
      const labels = render.list(ctx.step.labels, "label");
      const reviewers = render.list(ctx.step.reviewers);
      const teams = render.list(ctx.step.team_reviewers);
      return {
        head: render(ctx.step.head, "branch"),
        base: render.optional(ctx.step.base, "branch"),
        title: render(ctx.step.title),
        body: withClosingLine(render.optional(ctx.step.body), ctx),
        draft: ctx.step.draft ?? false,
        labels,
        reviewers,
        team_reviewers: teams,
      };
    }),
  onEffect(ctx, outputs): Outcome {
    if (ctx.step.wait !== "merged") return { type: "done", outputs };
    const number = Number(outputs.number);
    return {
      type: "wait",
      awaiting: { pullRequest: number },
      messages: [
        {
          kind: "waiting",
          text: renderMarkdown(
            paragraph("Waiting for pull request ", issueRef(number), " to be merged."),
          ),
        },
      ],
    };
  },
  onEvent(ctx, event): Outcome {
    if (event.type !== "pull_request" || event.number !== ctx.frame.awaiting?.pullRequest)
      return { type: "ignored" };
    const previous = ctx.frame.results[ctx.step.id]?.outputs ?? {};
    const outputs: Record<string, Value> = {
      ...previous,
      number: event.number,
      merged: event.merged,
    };
    if (event.url) outputs.url = event.url;
    if (event.mergeSha) outputs.merge_sha = event.mergeSha;
    if (!event.merged) {
      return {
        type: "fail",
        error: playbookError(
          "PB-PR-CLOSED",
          `pull request #${event.number} was closed without being merged`,
        ),
      };
    }
    return { type: "done", outputs };
  },
};
