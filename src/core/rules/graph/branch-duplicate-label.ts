import { formatPath } from "../../format/source.js";
import { branchingSteps } from "../analysis/graph.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/** `/choose <label>` picks one prose branch: labels (or targets, without a label) are unique per step. */
export const branchDuplicateLabel: FileRule<"branch-duplicate-label"> = {
  code: "branch-duplicate-label",
  layer: "graph",
  severity: "error",
  summary: "two prose branches of one step share a label",
  requires: "one-step-form",
  check(ctx) {
    const out: Finding<"branch-duplicate-label">[] = [];
    for (const { branches } of branchingSteps(ctx)) {
      const labels = new Map<string, number>();
      for (const { branch: b, path: bp, kinds, index } of branches) {
        if (kinds.length !== 1 || b.condition === undefined) continue;
        const label = b.label ?? b.goto ?? "";
        const prev = labels.get(label);
        if (prev === undefined) labels.set(label, index);
        else
          out.push({
            rule: "branch-duplicate-label",
            ...locate(ctx.doc, bp),
            message: `${formatPath(bp)}: '/choose ${label}' would be ambiguous: branch ${prev} has the same label`,
            hint: "give each prose branch its own label:",
          });
      }
    }
    return out;
  },
};
