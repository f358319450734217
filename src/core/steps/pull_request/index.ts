import type { PullRequestStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { pullRequestStep } from "./executor.js";

export const pullRequestKind: StepKindPlugin<PullRequestStep> = {
  executor: pullRequestStep,
  outputs: ["number", "url", "head", "merged", "merge_sha"],
  sideEffect: true,
  tool: () => "pull_request",
  canWait: (step) => step.wait === "merged",
};
