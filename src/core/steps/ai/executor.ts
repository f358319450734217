import type { Scalar, Value } from "../../engine/state.js";
import type { AiStep } from "../../format/types.js";
import { effectOrFail, type Outcome, type StepExecutor } from "../types.js";
import { expectedFilesMissing } from "./effect.js";
import { verifierNamed } from "./verifiers.js";
import { playbookError } from "../../engine/errors.js";

/**
 * Asks the AI adapter (a mock by default) to work on a prompt with the listed tools. The tool
 * scope is read-only unless the playbook opts into write, which the validator ties to an approval.
 */
export const aiStep: StepExecutor<AiStep> = {
  kind: "ai",
  retryable: false,
  enter: (ctx) =>
    effectOrFail(ctx, "ai", (render) => ({
      prompt: render.inlineOrFile(ctx.step.prompt, ctx.step.prompt_file, "prompt file"),
      tools: ctx.step.tools ?? [],
      scope: ctx.step.scope ?? "read-only",
      expected_findings: ctx.step.expected_findings ?? [],
      // Paths in the repository, which may name inputs (`out/{{ inputs.name }}.md`).
      expect_files: render.list(ctx.step.expect_files, "path"),
      cache: ctx.step.cache,
    })),
  onEffect(ctx, outputs): Outcome {
    const findings: Record<string, Scalar> = {};
    for (const key of ctx.step.expected_findings ?? []) {
      const v = outputs[`finding.${key}`];
      if (v !== undefined && !Array.isArray(v)) findings[key] = v;
    }
    const missing = (outputs.missing_files as Value | undefined) ?? [];
    if (Array.isArray(missing) && missing.length > 0)
      return { type: "fail", error: expectedFilesMissing(missing.map(String)) };
    if (ctx.step.verify !== undefined) {
      const verifier = verifierNamed(ctx.step.verify);
      const problem = verifier
        ? verifier.check(outputs, ctx.step.expected_findings ?? [])
        : `no check named ${ctx.step.verify} is registered`;
      if (problem !== undefined)
        return {
          type: "fail",
          error: playbookError("PB-VERIFY-FAILED", `check ${ctx.step.verify}: ${problem}`),
        };
    }
    const text = outputs.text ?? "";
    return { type: "done", outputs: { text }, findings };
  },
};
