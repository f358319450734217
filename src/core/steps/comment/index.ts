import type { CommentStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";

export const commentKind: StepKindPlugin<CommentStep> = {
  kind: "comment",
  outputs: ["id", "url"],
  sideEffect: true,
  tool: () => "comment",
  shapeProblems: (step) =>
    step.reply_to !== undefined && step.issue === undefined
      ? [
          {
            at: ["reply_to"],
            message: "a reply to a review comment needs the pull request it belongs to",
            hint: "add issue: <pull request number>",
            key: true,
          },
        ]
      : [],
};
