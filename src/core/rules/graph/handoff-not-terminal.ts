import { formatPath, type PathSegment } from "../../format/source.js";
import { stepKindSchemaOf } from "../../steps/schemas.js";
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
      const graphShape = stepKindSchemaOf(step.type)?.graph;
      const told = graphShape?.terminalNext;
      if (!told || graphShape.terminal?.(step) !== true) continue;
      const at: PathSegment[] = [...s.path, "next"];
      out.push({
        rule: "handoff-not-terminal",
        ...locate(doc, at, true),
        message: `${formatPath(at)}: ${told.message}`,
        hint: told.hint,
      });
    }
    return out;
  },
};
