import { resolvedDelegations, setFinding } from "../analysis/set.js";
import type { SetFinding, SetRule } from "../rule.js";

/** A delegation maps only inputs the child declares, and every input it requires. */
export const setInputs: SetRule<"set-inputs"> = {
  code: "set-inputs",
  layer: "set",
  severity: "error",
  summary: "a sub-playbook call maps inputs the child does not declare or misses required ones",
  check(set) {
    const out: SetFinding<"set-inputs">[] = [];
    for (const { call, target } of resolvedDelegations(set)) {
      const declared = target.inputs ?? {};
      const mapped = call.with ?? {};
      for (const key of Object.keys(mapped)) {
        if (!Object.hasOwn(declared, key))
          out.push(
            setFinding(
              call.from,
              "set-inputs",
              [...call.path.slice(0, -1), "with", key],
              `'${call.target}' has no input '${key}'`,
              `map only its inputs: ${Object.keys(declared).join(", ") || "(none)"}`,
            ),
          );
      }
      for (const [name, spec] of Object.entries(declared)) {
        if (spec.required && spec.default === undefined && !Object.hasOwn(mapped, name))
          out.push(
            setFinding(
              call.from,
              "set-inputs",
              call.path,
              `'${call.target}' needs the input '${name}', which is not mapped in with:`,
              `add with: { ${name}: … }`,
            ),
          );
      }
    }
    return out;
  },
};
