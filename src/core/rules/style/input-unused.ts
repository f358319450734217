import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

const MENTION = /inputs\.([A-Za-z0-9_-]+)|\$\{\s*([A-Za-z0-9_-]+)\s*\}/g;

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
    // Every name the playbook mentions, in one pass: `inputs.<name>` or a `${name}` placeholder.
    const used = new Set<string>();
    for (const m of `${text}\n${defaults}`.matchAll(MENTION)) used.add((m[1] ?? m[2]) as string);
    for (const name of Object.keys(playbook.inputs ?? {})) {
      if (used.has(name)) continue;
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
