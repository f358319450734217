import { formatPath } from "../../format/source.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/** A parallel step's join can be met: it waits for no more branches than it has. */
export const joinUnmet: FileRule<"join-unmet"> = {
  code: "join-unmet",
  layer: "graph",
  severity: "error",
  summary: "a parallel step's join can never be met",
  requires: "one-step-form",
  check({ doc, graph }) {
    const out: Finding<"join-unmet">[] = [];
    for (const s of graph.steps) {
      const step = s.step;
      if (step.type !== "parallel" || typeof step.join !== "object") continue;
      const branches = Object.keys(step.branches ?? {}).length;
      if (step.join.count <= branches) continue;
      const at = [...s.path, "join", "count"];
      out.push({
        rule: "join-unmet",
        ...locate(doc, at),
        message: `${formatPath(at)}: '${s.id}' waits for ${step.join.count} completed branches but has ${branches}, so it could never go on`,
        found: String(step.join.count),
        expected: `at most ${branches}`,
        hint: `lower the count to ${branches} or less (join: all waits for every branch), or add branches`,
      });
    }
    return out;
  },
};
