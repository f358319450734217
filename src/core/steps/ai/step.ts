// The `ai` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";

export interface AiStep extends StepBase {
  type: "ai";
  prompt?: string;
  prompt_file?: string;
  tools?: string[];
  scope?: "read-only" | "write";
  expected_findings?: string[];
  expect_files?: string[];
  /** Reuse an earlier result for the same prompt and inputs. */
  cache?: boolean;
  /** A check registered in code by this name must pass on the result. */
  verify?: string;
}
