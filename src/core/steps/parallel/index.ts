import type { ParallelStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { parallelStep } from "./executor.js";

export const parallelKind: StepKindPlugin<ParallelStep> = {
  executor: parallelStep,
  outputs: ["completed", "failed", "cancelled", "first"],
  canWait: () => true,
  diagramNode: { open: '[/"', close: '"\\]' },
};
