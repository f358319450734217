import { formatPath } from "../../format/source.js";
import { locate } from "../../rules/context.js";
import type { FileRule, Finding } from "../../rules/rule.js";

const GUIDANCE = "add next: <node id> (or branches over the child's findings)";

/** A delegating node resumes its parent where next: says, so in a nodes graph it needs one. */
export const delegateShape: FileRule<"delegate-shape"> = {
  code: "delegate-shape",
  layer: "graph",
  severity: "error",
  summary: "a delegating step breaks the delegate rules",
  guidance: GUIDANCE,
  requires: "one-step-form",
  check({ doc, graph }) {
    const out: Finding<"delegate-shape">[] = [];
    if (graph.mode !== "nodes") return out;
    for (const s of graph.steps) {
      const step = s.step;
      if (step.type === "playbook" && step.mode === "delegate" && step.next === undefined)
        out.push({
          rule: "delegate-shape",
          ...locate(doc, s.path),
          message: `${formatPath(s.path)}: a delegating node needs next: to resume the parent after the child ends`,
          hint: GUIDANCE,
        });
    }
    return out;
  },
};
