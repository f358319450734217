import type { Scalar, Value } from "../../engine/state.js";
import type { Authority } from "../../format/types.js";
import type { FindingRule } from "./step.js";

/** One tool call as the bot makes it: the step's call number (from 1), the tool, its arguments. */
export type ToolCallRequest = {
  number: number;
  tool: string;
  args: Record<string, unknown>;
  /** A failed required call is recorded as the finding `step_error`. */
  required: boolean;
  /** Outputs of the step taken from the result: name → dotted path in it. */
  outputs?: Record<string, string>;
  /** Findings read from the raw result by rules, besides those it reports itself. */
  findings?: FindingRule[];
};

/** The calls an `investigate` step has the bot make (its `run: auto` calls, or one `/call <n>`). */
export type ToolCallParams = {
  calls: ToolCallRequest[];
  /** The step's authority: a tool that writes needs ask-first (approved) or just-do-it. */
  authority?: Authority;
};

export type ToolCallOutputs = {
  /** How many calls were made. */
  called: number;
  /** `server/tool` of each call that failed, with its error code. */
  failed: string[];
  /** The results, one line each, as bounded text (for the status comment and templates). */
  results: string;
  /** Findings the results gave, normalised. */
  [finding: `finding.${string}`]: Scalar;
  /** Values the calls' `outputs` took from their results (bounded). */
  [output: `output.${string}`]: Value;
};

/** Characters of one call's result kept in `results`. */
export const TOOL_RESULT_TEXT_LIMIT = 1_000;

/** What the effect does, in words (a failure says what was being done). */
export const describeToolCallEffect = (p: ToolCallParams): string =>
  `call ${p.calls.map((c) => c.tool).join(", ")}`;
