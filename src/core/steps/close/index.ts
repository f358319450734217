import type { CloseStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";

export const closeKind: StepKindPlugin<CloseStep> = {
  kind: "close",
  outputs: ["state"],
  sideEffect: true,
  tool: () => "close",
};
