import type { CommitStep } from "../../format/types.js";
import { effectOrFail, type StepExecutor } from "../types.js";

/**
 * Writes files in one atomic commit. File templates come with the playbook bundle (the adapter
 * read them from the default branch), so rendering stays here, without I/O.
 */
export const commitStep: StepExecutor<CommitStep> = {
  kind: "commit",
  retryable: true,
  enter: (ctx) =>
    effectOrFail(ctx, "commit", (render) => ({
      branch: render(ctx.step.branch, "branch"),
      message: render(ctx.step.message),
      files: (ctx.step.files ?? []).map((f) => ({
        path: render(f.path, "path"),
        content: render.inlineOrFile(f.content, f.template, "template file"),
      })),
      paths: render.list(ctx.step.paths),
      push: ctx.step.push ?? true,
      pull: ctx.step.pull ?? true,
    })),
};
