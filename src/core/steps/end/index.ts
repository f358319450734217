import type { EndStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { endStep } from "./executor.js";

export const endKind: StepKindPlugin<EndStep> = {
  executor: endStep,
  outputs: [],
  playbooks: (step) => step.handoff ?? [],
  diagramNode: { open: '(["', close: '"])', caption: () => null },
};
