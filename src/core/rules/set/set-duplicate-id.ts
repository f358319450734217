import { factsOf, membersById, setFinding } from "../analysis/set.js";
import type { SetFinding, SetRule } from "../rule.js";

/** Labels and /run find playbooks by id: one playbook per id in a set. */
export const setDuplicateId: SetRule<"set-duplicate-id"> = {
  code: "set-duplicate-id",
  layer: "set",
  severity: "error",
  summary: "two playbooks in one set share an id",
  check(set) {
    const out: SetFinding<"set-duplicate-id">[] = [];
    const first = membersById(set);
    for (const m of set.members) {
      const { id } = factsOf(m);
      const prev = first.get(id);
      if (prev && prev !== m)
        out.push(
          setFinding(
            m,
            "set-duplicate-id",
            ["id"],
            `playbook id '${id}' is also used by ${prev.doc.file}`,
            "give every playbook its own id (labels and /run find playbooks by id)",
          ),
        );
    }
    return out;
  },
};
