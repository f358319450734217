import { formatPath } from "../../format/source.js";
import { ITEM_VARIABLES } from "../../format/vocabulary.js";
import { references } from "../analysis/references.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

const GUIDANCE = "use {{ item }} and {{ item_index }} only in a step that has for_each:";

/** `{{ item }}` and `{{ item_index }}` are used only in a step with `for_each:`. */
export const itemOutsideForEach: FileRule<"item-outside-for-each"> = {
  code: "item-outside-for-each",
  layer: "templates",
  severity: "error",
  summary: "item or item_index is used outside a for_each step",
  guidance: GUIDANCE,
  check(ctx) {
    const out: Finding<"item-outside-for-each">[] = [];
    for (const { ref, scope, at, raw } of references(ctx)) {
      if (!(ITEM_VARIABLES as readonly string[]).includes(ref[0] ?? "")) continue;
      const step = scope.stepId === undefined ? undefined : ctx.graph.byId.get(scope.stepId);
      if (step?.step.for_each !== undefined && at[at.length - 1] !== "for_each") continue;
      out.push({
        rule: "item-outside-for-each",
        ...locate(ctx.doc, at),
        message: `${formatPath(at)}: '${raw}' has a value only in the items of a for_each step${
          step?.step.for_each !== undefined
            ? ", and the list is read before any item exists"
            : step
              ? `, and '${step.id}' has no for_each`
              : ""
        }`,
        hint: GUIDANCE,
      });
    }
    return out;
  },
};
