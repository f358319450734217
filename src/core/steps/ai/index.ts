import type { AiStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { aiStep } from "./executor.js";

export const aiKind: StepKindPlugin<AiStep> = {
  executor: aiStep,
  outputs: ["text"],
};
