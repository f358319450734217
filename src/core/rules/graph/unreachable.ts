import { formatPath } from "../../format/source.js";
import { entryResolves, missingTargets, reachableSteps } from "../analysis/graph.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

const GUIDANCE = "add a branch that targets it or remove it";

/** Every step can be reached from the entry. */
export const unreachable: FileRule<"unreachable"> = {
  code: "unreachable",
  layer: "graph",
  severity: "error",
  summary: "a step cannot be reached",
  guidance: GUIDANCE,
  requires: "whole-graph",
  check(ctx) {
    const { doc, graph } = ctx;
    if (!entryResolves(ctx)) return [];
    const reach = reachableSteps(ctx);
    // A reachable step whose next is missing may have been meant to lead anywhere: wait for it.
    if (missingTargets(ctx).some((m) => m.kind !== "no-default" && reach.has(m.step.id))) return [];
    const out: Finding<"unreachable">[] = [];
    for (const s of graph.steps) {
      // A repeated id is step-duplicate-id's finding; only the first step of an id counts here.
      if (reach.has(s.id) || graph.byId.get(s.id) !== s) continue;
      const nodes = graph.mode === "nodes";
      out.push({
        rule: "unreachable",
        ...locate(doc, nodes ? s.path : [...s.path, "id"], nodes),
        message: `${formatPath(s.path)}: step '${s.id}' can never be reached from '${graph.entry}'`,
        hint: GUIDANCE,
      });
    }
    return out;
  },
};
