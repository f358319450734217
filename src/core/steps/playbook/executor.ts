import type { PlaybookStep } from "../../format/types.js";
import { stepTitle } from "../../format/graph.js";
import { lines, renderMarkdown, strong, type InlineLike } from "../../markdown/comment.js";
import { choicePrompt, recordOrChoose } from "../investigate/executor.js";
import { renderValues, type Outcome, type StepExecutor } from "../types.js";

/**
 * Runs another playbook: `delegate` comes back here with its findings; `handoff` ends this run.
 * A delegate's child run is the step's effect: its return arrives as the effect's outputs. With
 * prose branches (`condition:`), the step then waits for /choose, as an investigation does.
 */
export const playbookStep: StepExecutor<PlaybookStep> = {
  kind: "playbook",
  retryable: true,
  enter(ctx): Outcome {
    const inputs = renderValues(ctx, ctx.step.with);
    if (!inputs.ok) return { type: "fail", error: inputs.error };
    return { type: ctx.step.mode, playbook: ctx.step.playbook, inputs: inputs.values };
  },
  onEffect(ctx, outputs): Outcome {
    const choose = choicePrompt(ctx.step);
    if (!choose) return { type: "done", outputs };
    const conclusion = typeof outputs.conclusion === "string" ? outputs.conclusion : undefined;
    const returned: InlineLike[] = [
      strong(stepTitle(ctx.step)),
      ": playbook ",
      strong(ctx.step.playbook),
      " returned",
      conclusion !== undefined ? ` (conclusion: ${conclusion})` : "",
      "; its findings are recorded here.",
    ];
    return {
      type: "wait",
      messages: [{ kind: "waiting", text: renderMarkdown(lines(returned, choose)) }],
    };
  },
  onEvent(ctx, event): Outcome {
    return recordOrChoose(ctx, event);
  },
};
