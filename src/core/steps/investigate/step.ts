// The `investigate` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";
import type { FindingRule } from "./findings.js";

export interface SuggestedCall {
  tool: string;
  args?: Record<string, unknown>;
  purpose?: string;
  /** A failed call is recorded as a `step_error` finding. */
  required?: boolean;
  /** `suggest` (default): offered to people (`/call <n>`); `auto`: run by the bot. */
  run?: "suggest" | "auto";
  /** Step outputs from the result: name → dotted path in it. */
  outputs?: Record<string, string>;
  /** Findings read from the raw result, each by a rule (see `FindingRule`). */
  findings?: FindingRule[];
}

export interface InvestigateStep extends StepBase {
  type: "investigate";
  suggested_calls?: SuggestedCall[];
  expected_findings?: string[];
}
