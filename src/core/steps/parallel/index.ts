import type { ParallelStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";

export const parallelKind: StepKindPlugin<ParallelStep> = {
  kind: "parallel",
  outputs: ["completed", "failed", "cancelled", "first"],
  canWait: () => true,
  diagramNode: { open: '[/"', close: '"\\]' },
};
