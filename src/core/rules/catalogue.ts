import type { Diagnostic } from "../format/diagnostics.js";
import { RULE_MODULES } from "./index.js";
import type { Finding, Layer, RuleInfo, RuleMeta, Severity } from "./rule.js";

/**
 * The catalogue of validation rules, built from the rule modules registered in ./index.ts. Codes
 * are a contract (configs disable them, CI greps them); wording is not.
 */
export type { Layer, RuleInfo, Severity };

type RuleModule = (typeof RULE_MODULES)[number];

/** The codes a module declares: its own, or those of a pass. */
type DeclaredCodes<M> = M extends { readonly code: infer C extends string }
  ? C
  : M extends { readonly rules: readonly RuleMeta<infer C>[] }
    ? C
    : never;

export type RuleCode = DeclaredCodes<RuleModule>;

/** The rules a module declares, with their metadata. */
export function declaredRules(module: RuleModule): readonly RuleMeta<RuleCode>[] {
  return "rules" in module ? module.rules : [module];
}

function info(rule: RuleMeta<RuleCode>): RuleInfo {
  const { layer, severity, summary, guidance } = rule;
  return guidance === undefined
    ? { layer, severity, summary }
    : { layer, severity, summary, guidance };
}

export const RULES: Readonly<Record<RuleCode, RuleInfo>> = Object.fromEntries(
  RULE_MODULES.flatMap(declaredRules).map((r) => [r.code, info(r)]),
) as Record<RuleCode, RuleInfo>;

/** A diagnostic of a rule in the catalogue: its code is a RuleCode. */
export type RuleDiagnostic = Diagnostic & { rule: RuleCode };

export const RULE_CODES = Object.keys(RULES) as RuleCode[];

export function isRuleCode(code: string): code is RuleCode {
  return Object.hasOwn(RULES, code);
}

/** A rule's finding in `file`, at its rule's severity unless the finding says otherwise. */
export function makeDiagnostic(file: string, input: Finding<RuleCode>): RuleDiagnostic {
  const d: RuleDiagnostic = {
    rule: input.rule,
    severity: input.severity ?? RULES[input.rule].severity,
    path: input.path,
    message: input.message,
    ...input.span,
    file: input.span.file ?? file,
  };
  if (input.found !== undefined) d.found = input.found;
  if (input.expected !== undefined) d.expected = input.expected;
  if (input.hint !== undefined) d.hint = input.hint;
  return d;
}
