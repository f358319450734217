import type { EndStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { endStep } from "./executor.js";

export const endKind: StepKindPlugin<EndStep> = {
  executor: endStep,
  outputs: [],
  calls: (step) =>
    (step.handoff ?? []).map((target, i) => ({ target, kind: "handoff", at: ["handoff", i] })),
  diagramNode: { open: '(["', close: '"])', caption: () => null },
};
