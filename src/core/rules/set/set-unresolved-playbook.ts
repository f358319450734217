import { didYouMean } from "../../util/suggest.js";
import { callsById, lookupPlaybook, setFinding, targetIds } from "../analysis/set.js";
import type { SetFinding, SetRule } from "../rule.js";

/** Handoffs, delegations and playbook steps name a playbook of the set or a known one. */
export const setUnresolvedPlaybook: SetRule<"set-unresolved-playbook"> = {
  code: "set-unresolved-playbook",
  layer: "set",
  severity: "error",
  summary: "a handoff, delegate or playbook step names an unknown playbook",
  check(set) {
    const out: SetFinding<"set-unresolved-playbook">[] = [];
    for (const calls of callsById(set).values())
      for (const c of calls) {
        if (lookupPlaybook(set, c.target)) continue;
        const guess = didYouMean(c.target, targetIds(set));
        out.push(
          setFinding(
            c.from,
            "set-unresolved-playbook",
            c.path,
            `no playbook has id '${c.target}'${guess ? ` — did you mean '${guess}'?` : ""}`,
            guess ? `write '${guess}'` : "add that playbook, or fix the id",
          ),
        );
      }
    return out;
  },
};
