import type { PlaybookStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";

export const playbookKind: StepKindPlugin<PlaybookStep> = {
  kind: "playbook",
  outputs: null,
  tool: () => "playbook",
  calls: (step) => [
    {
      target: step.playbook,
      kind: step.mode,
      at: ["playbook"],
      ...(step.with ? { with: step.with } : {}),
    },
  ],
  canWait: () => true,
  diagramNode: { open: '[["', close: '"]]', caption: (step) => [step.mode, step.playbook] },
  answeredWith: "findings",
};
