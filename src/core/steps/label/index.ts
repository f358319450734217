import type { LabelStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";

export const labelKind: StepKindPlugin<LabelStep> = {
  kind: "label",
  outputs: ["labels"],
  sideEffect: true,
  tool: () => "label",
  shapeProblems: (step) =>
    !step.add?.length && !step.remove?.length
      ? [{ at: [], message: "a label step needs add: or remove:", hint: "add add: [label]" }]
      : [],
};
