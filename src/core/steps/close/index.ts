import type { CloseStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { closeStep } from "./executor.js";

export const closeKind: StepKindPlugin<CloseStep> = {
  executor: closeStep,
  outputs: ["state"],
  sideEffect: true,
  tool: () => "close",
};
