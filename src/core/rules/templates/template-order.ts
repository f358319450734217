import { formatPath } from "../../format/source.js";
import { dominatorsOf } from "../analysis/graph.js";
import { references } from "../analysis/references.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

const GUIDANCE = "use outputs of steps that lie on every path to this one";

/** A step uses only outputs of steps that have surely run before it (they dominate it). */
export const templateOrder: FileRule<"template-order"> = {
  code: "template-order",
  layer: "templates",
  severity: "error",
  summary: "a template uses an output of a step that does not always run before it",
  guidance: GUIDANCE,
  requires: "sound-graph",
  check(ctx) {
    const out: Finding<"template-order">[] = [];
    const dominators = dominatorsOf(ctx);
    for (const { resolution, scope, at, raw } of references(ctx)) {
      if (resolution.kind !== "step-output" || scope.stepId === undefined) continue;
      const target = resolution.target;
      const self = target.id === scope.stepId;
      const dominates = dominators.get(scope.stepId)?.has(target.id) ?? false;
      if ((!self || scope.selfVisible) && dominates) continue;
      const where = formatPath(at);
      out.push({
        rule: "template-order",
        ...locate(ctx.doc, at),
        message: self
          ? `${where}: step '${target.id}' uses its own output before it has run`
          : `${where}: '${raw}' is used in step '${scope.stepId}', but step '${target.id}' does not always run before it`,
        hint: GUIDANCE,
      });
    }
    return out;
  },
};
