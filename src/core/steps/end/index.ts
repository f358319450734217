import type { EndStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";

export const endKind: StepKindPlugin<EndStep> = {
  kind: "end",
  outputs: [],
  calls: (step) =>
    (step.handoff ?? []).map((target, i) => ({ target, kind: "handoff", at: ["handoff", i] })),
  diagramNode: { open: '(["', close: '"])', caption: () => null },
};
