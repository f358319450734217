import type { BranchStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { branchStep } from "./executor.js";

export const branchKind: StepKindPlugin<BranchStep> = {
  executor: branchStep,
  outputs: ["name", "sha", "url", "created"],
  sideEffect: true,
  tool: () => "git",
};
