import { DEFAULT_MAX_DEPTH, delegationWalk, factsOf, setFinding } from "../analysis/set.js";
import type { SetFinding, SetRule } from "../rule.js";

const GUIDANCE = "raise limits.max_depth or flatten the delegation";

/** Delegation from a playbook nests no deeper than its limits.max_depth. */
export const setDepth: SetRule<"set-depth"> = {
  code: "set-depth",
  layer: "set",
  severity: "error",
  summary: "delegation nests deeper than limits.max_depth",
  guidance: GUIDANCE,
  check(set) {
    const out: SetFinding<"set-depth">[] = [];
    for (const [m, depth] of delegationWalk(set).depths) {
      const { id, maxDepth = DEFAULT_MAX_DEPTH } = factsOf(m);
      if (depth > maxDepth)
        out.push(
          setFinding(
            m,
            "set-depth",
            ["id"],
            `delegation from '${id}' nests ${depth} levels deep, more than limits.max_depth ${maxDepth}`,
            GUIDANCE,
          ),
        );
    }
    return out;
  },
};
