import type { PathSegment } from "../../format/source.js";
import { templateSkeleton } from "../../format/template.js";
import { repoPathProblem } from "../../util/git-ref.js";
import { isAbsoluteReference } from "../analysis/files.js";
import { diagnosticAt } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/** Paths a step writes or reads stay inside the repository (and out of .git); files it reads are relative. */
export const pathUnsafe: FileRule<"path-unsafe"> = {
  code: "path-unsafe",
  layer: "templates",
  severity: "error",
  summary: "a path is absolute, not normalised, leaves the repository or touches .git",
  check({ doc, graph }) {
    const out: Finding<"path-unsafe">[] = [];
    const report = (at: PathSegment[], message: string, hint: string): void => {
      out.push(diagnosticAt(doc, "path-unsafe", at, message, hint));
    };
    /** A path in the repository; globs (`*`, `**`) are checked as if they were names. */
    const repoPath = (path: string, at: PathSegment[], hint: string, glob: boolean): void => {
      const skeleton = templateSkeleton(path);
      const problem = repoPathProblem(glob ? skeleton.replace(/\*\*?/g, "x") : skeleton);
      if (problem) report(at, `path '${path}' is unsafe: ${problem}`, hint);
    };
    const fileRef = (rel: string, at: PathSegment[]): void => {
      if (isAbsoluteReference(rel))
        report(
          at,
          `'${rel}' is absolute; file references are relative to the playbook file`,
          "write the path relative to the playbook's folder",
        );
    };
    for (const { step, path: p } of graph.steps) {
      if (step.type === "commit") {
        step.files?.forEach((f, i) => {
          const fp: PathSegment[] = [...p, "files", i];
          repoPath(
            f.path,
            [...fp, "path"],
            "write a normalised path inside the repository, e.g. docs/notes.md",
            false,
          );
          if (f.template !== undefined) fileRef(f.template, [...fp, "template"]);
        });
        step.paths?.forEach((g, i) =>
          repoPath(g, [...p, "paths", i], "write globs relative to the repository root", true),
        );
      } else if (step.type === "ai") {
        if (step.prompt_file !== undefined) fileRef(step.prompt_file, [...p, "prompt_file"]);
        step.expect_files?.forEach((f, i) =>
          repoPath(
            f,
            [...p, "expect_files", i],
            "write paths relative to the repository root",
            true,
          ),
        );
      }
    }
    return out;
  },
};
