import type { IssueStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { issueStep } from "./executor.js";

export const issueKind: StepKindPlugin<IssueStep> = {
  executor: issueStep,
  outputs: ["number", "url"],
  sideEffect: true,
  tool: () => "issue",
};
