import { factsOf, setFinding } from "../analysis/set.js";
import type { SetFinding, SetRule } from "../rule.js";

/**
 * The bot's system playbooks (the default alert triage) are a contract: a repository may not
 * replace or disable one by reusing its id. The attempt is reported where it is written; the
 * system playbook keeps running.
 */
export const setLockedId: SetRule<"set-locked-id"> = {
  code: "set-locked-id",
  layer: "set",
  severity: "error",
  summary: "a playbook reuses the id of a system playbook, which cannot be overridden",
  check(set) {
    const out: SetFinding<"set-locked-id">[] = [];
    const locked = new Map(set.known.filter((k) => k.locked === true).map((k) => [k.id, k]));
    for (const m of set.members) {
      const system = locked.get(factsOf(m).id);
      // The system playbook itself (validated with the library) is not an override of itself.
      if (!system || JSON.stringify(system.playbook) === JSON.stringify(m.playbook)) continue;
      out.push(
        setFinding(
          m,
          "set-locked-id",
          ["id"],
          `'${m.playbook.id}' is a system playbook of the bot: a repository cannot replace${m.playbook.active === false ? " or disable" : ""} it, so this file is not used`,
          "give this playbook an id of its own (and an on.alerts selector with a priority, to be chosen for alerts)",
        ),
      );
    }
    return out;
  },
};
