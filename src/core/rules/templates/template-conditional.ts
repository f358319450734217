import { formatPath } from "../../format/source.js";
import { dominatorsOf, reachableTerminals } from "../analysis/graph.js";
import { references } from "../analysis/references.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/**
 * An output that may be empty: used in the playbook's outputs though the run can end without
 * passing its step, or produced by a step its if: may skip.
 */
export const templateConditional: FileRule<"template-conditional"> = {
  code: "template-conditional",
  layer: "templates",
  severity: "warning",
  summary: "a template uses an output of a step that may be skipped by its if",
  requires: "sound-graph",
  check(ctx) {
    const out: Finding<"template-conditional">[] = [];
    const dominators = dominatorsOf(ctx);
    const terminals = reachableTerminals(ctx);
    for (const { resolution, scope, at, raw } of references(ctx)) {
      if (resolution.kind !== "step-output") continue;
      const target = resolution.target;
      const where = formatPath(at);
      if (scope.stepId === undefined) {
        if (!terminals.every((t) => dominators.get(t)?.has(target.id)))
          out.push({
            rule: "template-conditional",
            ...locate(ctx.doc, at),
            message: `${where}: '${raw}' has no value when the run ends without passing step '${target.id}'`,
            hint: "the output is empty on those paths; make sure that is what you want",
          });
        continue;
      }
      const self = target.id === scope.stepId;
      const dominates = dominators.get(scope.stepId)?.has(target.id) ?? false;
      // Otherwise the use comes too early: template-order's finding.
      if (self || !dominates || target.step.if === undefined) continue;
      out.push({
        rule: "template-conditional",
        ...locate(ctx.doc, at),
        message: `${where}: step '${target.id}' may be skipped by its if, leaving '${raw}' empty`,
        hint: "guard this step with the same if, or remove the if from the producer",
      });
    }
    return out;
  },
};
