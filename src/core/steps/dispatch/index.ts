import type { DispatchStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { dispatchStep } from "./executor.js";

export const dispatchKind: StepKindPlugin<DispatchStep> = {
  executor: dispatchStep,
  outputs: ["run_id", "url", "conclusion"],
  sideEffect: true,
  tool: () => "dispatch",
  canWait: (step) => step.wait !== false,
};
