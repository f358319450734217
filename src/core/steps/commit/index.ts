import type { CommitStep } from "../../format/types.js";
import type { ShapeProblem, StepKindPlugin } from "../kind.js";

export const commitKind: StepKindPlugin<CommitStep> = {
  kind: "commit",
  outputs: ["sha", "url", "branch"],
  sideEffect: true,
  tool: () => "git",
  files: (step) =>
    (step.files ?? []).flatMap((f, i) =>
      f.template === undefined ? [] : [{ rel: f.template, at: ["files", i, "template"] }],
    ),
  shapeProblems(step) {
    const out: ShapeProblem[] = [];
    if (!step.files?.length && !step.paths?.length)
      out.push({
        at: [],
        message: "a commit step needs files: (content to write) or paths: (files to commit)",
        hint: "add files: [{ path: …, content: … }]",
      });
    step.files?.forEach((f, i) => {
      if ((f.content === undefined) === (f.template === undefined))
        out.push({
          at: ["files", i],
          message: "a file needs exactly one of content: or template:",
          hint: "keep content: (inline) or template: (a file next to the playbook)",
        });
    });
    return out;
  },
  repoPaths: (step) => [
    ...(step.files ?? []).map((f, i) => ({
      path: f.path,
      at: ["files", i, "path"],
      hint: "write a normalised path inside the repository, e.g. docs/notes.md",
      glob: false,
    })),
    ...(step.paths ?? []).map((g, i) => ({
      path: g,
      at: ["paths", i],
      hint: "write globs relative to the repository root",
      glob: true,
    })),
  ],
};
