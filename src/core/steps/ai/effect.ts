import { playbookError, type PlaybookError } from "../../engine/errors.js";
import type { Scalar } from "../../engine/state.js";

/** Tool calls the model may make in one ai step, whatever budget the run has left. */
export const AI_TOOL_CALLS_PER_STEP = 20;

/** A prompt for the AI adapter, with the tools it may use and what the step expects back. */
export type AiParams = {
  prompt: string;
  tools?: string[];
  /** Default `read-only`. */
  scope?: "read-only" | "write";
  expected_findings?: string[];
  /** Repository paths that must be files once the adapter has answered. */
  expect_files?: string[];
  /** The step is idempotent: the same ask may be answered from a cache. */
  cache?: boolean;
  /** Calls the model may make to the tools (what is left of the run's budget); none when 0. */
  max_tool_calls?: number;
};

export type AiOutputs = {
  text: string;
  /** Calls the model made to the step's tools. */
  tool_calls?: number;
  /** A missing file may be reported here instead of failing the effect. */
  missing_files?: string[];
  /** One per finding the model reported. */
  [finding: `finding.${string}`]: Scalar;
};

/** The failure of an ai step whose expected files do not exist (`where`: where they were looked for). */
export function expectedFilesMissing(missing: readonly string[], where?: string): PlaybookError {
  return playbookError(
    "PB-AI-OUTPUT-MISSING",
    `expected files are missing${where ? ` ${where}` : ""}: ${missing.join(", ")}`,
  );
}

/** What the effect does, in words (a failure says what was being done). */
export const describeAiEffect = (): string => "run the ai step";
