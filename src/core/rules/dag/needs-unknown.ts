import { formatPath, type PathSegment } from "../../format/source.js";
import { didYouMean } from "../../util/suggest.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

const GUIDANCE = "name steps of the same list in needs: (a branch's steps, or the playbook's own)";

/** Every need names another step of the same list, once. */
export const needsUnknown: FileRule<"needs-unknown"> = {
  code: "needs-unknown",
  layer: "graph",
  severity: "error",
  summary: "needs: names no step of the same list",
  guidance: GUIDANCE,
  requires: "one-step-form",
  check({ doc, graph }) {
    const out: Finding<"needs-unknown">[] = [];
    for (const s of graph.steps) {
      const list = graph.lists.get(s.list);
      const seen = new Set<string>();
      (s.step.needs ?? []).forEach((need, i) => {
        const at: PathSegment[] = [...s.path, "needs", i];
        const where = formatPath(at);
        const add = (message: string, hint: string): void => {
          out.push({
            rule: "needs-unknown",
            ...locate(doc, at),
            message: `${where}: ${message}`,
            found: `'${need}'`,
            hint,
          });
        };
        const target = graph.byId.get(need);
        if (need === s.id) add(`step '${s.id}' needs itself, so it could never start`, "remove it");
        else if (seen.has(need)) add(`'${need}' is named twice`, "name each step once");
        else if (!target) {
          const guess = didYouMean(need, list?.ids ?? []);
          add(
            `'${need}' names no step${guess ? ` — did you mean '${guess}'?` : ""}`,
            guess ? `write '${guess}'` : GUIDANCE,
          );
        } else if (target.list !== s.list) {
          const place = graph.branchOf(need);
          add(
            `'${need}' is not in the same list as '${s.id}' (it is ${place ? `in branch '${place.branch}' of '${place.parallel}'` : "in the playbook's own steps"}); a step needs only steps of its own list`,
            GUIDANCE,
          );
        }
        seen.add(need);
      });
    }
    return out;
  },
};
