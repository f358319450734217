import type { LabelStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { labelStep } from "./executor.js";

export const labelKind: StepKindPlugin<LabelStep> = {
  executor: labelStep,
  outputs: ["labels"],
  sideEffect: true,
  tool: () => "label",
};
