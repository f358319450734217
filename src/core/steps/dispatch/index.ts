import type { DispatchStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";

export const dispatchKind: StepKindPlugin<DispatchStep> = {
  kind: "dispatch",
  outputs: ["run_id", "url", "conclusion"],
  sideEffect: true,
  tool: () => "dispatch",
  canWait: (step) => step.wait !== false,
};
