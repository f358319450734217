import { entryResolves, missingTargets, reachableTerminals } from "../analysis/graph.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

const GUIDANCE = "add an end step (or a node without next) that a branch leads to";

/** Some path from the entry ends the run. */
export const terminalMissing: FileRule<"terminal-missing"> = {
  code: "terminal-missing",
  layer: "graph",
  severity: "error",
  summary: "no step ends the playbook",
  guidance: GUIDANCE,
  requires: "whole-graph",
  check(ctx): Finding<"terminal-missing">[] {
    // With a target missing, "no terminal" would only repeat that error in other words.
    if (!entryResolves(ctx) || missingTargets(ctx).length > 0) return [];
    if (reachableTerminals(ctx).length > 0) return [];
    return [
      {
        rule: "terminal-missing",
        ...locate(ctx.doc, ctx.graph.mode === "nodes" ? ["nodes"] : ["steps"], true),
        message: "no reachable step ends the playbook: every path loops forever",
        hint: GUIDANCE,
      },
    ];
  },
};
