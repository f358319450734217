import { formatPath, type PathSegment } from "../../format/source.js";
import { isCheckpointEdge, missingEdgeFinding, missingTargets } from "../analysis/graph.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/** Every goto, branch and default names a step that exists. */
export const gotoUnresolved: FileRule<"goto-unresolved"> = {
  code: "goto-unresolved",
  layer: "graph",
  severity: "error",
  summary: "a goto names no step",
  requires: "one-step-form",
  check(ctx) {
    const out: Finding<"goto-unresolved">[] = [];
    for (const missing of missingTargets(ctx)) {
      if (missing.kind === "edge") {
        if (!isCheckpointEdge(missing.edge))
          out.push(missingEdgeFinding(ctx, missing.edge, "goto-unresolved"));
      } else if (missing.kind === "branch-without-goto") {
        out.push({
          rule: "goto-unresolved",
          ...locate(ctx.doc, missing.branch.path),
          message: `${formatPath(missing.branch.path)}: the branch has no goto`,
          hint: "add goto: <step id>",
        });
      } else {
        const at: PathSegment[] = [...missing.step.path, "next"];
        out.push({
          rule: "goto-unresolved",
          ...locate(ctx.doc, at),
          message: `${formatPath(at)}: in a nodes graph, when: branches need a default: for when none is true`,
          hint: "add { default: <step id> }",
        });
      }
    }
    return out;
  },
};
