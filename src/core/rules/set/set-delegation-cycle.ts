import { delegationWalk, setFinding } from "../analysis/set.js";
import type { SetRule } from "../rule.js";

const GUIDANCE = "break the cycle, or use mode: handoff where the work does not need to come back";

/** Delegation is a call that returns: playbooks that delegate to each other never end. */
export const setDelegationCycle: SetRule<"set-delegation-cycle"> = {
  code: "set-delegation-cycle",
  layer: "set",
  severity: "error",
  summary: "playbooks delegate to each other in a cycle",
  guidance: GUIDANCE,
  check: (set) =>
    delegationWalk(set).cycles.map(({ call, cycle }) =>
      setFinding(
        call.from,
        "set-delegation-cycle",
        call.path,
        `delegation cycle: ${cycle.join(" → ")}`,
        GUIDANCE,
      ),
    ),
};
