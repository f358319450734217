// The `label` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";

export interface LabelStep extends StepBase {
  type: "label";
  add?: string[];
  remove?: string[];
  issue?: string;
}
