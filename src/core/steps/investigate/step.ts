// The `investigate` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";

/**
 * How one finding is read from a call's raw result: recorded when `when` holds over `result`
 * (and, with `each`, over one `item` of the list or mapping it names: the first that fits); its
 * value is `value`'s (a name such as `result.key` or `item.0.status`) or `true`, and a rule whose
 * value is missing records nothing.
 */
export interface FindingRule {
  finding: string;
  when?: string;
  each?: string;
  value?: string;
}

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
