import { entryResolves } from "../analysis/graph.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

const GUIDANCE = "add limits: { max_steps: N } so a run that keeps looping stops";

/** A graph that can loop needs limits.max_steps, so that a run that keeps looping stops. */
export const cycleWithoutLimit: FileRule<"cycle-without-limit"> = {
  code: "cycle-without-limit",
  layer: "graph",
  severity: "error",
  summary: "the graph has a cycle but no limits.max_steps",
  guidance: GUIDANCE,
  requires: "whole-graph",
  check(ctx): Finding<"cycle-without-limit">[] {
    const { doc, playbook, graph } = ctx;
    if (!entryResolves(ctx) || playbook.limits?.max_steps !== undefined) return [];
    const cycle = graph.findCycle();
    if (!cycle) return [];
    return [
      {
        rule: "cycle-without-limit",
        ...locate(doc, graph.byId.get(cycle[0] as string)?.path ?? []),
        message: `steps loop (${cycle.join(" → ")}) but limits.max_steps is not set`,
        hint: GUIDANCE,
      },
    ];
  },
};
