import type { CommentStep } from "../../format/types.js";
import type { StepKindPlugin } from "../kind.js";
import { commentStep } from "./executor.js";

export const commentKind: StepKindPlugin<CommentStep> = {
  executor: commentStep,
  outputs: ["id", "url"],
  sideEffect: true,
  tool: () => "comment",
};
