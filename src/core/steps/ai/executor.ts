import { playbookError } from "../../engine/errors.js";
import type { Scalar, Value } from "../../engine/state.js";
import type { AiStep } from "../../format/types.js";
import { renderInlineOrFile, type Outcome, type StepExecutor } from "../types.js";

/**
 * Asks the AI adapter (a mock by default) to work on a prompt with the listed tools. The tool
 * scope is read-only unless the playbook opts into write, which the validator ties to an approval.
 */
export const aiStep: StepExecutor<AiStep> = {
  kind: "ai",
  retryable: false,
  enter(ctx): Outcome {
    const prompt = renderInlineOrFile(ctx, ctx.step.prompt, ctx.step.prompt_file, "prompt file");
    if (!prompt.ok) return { type: "fail", error: prompt.error };
    return {
      type: "effect",
      kind: "ai",
      params: {
        prompt: prompt.value,
        tools: ctx.step.tools ?? [],
        scope: ctx.step.scope ?? "read-only",
        expected_findings: ctx.step.expected_findings ?? [],
        expect_files: ctx.step.expect_files ?? [],
      },
    };
  },
  onEffect(ctx, outputs): Outcome {
    const findings: Record<string, Scalar> = {};
    for (const key of ctx.step.expected_findings ?? []) {
      const v = outputs[`finding.${key}`];
      if (v !== undefined && !Array.isArray(v)) findings[key] = v;
    }
    const missing = (outputs.missing_files as Value | undefined) ?? [];
    if (Array.isArray(missing) && missing.length > 0) {
      return {
        type: "fail",
        error: playbookError(
          "PB-AI-OUTPUT-MISSING",
          `expected files are missing: ${missing.join(", ")}`,
        ),
      };
    }
    const text = outputs.text ?? "";
    return { type: "done", outputs: { text }, findings };
  },
};
