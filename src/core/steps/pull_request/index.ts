import type { PullRequestStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";

export const pullRequestKind: StepKindPlugin<PullRequestStep> = {
  kind: "pull_request",
  outputs: ["number", "url", "head", "merged", "merge_sha"],
  sideEffect: true,
  tool: () => "pull_request",
  canWait: (step) => step.wait === "merged",
};
