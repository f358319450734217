import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

// Two patterns, each led by a literal, rather than one alternation: the engine then skips to each
// literal instead of trying the pattern at every character of the playbook.
const MENTIONS = [/inputs\.([A-Za-z0-9_-]+)/g, /\$\{\s*([A-Za-z0-9_-]+)\s*\}/g];

/** Every declared input is used: in a template, an expression, or another input's default. */
export const inputUnused: FileRule<"input-unused"> = {
  code: "input-unused",
  layer: "style",
  severity: "warning",
  summary: "an input is never used",
  check({ doc, playbook }) {
    const out: Finding<"input-unused">[] = [];
    if (playbook.inputs === undefined) return out;
    const text = JSON.stringify({ ...playbook, inputs: undefined });
    const defaults = JSON.stringify(Object.values(playbook.inputs ?? {}).map((i) => i.default));
    // Every name the playbook mentions: `inputs.<name>` or a `${name}` placeholder.
    const used = new Set<string>();
    for (const written of [text, defaults])
      for (const mention of MENTIONS)
        for (const m of written.matchAll(mention)) used.add(m[1] as string);
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
