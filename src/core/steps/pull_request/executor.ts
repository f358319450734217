import { playbookError } from "../../engine/errors.js";
import type { Value } from "../../engine/state.js";
import type { PullRequestStep } from "../../format/types.js";
import { issueRef, paragraph, renderMarkdown } from "../../markdown/comment.js";
import { effectOrFail, renderAll, renderList, type Outcome, type StepExecutor } from "../types.js";

/** Opens a pull request (or reuses the open one for the head) and optionally waits for its merge. */
export const pullRequestStep: StepExecutor<PullRequestStep> = {
  kind: "pull_request",
  retryable: true,
  enter(ctx): Outcome {
    const labels = renderList(ctx, ctx.step.labels, "label");
    if (!labels.ok) return { type: "fail", error: labels.error };
    const reviewers = renderList(ctx, ctx.step.reviewers);
    if (!reviewers.ok) return { type: "fail", error: reviewers.error };
    const teams = renderList(ctx, ctx.step.team_reviewers);
    if (!teams.ok) return { type: "fail", error: teams.error };
    const fields = renderAll(ctx, {
      head: { src: ctx.step.head, use: "branch" },
      base: { src: ctx.step.base, use: "branch" },
      title: { src: ctx.step.title },
      body: { src: ctx.step.body },
    });
    return effectOrFail(fields, "pull_request", {
      draft: ctx.step.draft ?? false,
      labels: labels.values,
      reviewers: reviewers.values,
      team_reviewers: teams.values,
    });
  },
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
