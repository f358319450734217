import type { CommitStep } from "../../format/types.js";
import {
  effectOrFail,
  renderAll,
  renderInlineOrFile,
  renderList,
  type Outcome,
  type StepExecutor,
} from "../types.js";

/**
 * Writes files in one atomic commit. File templates come with the playbook bundle (the adapter
 * read them from the default branch), so rendering stays here, without I/O.
 */
export const commitStep: StepExecutor<CommitStep> = {
  kind: "commit",
  retryable: true,
  enter(ctx): Outcome {
    const head = renderAll(ctx, {
      branch: { src: ctx.step.branch, use: "branch" },
      message: { src: ctx.step.message },
    });
    if (!head.ok) return { type: "fail", error: head.error };
    const files: { path: string; content: string }[] = [];
    for (const f of ctx.step.files ?? []) {
      const path = ctx.render(f.path, "path");
      if (!path.ok) return { type: "fail", error: path.error };
      const content = renderInlineOrFile(ctx, f.content, f.template, "template file");
      if (!content.ok) return { type: "fail", error: content.error };
      files.push({ path: path.value, content: content.value });
    }
    const paths = renderList(ctx, ctx.step.paths);
    if (!paths.ok) return { type: "fail", error: paths.error };
    return effectOrFail(head, "commit", {
      files,
      paths: paths.values,
      push: ctx.step.push ?? true,
      pull: ctx.step.pull ?? true,
    });
  },
};
