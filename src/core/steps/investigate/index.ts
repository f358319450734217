import type { InvestigateStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { investigateStep } from "./executor.js";

export const investigateKind: StepKindPlugin<InvestigateStep> = {
  executor: investigateStep,
  outputs: ["results", "chosen"],
  // An investigate step's calls name the outputs they take from their results.
  outputsOf: (step) => (step.suggested_calls ?? []).flatMap((c) => Object.keys(c.outputs ?? {})),
  expectedFindings: (step) => step.expected_findings ?? [],
  canWait: () => true,
  answeredWith: "findings",
};
