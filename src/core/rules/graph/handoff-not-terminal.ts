import { formatPath, type PathSegment } from "../../format/source.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/** An end step and a handoff end the run: nothing comes after them. */
export const handoffNotTerminal: FileRule<"handoff-not-terminal"> = {
  code: "handoff-not-terminal",
  layer: "graph",
  severity: "error",
  summary: "handoff is only allowed on a terminal step",
  requires: "one-step-form",
  check({ doc, graph }) {
    const out: Finding<"handoff-not-terminal">[] = [];
    for (const s of graph.steps) {
      const step = s.step;
      if (step.next === undefined) continue;
      const at: PathSegment[] = [...s.path, "next"];
      if (step.type === "end")
        out.push({
          rule: "handoff-not-terminal",
          ...locate(doc, at, true),
          message: `${formatPath(at)}: an end step ends the run and cannot have next`,
          hint: "remove next, or use another step kind",
        });
      else if (step.type === "playbook" && step.mode === "handoff")
        out.push({
          rule: "handoff-not-terminal",
          ...locate(doc, at, true),
          message: `${formatPath(at)}: a handoff ends this run, so it cannot have next`,
          hint: "remove next, or use mode: delegate to come back here",
        });
    }
    return out;
  },
};
