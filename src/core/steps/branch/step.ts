// The `branch` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";

export interface BranchStep extends StepBase {
  type: "branch";
  name: string;
  from?: string;
  /** The older spelling of `if_exists: fail`. */
  require_new?: boolean;
  /**
   * When the branch exists: reuse it only if it holds just this run's commits (default), fail,
   * or pick `<name>-2`, `-3`, …
   */
  if_exists?: "reuse" | "fail" | "new-name";
}
