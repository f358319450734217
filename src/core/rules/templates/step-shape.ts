import { shapeProblemsOf } from "../../steps/registry.js";
import { diagnosticAt } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/**
 * The fields of one step fit together: what a step of its kind needs, without contradictions. Each
 * kind says what it needs (`shapeProblems` in src/core/steps/<kind>/index.ts).
 */
export const stepShape: FileRule<"step-shape"> = {
  code: "step-shape",
  layer: "templates",
  severity: "error",
  summary: "a step's fields do not fit together (e.g. a commit with neither files nor paths)",
  check({ doc, graph }) {
    return graph.steps.flatMap(({ step, path: p }) =>
      shapeProblemsOf(step).map(({ at, message, hint, key }): Finding<"step-shape"> =>
        diagnosticAt(doc, "step-shape", [...p, ...at], message, hint, { key: key === true }),
      ),
    );
  },
};
