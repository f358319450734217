import { formatPath, type PathSegment } from "../../format/source.js";
import type { DecisionRule } from "../../format/types.js";
import { diagnosticAt, locate } from "../../rules/context.js";
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

/**
 * With `require_evidence`, a conclusion rests on findings: a rule that names none under all or
 * any would conclude with no evidence at all.
 */
export const evidenceMissing: FileRule<"evidence-missing"> = {
  code: "evidence-missing",
  layer: "graph",
  severity: "error",
  summary: "a decision rule of a decide step that requires evidence names no findings",
  check({ doc, graph }) {
    const out: Finding<"evidence-missing">[] = [];
    for (const s of graph.steps) {
      if (s.step.type !== "decide" || s.step.require_evidence !== true) continue;
      s.step.rules.forEach((rule, i) => {
        if ((rule.all ?? []).length + (rule.any ?? []).length > 0) return;
        out.push(
          diagnosticAt(
            doc,
            "evidence-missing",
            [...s.path, "rules", i],
            `rule '${rule.id}' concludes '${rule.conclusion}' without naming any finding, and the step requires evidence`,
            "list the findings the conclusion rests on under all: or any:, or move it to fallback:",
          ),
        );
      });
    }
    return out;
  },
};
