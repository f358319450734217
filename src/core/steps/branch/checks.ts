import { templateSkeleton, isTemplated } from "../../format/template.js";
import { diagnosticAt } from "../../rules/context.js";
import type { FileRule, Finding } from "../../rules/rule.js";
import { branchNameProblem } from "../../util/git-ref.js";

/** A branch step's name is a valid, safe git ref; a templated name's literal parts could be one. */
export const refInvalid: FileRule<"ref-invalid"> = {
  code: "ref-invalid",
  layer: "templates",
  severity: "error",
  summary: "a branch name is not a valid, safe git ref",
  check({ doc, graph }) {
    const out: Finding<"ref-invalid">[] = [];
    for (const { step, path } of graph.steps) {
      if (step.type !== "branch") continue;
      const templated = isTemplated(step.name);
      const problem = branchNameProblem(templated ? templateSkeleton(step.name) : step.name);
      if (!problem) continue;
      out.push(
        diagnosticAt(
          doc,
          "ref-invalid",
          [...path, "name"],
          templated
            ? `branch name '${step.name}' can never be a valid git ref: ${problem}`
            : `branch name '${step.name}' is not a valid git ref: ${problem}`,
          templated
            ? "fix the literal parts of the name"
            : "use letters, digits, '-', '_', '.' and '/' (e.g. playbook/fix-123)",
        ),
      );
    }
    return out;
  },
};
