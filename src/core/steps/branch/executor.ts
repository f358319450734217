import type { BranchStep } from "../../format/types.js";
import { effectOrFail, type StepExecutor } from "../types.js";

/**
 * Creates a branch from the base head, or reuses one that holds nothing but this run's commits;
 * `if_exists` chooses between failing and a fresh name when someone else's work is there.
 */
export const branchStep: StepExecutor<BranchStep> = {
  kind: "branch",
  retryable: true,
  enter: (ctx) =>
    effectOrFail(ctx, "branch", (render) => ({
      name: render(ctx.step.name, "branch"),
      from: render.optional(ctx.step.from, "branch"),
      require_new: ctx.step.require_new ?? false,
      if_exists: ctx.step.if_exists,
    })),
};
