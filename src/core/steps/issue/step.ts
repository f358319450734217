// The `issue` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";

export interface IssueStep extends StepBase {
  type: "issue";
  title: string;
  body?: string;
  labels?: string[];
  assignees?: string[];
}
