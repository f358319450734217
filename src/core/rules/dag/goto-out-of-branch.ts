import { formatPath } from "../../format/source.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

const GUIDANCE =
  "a branch ends at its last step and joins its parallel step: go to steps of the same list only, and let the join lead on";

/** gotos stay in their list: no jump out of a branch or into one, and none in a needs: list. */
export const gotoOutOfBranch: FileRule<"goto-out-of-branch"> = {
  code: "goto-out-of-branch",
  layer: "graph",
  severity: "error",
  summary: "a goto leaves its branch, enters another, or is written in a needs: list",
  guidance: GUIDANCE,
  requires: "one-step-form",
  check({ doc, graph }) {
    const out: Finding<"goto-out-of-branch">[] = [];
    for (const s of graph.steps) {
      const list = graph.lists.get(s.list);
      if (list?.dag && s.step.next !== undefined) {
        const at = [...s.path, "next"];
        out.push({
          rule: "goto-out-of-branch",
          ...locate(doc, at, true),
          message: `${formatPath(at)}: '${s.id}' is in a list that runs by needs:, where steps go on by what needs them, not by next:`,
          hint: "remove next: and say the order with needs: on the steps that follow",
        });
      }
      for (const edge of graph.resolvedSuccessors(s.id)) {
        if (["fall-through", "fork", "join", "needs"].includes(edge.kind)) continue;
        const target = graph.byId.get(edge.to);
        if (!target || target.list === s.list) continue;
        const from = graph.branchOf(s.id);
        const into = graph.branchOf(edge.to);
        const message = from
          ? `'${s.id}' in branch '${from.branch}' of '${from.parallel}' goes to '${edge.to}', outside its branch`
          : `'${s.id}' goes to '${edge.to}', inside branch '${into?.branch ?? ""}' of '${into?.parallel ?? ""}'`;
        out.push({
          rule: "goto-out-of-branch",
          ...locate(doc, edge.path),
          message: `${formatPath(edge.path)}: ${message}`,
          found: `'${edge.to}'`,
          hint: GUIDANCE,
        });
      }
    }
    return out;
  },
};
