// The `close` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";

export interface CloseStep extends StepBase {
  type: "close";
  reason?: "completed" | "not_planned";
  comment?: string;
  issue?: string;
}
