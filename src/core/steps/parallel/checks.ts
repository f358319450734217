import { formatPath, type PathSegment } from "../../format/source.js";
import { locate } from "../../rules/context.js";
import type { FileRule, Finding } from "../../rules/rule.js";

const GUIDANCE =
  "end, delegate and hand off after the parallel part, on the playbook's own steps; needs: belongs in steps lists";

/**
 * What runs beside other steps (in a branch, as an item of a for_each, in a needs: list) cannot
 * end the run, delegate or hand off; a parallel step cannot be a for_each; nodes graphs have no needs:.
 */
export const parallelUnsupported: FileRule<"parallel-unsupported"> = {
  code: "parallel-unsupported",
  layer: "graph",
  severity: "error",
  summary: "a step cannot run beside others in this form",
  guidance: GUIDANCE,
  requires: "one-step-form",
  check({ doc, graph }) {
    const out: Finding<"parallel-unsupported">[] = [];
    const add = (at: PathSegment[], message: string, key = false): void => {
      out.push({
        rule: "parallel-unsupported",
        ...locate(doc, at, key),
        message: `${formatPath(at)}: ${message}`,
        hint: GUIDANCE,
      });
    };
    for (const s of graph.steps) {
      const step = s.step;
      const list = graph.lists.get(s.list);
      const beside = list?.branch
        ? `branch '${list.branch.branch}' of '${list.branch.parallel}'`
        : list?.dag
          ? "a needs: list"
          : step.for_each !== undefined
            ? "a for_each"
            : undefined;
      const ends = step.type === "end" || step.type === "playbook";
      if (beside && ends)
        add(
          [...s.path, "type"],
          `${step.type === "end" ? "an" : "a"} ${step.type} step cannot run inside ${beside}`,
        );
      if (step.for_each !== undefined && step.type === "parallel")
        add(
          [...s.path, "for_each"],
          "a parallel step cannot have for_each: put for_each on a step inside a branch",
          true,
        );
      if (graph.mode === "nodes" && s.list === "" && step.needs !== undefined)
        add(
          [...s.path, "needs"],
          "needs: applies to steps lists; a nodes graph orders its steps with next:",
          true,
        );
    }
    return out;
  },
};
