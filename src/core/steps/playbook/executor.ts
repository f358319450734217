import type { PlaybookStep } from "../../format/types.js";
import { renderValues, type Outcome, type StepExecutor } from "../types.js";

/** Runs another playbook: `delegate` comes back here with its findings; `handoff` ends this run. */
export const playbookStep: StepExecutor<PlaybookStep> = {
  kind: "playbook",
  retryable: true,
  enter(ctx): Outcome {
    const inputs = renderValues(ctx, ctx.step.with);
    if (!inputs.ok) return { type: "fail", error: inputs.error };
    return { type: ctx.step.mode, playbook: ctx.step.playbook, inputs: inputs.values };
  },
};
