import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

// Two patterns, each led by a literal, rather than one alternation: the engine then skips to each
// literal instead of trying the pattern at every character.
const INPUT_REF = /inputs\.([A-Za-z0-9_-]+)/g;
const PLACEHOLDER = /\$\{\s*([A-Za-z0-9_-]+)\s*\}/g;

/** The declared inputs not yet seen mentioned. */
type Unseen = Set<string>;

/** Removes from `unseen` every input a text mentions: `inputs.<name>` or a `${name}` placeholder. */
function mentionsIn(text: string, unseen: Unseen): void {
  if (text.includes("inputs."))
    for (const m of text.matchAll(INPUT_REF)) unseen.delete(m[1] as string);
  if (text.includes("${"))
    for (const m of text.matchAll(PLACEHOLDER)) unseen.delete(m[1] as string);
}

/** Every string of a value, its keys included, until every input was seen. */
function mentionsUnder(value: unknown, unseen: Unseen): void {
  if (unseen.size === 0) return;
  if (typeof value === "string") mentionsIn(value, unseen);
  else if (Array.isArray(value)) for (const v of value) mentionsUnder(v, unseen);
  else if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      mentionsIn(k, unseen);
      mentionsUnder(v, unseen);
    }
}

/** Every declared input is used: in a template, an expression, or another input's default. */
export const inputUnused: FileRule<"input-unused"> = {
  code: "input-unused",
  layer: "style",
  severity: "warning",
  summary: "an input is never used",
  requires: "whole-graph",
  check({ doc, playbook }) {
    const out: Finding<"input-unused">[] = [];
    if (playbook.inputs === undefined) return out;
    const unseen: Unseen = new Set(Object.keys(playbook.inputs));
    for (const [k, v] of Object.entries(playbook)) if (k !== "inputs") mentionsUnder(v, unseen);
    for (const input of Object.values(playbook.inputs)) mentionsUnder(input.default, unseen);
    for (const name of Object.keys(playbook.inputs)) {
      if (!unseen.has(name)) continue;
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
