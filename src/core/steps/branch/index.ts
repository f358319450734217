import type { BranchStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";

export const branchKind: StepKindPlugin<BranchStep> = {
  kind: "branch",
  outputs: ["name", "sha", "url", "created"],
  sideEffect: true,
  tool: () => "git",
};
