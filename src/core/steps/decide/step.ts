// The `decide` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";

export interface Conclusion {
  conclusion: string;
  confidence?: number;
  root_cause?: string;
  alternatives?: string[];
  next_actions?: string[];
  goto?: string;
}

export interface DecisionRule extends Conclusion {
  id: string;
  all?: string[];
  any?: string[];
  none?: string[];
}

/** A finding the step records itself from others, before its rules are read. */
export interface DerivedFinding {
  finding: string;
  /** An expression over the findings (`findings.a != findings.b`). */
  when: string;
}

export interface DecideStep extends StepBase {
  type: "decide";
  /** Findings derived from the others, in order (a later one may use an earlier one). */
  derive?: DerivedFinding[];
  rules: DecisionRule[];
  fallback?: Conclusion;
  /** A sentence per finding present; one without a finding is always reported. */
  confirmed_facts?: { finding?: string; text: string }[];
  /** Every conclusion must rest on findings (rules name some; the result lists those used). */
  require_evidence?: boolean;
}
