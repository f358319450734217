import type { CheckpointStep } from "../../format/types.js";
import { CHECKPOINT_OUTPUTS } from "../../format/vocabulary.js";
import type { ShapeProblem, StepKindPlugin } from "../kind.js";

export const checkpointKind: StepKindPlugin<CheckpointStep> = {
  kind: "checkpoint",
  outputs: null,
  // Who approved and their note, and the fields of the response schema the step asks for.
  outputsOf(step) {
    const props = step.response_schema?.properties;
    return [...CHECKPOINT_OUTPUTS, ...Object.keys(props && typeof props === "object" ? props : {})];
  },
  shapeProblems(step) {
    const out: ShapeProblem[] = [];
    const a = step.approvers;
    if (a?.count !== undefined && a.users && !a.teams && !a.permission && a.users.length < a.count)
      out.push({
        at: ["approvers", "count"],
        message: `${a.count} approvals are needed but only ${a.users.length} users may approve`,
        hint: "lower count, or allow more approvers",
      });
    if (step.reminder !== undefined && step.timeout === undefined)
      out.push({
        at: ["reminder"],
        message: "a reminder needs a timeout to remind before",
        hint: "add timeout:, or remove reminder:",
        key: true,
      });
    if (step.on_timeout !== undefined && step.timeout === undefined)
      out.push({
        at: ["on_timeout"],
        message: "on_timeout needs a timeout:",
        hint: "add timeout: 24h",
        key: true,
      });
    return out;
  },
  canWait: () => true,
  diagramNode: { open: '{{"', close: '"}}' },
  answeredWith: "approval",
  approvers: (step) => step.approvers,
};
