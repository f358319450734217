import type { ScriptStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";

export const scriptKind: StepKindPlugin<ScriptStep> = {
  kind: "script",
  outputs: ["exit_code", "stdout", "stderr"],
  sideEffect: true,
  tool: () => "script",
};
