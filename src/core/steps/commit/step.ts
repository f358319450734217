// The `commit` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";

export interface CommitFile {
  path: string;
  content?: string;
  template?: string;
}

export interface CommitStep extends StepBase {
  type: "commit";
  branch: string;
  message: string;
  files?: CommitFile[];
  paths?: string[];
  push?: boolean;
  pull?: boolean;
}
