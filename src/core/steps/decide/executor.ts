import type { Scalar, Value } from "../../engine/state.js";
import type { Conclusion, DecideStep, DecisionRule, DerivedFinding } from "../../format/types.js";
import {
  ExpressionError,
  evaluateExpression,
  parseExpression,
  type Resolver,
} from "../../format/expression.js";
import { stepTitle } from "../../format/graph.js";
import type { Outcome, StepExecutor } from "../types.js";
import {
  lines,
  list,
  renderMarkdown,
  strong,
  type Block,
  type InlineLike,
} from "../../markdown/comment.js";

/** A finding counts as present when it was recorded with a value that is not false or empty. */
export function present(findings: Record<string, Scalar>, key: string): boolean {
  if (!Object.hasOwn(findings, key)) return false;
  const v = findings[key];
  return !(v === null || v === false || v === 0 || v === "" || v === "false" || v === "no");
}

export function ruleMatches(rule: DecisionRule, findings: Record<string, Scalar>): boolean {
  return (
    (rule.all ?? []).every((f) => present(findings, f)) &&
    (rule.none ?? []).every((f) => !present(findings, f)) &&
    ((rule.any ?? []).length === 0 || (rule.any ?? []).some((f) => present(findings, f)))
  );
}

function conclusionOutputs(c: Conclusion, rule: string | null): Record<string, Value> {
  return {
    conclusion: c.conclusion,
    confidence: c.confidence ?? null,
    root_cause: c.root_cause ?? "",
    alternatives: c.alternatives ?? [],
    next_actions: c.next_actions ?? [],
    rule,
  };
}

/**
 * The step's derived findings, in order: each is recorded (`true`) when its expression holds
 * over the findings so far; one that does not parse (validation reports it) is not recorded.
 */
export function deriveFindings(
  derive: readonly DerivedFinding[],
  resolve: Resolver,
): Record<string, Scalar> {
  const derived: Record<string, Scalar> = {};
  const seen: Resolver = (path) =>
    path[0] === "findings" && path.length === 2 && Object.hasOwn(derived, path[1] as string)
      ? derived[path[1] as string]
      : resolve(path);
  for (const d of derive) {
    try {
      if (evaluateExpression(parseExpression(d.when), seen)) derived[d.finding] = true;
    } catch (err) {
      if (!(err instanceof ExpressionError)) throw err;
    }
  }
  return derived;
}

/** Rules over findings, first match wins; the fallback (or nothing) when none matches. */
export const decideStep: StepExecutor<DecideStep> = {
  kind: "decide",
  retryable: true,
  enter(ctx): Outcome {
    const step = ctx.step;
    const derived = deriveFindings(step.derive ?? [], ctx.resolve);
    const findings = { ...ctx.frame.findings, ...derived };
    const rule = step.rules.find((r) => ruleMatches(r, findings));
    const chosen: Conclusion | undefined = rule ?? step.fallback;
    const facts = (step.confirmed_facts ?? []).filter(
      (f) => f.finding === undefined || present(findings, f.finding),
    );
    const factLines: string[] = [];
    for (const f of facts) {
      const r = ctx.render(f.text, "plain");
      if (!r.ok) return { type: "fail", error: r.error };
      factLines.push(r.value);
    }
    const outputs = chosen
      ? conclusionOutputs(chosen, rule?.id ?? null)
      : {
          conclusion: null,
          confidence: null,
          root_cause: "",
          alternatives: [],
          next_actions: [],
          rule: null,
        };
    outputs.facts = factLines;
    // What the conclusion rests on: the findings of the matched rule that were present.
    outputs.evidence = rule
      ? [...(rule.all ?? []), ...(rule.any ?? [])].filter((f) => present(findings, f))
      : [];
    const head: InlineLike[][] = [
      [
        strong(stepTitle(step)),
        ": ",
        chosen
          ? `${chosen.conclusion}${chosen.confidence !== undefined ? ` (confidence ${chosen.confidence})` : ""}`
          : "no rule matched",
      ],
    ];
    if (chosen?.root_cause) head.push([`Root cause: ${chosen.root_cause}`]);
    if (factLines.length) head.push(["Confirmed facts:"]);
    const body: Block[] = [lines(...head)];
    if (factLines.length) body.push(list(factLines));
    const more: InlineLike[][] = [];
    if (chosen?.alternatives?.length)
      more.push([`Alternatives: ${chosen.alternatives.join("; ")}`]);
    if (chosen?.next_actions?.length) more.push(["Next actions:"]);
    if (more.length) body.push(lines(...more));
    if (chosen?.next_actions?.length) body.push(list(chosen.next_actions));
    const out: Outcome = {
      type: "done",
      outputs,
      ...(Object.keys(derived).length ? { findings: derived } : {}),
      messages: [{ kind: "report", text: renderMarkdown(...body) }],
    };
    if (chosen?.goto !== undefined) out.goto = chosen.goto;
    return out;
  },
};
