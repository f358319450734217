import type { BranchStep } from "../../format/types.js";
import { effectOrFail, renderAll, type StepExecutor } from "../types.js";

/**
 * Creates a branch from the base head, or reuses one that holds nothing but this run's commits;
 * `if_exists` chooses between failing and a fresh name when someone else's work is there.
 */
export const branchStep: StepExecutor<BranchStep> = {
  kind: "branch",
  retryable: true,
  enter: (ctx) =>
    effectOrFail(
      renderAll(ctx, {
        name: { src: ctx.step.name, use: "branch" },
        from: { src: ctx.step.from, use: "branch" },
      }),
      "branch",
      {
        require_new: ctx.step.require_new ?? false,
        ...(ctx.step.if_exists ? { if_exists: ctx.step.if_exists } : {}),
      },
    ),
};
