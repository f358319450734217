// The `playbook` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";

export interface PlaybookStep extends StepBase {
  type: "playbook";
  playbook: string;
  mode: "delegate" | "handoff";
  with?: Record<string, string | number | boolean>;
}
