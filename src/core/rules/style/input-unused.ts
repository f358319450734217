import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/** Every declared input is used: in a template, an expression, or another input's default. */
export const inputUnused: FileRule<"input-unused"> = {
  code: "input-unused",
  layer: "style",
  severity: "warning",
  summary: "an input is never used",
  check({ doc, playbook }) {
    const out: Finding<"input-unused">[] = [];
    const text = JSON.stringify({ ...playbook, inputs: undefined });
    const defaults = JSON.stringify(Object.values(playbook.inputs ?? {}).map((i) => i.default));
    for (const name of Object.keys(playbook.inputs ?? {})) {
      const escaped = name.replace(/[-]/g, "\\-");
      const used = new RegExp(`inputs\\.${escaped}(?![A-Za-z0-9_-])|\\$\\{\\s*${escaped}\\s*\\}`);
      if (used.test(text) || used.test(defaults)) continue;
      const at = locate(doc, ["inputs", name], true);
      out.push({
        rule: "input-unused",
        ...at,
        message: `${at.path}: input '${name}' is declared but never used`,
        hint: `use it as {{ inputs.${name} }}, or remove it`,
      });
    }
    return out;
  },
};
