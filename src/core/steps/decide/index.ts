import type { DecideStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { decideStep } from "./executor.js";

export const decideKind: StepKindPlugin<DecideStep> = {
  executor: decideStep,
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
  diagramNode: { open: '{"', close: '"}', caption: () => null },
};
