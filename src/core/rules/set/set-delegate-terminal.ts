import { resolvedDelegations, setFinding } from "../analysis/set.js";
import type { SetFinding, SetRule } from "../rule.js";

/** A delegate comes back to its parent: the child has a way to end that does not hand off. */
export const setDelegateTerminal: SetRule<"set-delegate-terminal"> = {
  code: "set-delegate-terminal",
  layer: "set",
  severity: "error",
  summary: "a delegate target has no terminal that returns (every terminal hands off)",
  check(set) {
    const out: SetFinding<"set-delegate-terminal">[] = [];
    for (const { call, target } of resolvedDelegations(set)) {
      if (target.returns) continue;
      out.push(
        setFinding(
          call.from,
          "set-delegate-terminal",
          call.path,
          `'${call.target}' has no terminal that returns: every way it ends hands off`,
          `add a plain end step to '${call.target}', or use mode: handoff`,
        ),
      );
    }
    return out;
  },
};
