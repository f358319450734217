import { formatPath } from "../../format/source.js";
import { branchingSteps } from "../analysis/graph.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/** Each branch is one of when:, condition: or default:, with something in it; one default per step. */
export const branchEmpty: FileRule<"branch-empty"> = {
  code: "branch-empty",
  layer: "graph",
  severity: "error",
  summary: "a branch condition is empty",
  requires: "one-step-form",
  check(ctx) {
    const out: Finding<"branch-empty">[] = [];
    const finding = (at: (string | number)[], message: string, hint: string): void => {
      out.push({ rule: "branch-empty", ...locate(ctx.doc, at), message, hint });
    };
    for (const { branches } of branchingSteps(ctx)) {
      let defaults = 0;
      for (const { branch: b, path: bp, kinds } of branches) {
        if (kinds.length !== 1) {
          finding(
            bp,
            kinds.length === 0
              ? `${formatPath(bp)}: a branch needs when:, condition: or default:`
              : `${formatPath(bp)}: a branch has one of when:, condition: or default:, not ${kinds.join(" and ")}`,
            "write { when: <expression>, goto: <step> }, { condition: <prose>, goto: <step> } or { default: <step> }",
          );
        } else if (b.default !== undefined) {
          if (defaults++ > 0)
            finding(
              bp,
              `${formatPath(bp)}: a step has one default branch only`,
              "remove the extra default",
            );
          if (b.goto !== undefined || b.label !== undefined)
            finding(
              bp,
              `${formatPath(bp)}: a default branch names its target itself: { default: <step> }`,
              "remove goto/label from the default branch",
            );
        } else if ((b.when ?? b.condition ?? "").trim() === "") {
          const field = b.when !== undefined ? "when" : "condition";
          finding(
            [...bp, field],
            `${formatPath(bp)}: the branch's ${field} is empty`,
            "say when this branch applies",
          );
        }
      }
    }
    return out;
  },
};
