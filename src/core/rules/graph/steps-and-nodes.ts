import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/** A playbook has a steps list or a nodes map with an entrypoint, never both or neither. */
export const stepsAndNodes: FileRule<"steps-and-nodes"> = {
  code: "steps-and-nodes",
  layer: "graph",
  severity: "error",
  summary: "a playbook must have exactly one of steps or nodes",
  check({ doc, playbook, graph }) {
    const finding = (
      at: string[],
      key: boolean,
      message: string,
      hint: string,
    ): Finding<"steps-and-nodes">[] => [
      { rule: "steps-and-nodes", ...locate(doc, at, key), message, hint },
    ];
    if (playbook.steps && playbook.nodes)
      return finding(
        ["nodes"],
        true,
        "nodes: a playbook has either a steps list or a nodes map, not both",
        "keep steps (linear, falls through) or nodes with an entrypoint (graph)",
      );
    if (!playbook.steps && !playbook.nodes)
      return finding(
        [],
        false,
        "playbook has no steps: add a steps list or a nodes map with an entrypoint",
        "add `steps:` with at least one step",
      );
    if (graph.mode === "steps" && playbook.entrypoint !== undefined)
      return finding(
        ["entrypoint"],
        true,
        "entrypoint: only a nodes graph has an entrypoint; a steps list starts with its first step",
        "remove entrypoint, or write the steps as a nodes map",
      );
    return [];
  },
};
