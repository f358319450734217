// The `pull_request` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";

export interface PullRequestStep extends StepBase {
  type: "pull_request";
  head: string;
  base?: string;
  title: string;
  body?: string;
  draft?: boolean;
  labels?: string[];
  reviewers?: string[];
  team_reviewers?: string[];
  wait?: "merged";
  /** End the body with `Closes #<n>` when the run has an issue (a local run may have none). */
  closes_issue?: boolean;
}
