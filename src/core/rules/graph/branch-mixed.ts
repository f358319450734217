import { formatPath, type PathSegment } from "../../format/source.js";
import { branchingSteps } from "../analysis/graph.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/** when: branches are decided by the engine, condition: branches chosen with /choose: one kind per step. */
export const branchMixed: FileRule<"branch-mixed"> = {
  code: "branch-mixed",
  layer: "graph",
  severity: "error",
  summary: "when and condition branches are mixed in one step",
  requires: "one-step-form",
  check(ctx) {
    const out: Finding<"branch-mixed">[] = [];
    for (const { step: s, branches, hasWhen, hasCondition } of branchingSteps(ctx)) {
      for (const { branch: b, path: bp, kinds } of branches) {
        if (kinds.length !== 1 || b.when === undefined || b.label === undefined) continue;
        const at: PathSegment[] = [...bp, "label"];
        out.push({
          rule: "branch-mixed",
          ...locate(ctx.doc, at, true),
          message: `${formatPath(at)}: only prose condition branches have a /choose label`,
          hint: "remove the label",
        });
      }
      if (hasWhen && hasCondition) {
        const at: PathSegment[] = [...s.path, "next"];
        out.push({
          rule: "branch-mixed",
          ...locate(ctx.doc, at),
          message: `${formatPath(at)}: step '${s.id}' mixes when: expressions and condition: prose`,
          hint: "use when: branches (decided by the engine) or condition: branches (chosen with /choose), not both",
        });
      }
    }
    return out;
  },
};
