// The `checkpoint` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";
import type { PERMISSIONS } from "../../format/schema-parts.js";

export interface Approvers {
  permission?: (typeof PERMISSIONS)[number];
  users?: string[];
  teams?: string[];
  count?: number;
  allow_initiator?: boolean;
}

export interface CheckpointStep extends StepBase {
  type: "checkpoint";
  message: string;
  approvers?: Approvers;
  response_schema?: Record<string, unknown>;
  on_reject?: string;
  reminder?: string;
  on_timeout?: string;
}
