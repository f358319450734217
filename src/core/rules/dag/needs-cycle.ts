import { formatPath } from "../../format/source.js";
import { needsCycles } from "../analysis/dag.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

const GUIDANCE = "remove one of the needs, so that some step of the cycle can start first";

/** needs: form no cycle: steps that wait for each other never start. */
export const needsCycle: FileRule<"needs-cycle"> = {
  code: "needs-cycle",
  layer: "graph",
  severity: "error",
  summary: "steps need each other in a cycle",
  guidance: GUIDANCE,
  requires: "one-step-form",
  check(ctx) {
    const out: Finding<"needs-cycle">[] = [];
    for (const cycle of needsCycles(ctx)) {
      const first = ctx.graph.byId.get(cycle[0] as string);
      if (!first) continue;
      const at = [...first.path, "needs"];
      out.push({
        rule: "needs-cycle",
        ...locate(ctx.doc, at),
        message: `${formatPath(at)}: ${cycle.join(" → ")} need each other, so none of them can ever start`,
        hint: GUIDANCE,
      });
    }
    return out;
  },
};
