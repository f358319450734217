// The `script` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";
import type { SCRIPT_SHELLS } from "./schema.js";

export type ScriptShell = (typeof SCRIPT_SHELLS)[number];

export interface ScriptStep extends StepBase {
  type: "script";
  shell: ScriptShell;
  /** Script text, never templated; values reach it through `env`. */
  run: string;
  env?: Record<string, string | number | boolean>;
}
