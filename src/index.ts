/** Library entry points: validation and rendering of playbooks. */
export { validateSet, validateSource, countBySeverity } from "./playbook/validate.js";
export type { FileReport, ValidateOptions, RuleSetting } from "./playbook/validate.js";
export type { Diagnostic } from "./playbook/diagnostics.js";
export { RULES, RULE_CODES } from "./playbook/rules.js";
export type { RuleCode, Severity } from "./playbook/rules.js";
export { PLAYBOOK_SCHEMA, API_VERSION, STEP_KINDS } from "./playbook/schema.js";
export type * from "./playbook/types.js";
export { PlaybookGraph } from "./playbook/graph.js";
export { renderMermaid } from "./playbook/mermaid.js";
export { parseExpression, evaluateExpression } from "./playbook/expression.js";
export { parseTemplate } from "./playbook/template.js";
