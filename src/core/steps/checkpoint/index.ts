import type { CheckpointStep } from "../../format/types.js";
import { CHECKPOINT_OUTPUTS } from "../../format/vocabulary.js";
import type { StepKindPlugin } from "../kind.js";
import { checkpointStep } from "./executor.js";

export const checkpointKind: StepKindPlugin<CheckpointStep> = {
  executor: checkpointStep,
  outputs: null,
  // Who approved and their note, and the fields of the response schema the step asks for.
  outputsOf(step) {
    const props = step.response_schema?.properties;
    return [...CHECKPOINT_OUTPUTS, ...Object.keys(props && typeof props === "object" ? props : {})];
  },
};
