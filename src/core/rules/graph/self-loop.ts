import { formatPath } from "../../format/source.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

const GUIDANCE = "route through a distinct step (for a retry, use on_error: retry:N)";

/** No step branches to itself. */
export const selfLoop: FileRule<"self-loop"> = {
  code: "self-loop",
  layer: "graph",
  severity: "error",
  summary: "a step branches to itself",
  guidance: GUIDANCE,
  requires: "one-step-form",
  check({ doc, graph }) {
    const out: Finding<"self-loop">[] = [];
    for (const s of graph.steps)
      for (const e of graph.successors(s.id)) {
        if (e.kind !== "fall-through" && e.to === s.id)
          out.push({
            rule: "self-loop",
            ...locate(doc, e.path),
            message: `${formatPath(e.path)}: step '${s.id}' branches to itself`,
            hint: GUIDANCE,
          });
      }
    return out;
  },
};
