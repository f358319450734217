import { didYouMean } from "../../util/suggest.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/** A nodes graph starts at its entrypoint, which names one of its nodes. */
export const entrypointUnresolved: FileRule<"entrypoint-unresolved"> = {
  code: "entrypoint-unresolved",
  layer: "graph",
  severity: "error",
  summary: "the entrypoint names no node",
  requires: "one-step-form",
  check({ doc, playbook, graph }): Finding<"entrypoint-unresolved">[] {
    if (graph.mode !== "nodes") return [];
    const ids = graph.steps.map((s) => s.id);
    if (playbook.entrypoint === undefined) {
      return [
        {
          rule: "entrypoint-unresolved",
          ...locate(doc, []),
          message: "a nodes graph needs an entrypoint naming its first node",
          hint: `add 'entrypoint: ${ids[0] ?? "<node id>"}'`,
        },
      ];
    }
    if (graph.byId.has(playbook.entrypoint)) return [];
    const guess = didYouMean(playbook.entrypoint, ids);
    return [
      {
        rule: "entrypoint-unresolved",
        ...locate(doc, ["entrypoint"]),
        message: `entrypoint: '${playbook.entrypoint}' names no node${guess ? ` — did you mean '${guess}'?` : ""}`,
        found: `'${playbook.entrypoint}'`,
        expected: `one of: ${ids.join(", ")}`,
        hint: guess ? `write '${guess}'` : "name one of the nodes",
      },
    ];
  },
};
