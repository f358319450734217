import { formatPath, type PathSegment } from "../../format/source.js";
import type { DecisionRule } from "../../format/types.js";
import { locate } from "../../rules/context.js";
import type { FileRule, Finding } from "../../rules/rule.js";

/**
 * First match wins, so a decision rule is dead when an earlier rule matches every finding set
 * that it matches: the earlier rule's all ⊆ its all, none ⊆ its none, and (if the earlier has
 * any) one of those is among its all.
 */
export const ruleShadowed: FileRule<"rule-shadowed"> = {
  code: "rule-shadowed",
  layer: "graph",
  severity: "error",
  summary: "a decision rule can never match because an earlier rule always matches first",
  requires: "one-step-form",
  check({ doc, graph }) {
    const out: Finding<"rule-shadowed">[] = [];
    for (const s of graph.steps) {
      if (s.step.type !== "decide") continue;
      const rules = s.step.rules;
      rules.forEach((rule, i) => {
        const all = new Set(rule.all ?? []);
        const none = new Set(rule.none ?? []);
        if ([...all].some((f) => none.has(f))) return; // unsatisfiable; shadowing is moot
        const earlier = rules.slice(0, i).find((e) => entails(rule, e));
        if (!earlier) return;
        const at: PathSegment[] = [...s.path, "rules", i];
        out.push({
          rule: "rule-shadowed",
          path: formatPath(at),
          span: locate(doc, [...at, "id"]).span,
          message: `${formatPath(at)}: rule '${rule.id}' can never match: rule '${earlier.id}' above it matches whenever it does (first match wins)`,
          hint: `move '${rule.id}' above '${earlier.id}' (more specific rules first) or remove it`,
        });
      });
    }
    return out;
  },
};

/** Whether every finding set matching `rule` also matches `earlier`. */
function entails(rule: DecisionRule, earlier: DecisionRule): boolean {
  const all = new Set(rule.all ?? []);
  const none = new Set(rule.none ?? []);
  if (!(earlier.all ?? []).every((f) => all.has(f))) return false;
  if (!(earlier.none ?? []).every((f) => none.has(f))) return false;
  const any = earlier.any ?? [];
  return any.length === 0 || any.some((f) => all.has(f));
}
