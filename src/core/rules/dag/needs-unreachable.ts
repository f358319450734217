import { formatPath } from "../../format/source.js";
import { needsCycles, needsLists, validNeeds } from "../analysis/dag.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

const GUIDANCE = "break the cycle it depends on, or remove the need";

/** Every step of a needs: list can start: none waits, directly or not, for a cycle. */
export const needsUnreachable: FileRule<"needs-unreachable"> = {
  code: "needs-unreachable",
  layer: "graph",
  severity: "error",
  summary: "a step of a needs: list can never start",
  guidance: GUIDANCE,
  requires: "one-step-form",
  check(ctx) {
    const { graph } = ctx;
    const inCycle = new Set(needsCycles(ctx).flat());
    const out: Finding<"needs-unreachable">[] = [];
    for (const list of needsLists(ctx)) {
      // What can start: steps whose needs can all complete, from the steps that need nothing.
      const starts = new Set<string>();
      let grew = true;
      while (grew) {
        grew = false;
        for (const id of list.ids) {
          const s = graph.byId.get(id);
          if (!s || starts.has(id) || inCycle.has(id)) continue;
          if (validNeeds(graph, s).every((n) => starts.has(n))) {
            starts.add(id);
            grew = true;
          }
        }
      }
      for (const id of list.ids) {
        const s = graph.byId.get(id);
        if (!s || starts.has(id) || inCycle.has(id) || graph.byId.get(id) !== s) continue;
        const blocked = validNeeds(graph, s).filter((n) => !starts.has(n));
        const at = [...s.path, "needs"];
        out.push({
          rule: "needs-unreachable",
          ...locate(ctx.doc, at),
          message: `${formatPath(at)}: step '${id}' can never start: it waits for ${blocked.map((b) => `'${b}'`).join(", ")}, which can never complete`,
          hint: GUIDANCE,
        });
      }
    }
    return out;
  },
};
