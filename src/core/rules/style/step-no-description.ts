import { stepTitle } from "../../format/graph.js";
import { formatPath } from "../../format/source.js";
import { stepKindSchemaOf } from "../../steps/schemas.js";
import type { FileRule, Finding } from "../rule.js";

const GUIDANCE =
  "add a description: people read it in the status comment while the step is current";

/** Every step has a name or a description: people read it in the status comment. */
export const stepNoDescription: FileRule<"step-no-description"> = {
  code: "step-no-description",
  layer: "style",
  severity: "warning",
  summary: "a step has neither name nor description",
  guidance: GUIDANCE,
  check({ doc, graph }) {
    const out: Finding<"step-no-description">[] = [];
    const nodes = graph.mode === "nodes";
    for (const s of graph.steps) {
      if (stepTitle(s.step) !== s.id || s.step.description !== undefined) continue;
      const nameIsNotTitle = stepKindSchemaOf(s.step.type)?.graph?.nameIsNotTitle;
      out.push({
        rule: "step-no-description",
        path: formatPath(s.path),
        span: doc.span(nodes ? s.path : [...s.path, "id"], nodes),
        message:
          nameIsNotTitle === undefined
            ? `${formatPath(s.path)}: step '${s.id}' has neither name nor description`
            : `${formatPath(s.path)}: step '${s.id}' has no description (${nameIsNotTitle})`,
        hint: GUIDANCE,
      });
    }
    return out;
  },
};
