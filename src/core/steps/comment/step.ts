// The `comment` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";

export interface CommentStep extends StepBase {
  type: "comment";
  body: string;
  /** Another issue or pull request of the repository (default: the run's issue). */
  issue?: string;
  /** A review comment of the pull request `issue`: the comment is a reply in its thread. */
  reply_to?: string;
}
