import type { Scalar } from "../state.js";
import type { PlaybookStep } from "../../playbook/types.js";
import type { Outcome, StepExecutor } from "./types.js";

/** Runs another playbook: `delegate` comes back here with its findings; `handoff` ends this run. */
export const playbookStep: StepExecutor<PlaybookStep> = {
  kind: "playbook",
  retryable: true,
  enter(ctx): Outcome {
    const inputs: Record<string, Scalar> = {};
    for (const [k, v] of Object.entries(ctx.step.with ?? {})) {
      if (typeof v !== "string") {
        inputs[k] = v;
        continue;
      }
      const r = ctx.render(v, "value");
      if (!r.ok) return { type: "fail", error: r.error };
      inputs[k] = r.value;
    }
    return { type: ctx.step.mode, playbook: ctx.step.playbook, inputs };
  },
};
