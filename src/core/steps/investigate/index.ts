import type { InvestigateStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { investigateStep } from "./executor.js";

export const investigateKind: StepKindPlugin<InvestigateStep> = {
  executor: investigateStep,
  outputs: ["results", "chosen"],
  // An investigate step's calls name the outputs they take from their results.
  outputsOf: (step) => (step.suggested_calls ?? []).flatMap((c) => Object.keys(c.outputs ?? {})),
  expectedFindings: (step) => step.expected_findings ?? [],
  // Calls the bot makes itself (`run: auto`) record their results as findings of any key.
  findsUnforeseen: (step) => (step.suggested_calls ?? []).some((c) => c.run === "auto"),
  canWait: () => true,
  answeredWith: "findings",
};
