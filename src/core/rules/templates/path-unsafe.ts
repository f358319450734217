import type { PathSegment } from "../../format/source.js";
import { templateSkeleton } from "../../format/template.js";
import { repoPathProblem } from "../../util/git-ref.js";
import { isAbsoluteReference } from "../analysis/files.js";
import { diagnosticAt } from "../context.js";
import type { FileRule, Finding } from "../rule.js";
import { filesOfStep, repoPathsOf } from "../../steps/registry.js";

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
      for (const r of repoPathsOf(step)) repoPath(r.path, [...p, ...r.at], r.hint, r.glob);
      for (const f of filesOfStep(step)) fileRef(f.rel, [...p, ...f.at]);
    }
    return out;
  },
};
