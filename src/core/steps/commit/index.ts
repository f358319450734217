import type { CommitStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { commitStep } from "./executor.js";

export const commitKind: StepKindPlugin<CommitStep> = {
  executor: commitStep,
  outputs: ["sha", "url", "branch"],
  sideEffect: true,
  tool: () => "git",
  files: (step) =>
    (step.files ?? []).flatMap((f, i) =>
      f.template === undefined ? [] : [{ rel: f.template, at: ["files", i, "template"] }],
    ),
};
