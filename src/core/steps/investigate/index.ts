import type { InvestigateStep } from "../../format/types.js";
import type { ShapeProblem, StepKindPlugin } from "../kind.js";
import type { PathSegment } from "../../format/source.js";
import type { FindingRule } from "./findings.js";
import { expressionRefs, parseExpression } from "../../format/expression.js";

/** What a call's finding rules read: the call's result, and an item of it. */
const RESULT_NAMES = ["result", "item"];
const NAME = /^(result|item)(\.[A-Za-z0-9_-]+)*$/;

/** Every finding rule of the step's calls, with the path to it from the step. */
function callRules(step: InvestigateStep): { rule: FindingRule; at: PathSegment[] }[] {
  return (step.suggested_calls ?? []).flatMap((call, i) =>
    (call.findings ?? []).map((rule, j) => ({ rule, at: ["suggested_calls", i, "findings", j] })),
  );
}

/** The names a rule's `when` reads that are not the result's (a run's names are not in reach). */
function foreignNames(when: string | undefined): string[] {
  if (when === undefined) return [];
  try {
    return expressionRefs(parseExpression(when))
      .map((r) => r.path.join("."))
      .filter((name) => !NAME.test(name));
  } catch {
    return []; // the expression-syntax rule reports it
  }
}

/** A rule reads only the result: `when` and `value` name it or its item, `each` a part of it. */
function ruleNameProblems(rule: FindingRule, at: PathSegment[]): ShapeProblem[] {
  const out: ShapeProblem[] = [];
  const foreign = foreignNames(rule.when);
  if (foreign.length)
    out.push({
      at: [...at, "when"],
      message: `when: ${foreign.map((n) => `'${n}'`).join(", ")} ${foreign.length > 1 ? "are" : "is"} not in the call's result; a finding rule reads only result.<field> and item.<field>`,
      hint: "compare fields of the result here; use the run's values in a later step's if: or a decide step's derive:",
    });
  if (rule.each !== undefined && !(NAME.test(rule.each) && rule.each.startsWith("result")))
    out.push({
      at: [...at, "each"],
      message: `each: '${rule.each}' is not a name in the result`,
      hint: "write result.<field>, a list or mapping in the call's result",
    });
  if (rule.value !== undefined && !NAME.test(rule.value))
    out.push({
      at: [...at, "value"],
      message: `value: '${rule.value}' is not a name in the result or the item`,
      hint: "write result.<field> (or item.<field> with each:)",
    });
  else if (rule.value?.startsWith("item") && rule.each === undefined)
    out.push({
      at: [...at, "value"],
      message: "value: an item is read only with each:",
      hint: "add each: result.<list>, or read result.<field>",
    });
  return out;
}

export const investigateKind: StepKindPlugin<InvestigateStep> = {
  kind: "investigate",
  outputs: ["results", "chosen"],
  // An investigate step's calls name the outputs they take from their results.
  outputsOf: (step) => (step.suggested_calls ?? []).flatMap((c) => Object.keys(c.outputs ?? {})),
  // Besides what people record, the findings its calls' rules read from their results.
  expectedFindings: (step) => [
    ...(step.expected_findings ?? []),
    ...callRules(step).map(({ rule }) => rule.finding),
  ],
  expressions: (step) =>
    callRules(step).flatMap(({ rule, at }) =>
      rule.when === undefined ? [] : [{ text: rule.when, at: [...at, "when"], own: RESULT_NAMES }],
    ),
  shapeProblems: (step) => callRules(step).flatMap(({ rule, at }) => ruleNameProblems(rule, at)),
  // Calls the bot makes itself (`run: auto`) record their results as findings of any key.
  findsUnforeseen: (step) => (step.suggested_calls ?? []).some((c) => c.run === "auto"),
  canWait: () => true,
  answeredWith: "findings",
};
