// The `end` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";

export interface EndStep extends StepBase {
  type: "end";
  advice?: string;
  conclusion?: string;
  status?: "success" | "failure" | "neutral";
  handoff?: string[];
}
