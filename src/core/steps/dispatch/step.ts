// The `dispatch` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";

export interface DispatchStep extends StepBase {
  type: "dispatch";
  workflow: string;
  ref?: string;
  inputs?: Record<string, string | number | boolean>;
  wait?: boolean;
  /**
   * A workflow input the bot sets to this dispatch's key; the workflow's `run-name` shows it, so
   * the bot knows its run where GitHub does not return the run's id.
   */
  correlation_input?: string;
}
