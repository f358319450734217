import type { ScriptStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { scriptStep } from "./executor.js";

export const scriptKind: StepKindPlugin<ScriptStep> = {
  executor: scriptStep,
  outputs: ["exit_code", "stdout", "stderr"],
  sideEffect: true,
  tool: () => "script",
};
