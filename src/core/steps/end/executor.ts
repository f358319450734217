import type { EndStep } from "../../format/types.js";
import type { Outcome, StepExecutor } from "../types.js";

/** Ends the run (or a delegated child) with advice, a conclusion, a status and handoff targets. */
export const endStep: StepExecutor<EndStep> = {
  kind: "end",
  retryable: true,
  enter(ctx): Outcome {
    // The author's Markdown (values in it stay text); the comment builder makes it inert.
    const advice =
      ctx.step.advice === undefined ? undefined : ctx.render(ctx.step.advice, "markdown");
    if (advice && !advice.ok) return { type: "fail", error: advice.error };
    const out: Outcome = { type: "end", status: ctx.step.status ?? "success" };
    if (advice) out.advice = advice.value;
    if (ctx.step.conclusion !== undefined) out.conclusion = ctx.step.conclusion;
    if (ctx.step.handoff?.length) out.handoff = [...ctx.step.handoff];
    return out;
  },
};
