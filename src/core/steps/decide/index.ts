import type { DecideStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";

export const decideKind: StepKindPlugin<DecideStep> = {
  kind: "decide",
  outputs: [
    "conclusion",
    "confidence",
    "root_cause",
    "rule",
    "alternatives",
    "next_actions",
    "facts",
    "evidence",
  ],
  // A derived finding is the step's own: rules and templates may use it.
  expectedFindings: (step) => (step.derive ?? []).map((d) => d.finding),
  expressions: (step) =>
    (step.derive ?? []).map((d, i) => ({ text: d.when, at: ["derive", i, "when"] })),
  diagramNode: { open: '{"', close: '"}', caption: () => null },
};
