import { templateScan } from "../analysis/references.js";
import { diagnosticAt } from "../context.js";
import type { FileRule } from "../rule.js";

const GUIDANCE =
  "write comparisons joined by and/or/not, e.g. inputs.level == 'major' and findings.failing_pods > 0";

/** if: and when: expressions parse. */
export const expressionSyntax: FileRule<"expression-syntax"> = {
  code: "expression-syntax",
  layer: "templates",
  severity: "error",
  summary: "an if or when expression is malformed",
  guidance: GUIDANCE,
  requires: "one-step-form",
  check: (ctx) =>
    templateScan(ctx).expressions.flatMap(({ text, at, error }) =>
      error
        ? [
            diagnosticAt(
              ctx.doc,
              "expression-syntax",
              at,
              `${error.message} at character ${error.offset + 1} of '${text}'`,
              GUIDANCE,
            ),
          ]
        : [],
    ),
};
