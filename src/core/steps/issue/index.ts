import type { IssueStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";

export const issueKind: StepKindPlugin<IssueStep> = {
  kind: "issue",
  outputs: ["number", "url"],
  sideEffect: true,
  tool: () => "issue",
};
