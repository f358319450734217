/**
 * The catalogue of validation rules. Codes are a contract (configs disable them, CI greps them);
 * wording is not. Each rule belongs to one layer; layers run in order and a file that fails an
 * earlier layer is not checked by later ones (their findings would be noise).
 */
export type Severity = "error" | "warning";
export type Layer = "syntax" | "schema" | "graph" | "templates" | "set" | "style";

export interface RuleInfo {
  readonly layer: Layer;
  readonly severity: Severity;
  readonly summary: string;
}

export const RULES = {
  "yaml-syntax": { layer: "syntax", severity: "error", summary: "the file is not valid YAML" },
  "yaml-duplicate-key": {
    layer: "syntax",
    severity: "error",
    summary: "a mapping repeats a key",
  },
  "yaml-limit": {
    layer: "syntax",
    severity: "error",
    summary: "the document exceeds a size, depth, node or alias limit",
  },
  "yaml-encoding": {
    layer: "syntax",
    severity: "error",
    summary: "the file is not UTF-8 text",
  },
  "schema-unknown-field": {
    layer: "schema",
    severity: "error",
    summary: "a field the format does not define",
  },
  "schema-missing-field": {
    layer: "schema",
    severity: "error",
    summary: "a required field is missing",
  },
  "schema-type": { layer: "schema", severity: "error", summary: "a value has the wrong type" },
  "schema-value": {
    layer: "schema",
    severity: "error",
    summary: "a value is not one of the allowed values",
  },
  "schema-format": {
    layer: "schema",
    severity: "error",
    summary: "a value does not have the required form (pattern, length, range)",
  },
  "schema-step-type": { layer: "schema", severity: "error", summary: "an unknown step kind" },
  "schema-api-version": {
    layer: "schema",
    severity: "error",
    summary: "apiVersion is missing or unsupported",
  },
  "schema-shape": {
    layer: "schema",
    severity: "error",
    summary: "a value matches none of the shapes allowed here",
  },
  "id-format": {
    layer: "schema",
    severity: "error",
    summary: "an id does not match ^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$",
  },
  "tool-format": {
    layer: "schema",
    severity: "error",
    summary: "a tool is not written as server/tool",
  },
  "step-duplicate-id": { layer: "graph", severity: "error", summary: "two steps share an id" },
  "steps-and-nodes": {
    layer: "graph",
    severity: "error",
    summary: "a playbook must have exactly one of steps or nodes",
  },
  "entrypoint-unresolved": {
    layer: "graph",
    severity: "error",
    summary: "the entrypoint names no node",
  },
  "goto-unresolved": { layer: "graph", severity: "error", summary: "a goto names no step" },
  "self-loop": { layer: "graph", severity: "error", summary: "a step branches to itself" },
  "branch-empty": { layer: "graph", severity: "error", summary: "a branch condition is empty" },
  "branch-mixed": {
    layer: "graph",
    severity: "error",
    summary: "when and condition branches are mixed in one step",
  },
  "branch-duplicate-label": {
    layer: "graph",
    severity: "error",
    summary: "two prose branches of one step share a label",
  },
  "terminal-missing": { layer: "graph", severity: "error", summary: "no step ends the playbook" },
  unreachable: { layer: "graph", severity: "error", summary: "a step cannot be reached" },
  "cycle-without-limit": {
    layer: "graph",
    severity: "error",
    summary: "the graph has a cycle but no limits.max_steps",
  },
  "handoff-not-terminal": {
    layer: "graph",
    severity: "error",
    summary: "handoff is only allowed on a terminal step",
  },
  "delegate-shape": {
    layer: "graph",
    severity: "error",
    summary: "a delegating step breaks the delegate rules",
  },
  "rule-shadowed": {
    layer: "graph",
    severity: "error",
    summary: "a decision rule can never match because an earlier rule always matches first",
  },
  "finding-unknown": {
    layer: "graph",
    severity: "warning",
    summary: "a finding is used but no step expects it",
  },
  "checkpoint-target": {
    layer: "graph",
    severity: "error",
    summary: "a checkpoint's on_reject or on_timeout names no step",
  },
  "input-default": {
    layer: "templates",
    severity: "error",
    summary: "an input default does not fit the input's type or constraints",
  },
  "input-shape": {
    layer: "templates",
    severity: "error",
    summary: "an input's constraints contradict each other or its type",
  },
  "regex-invalid": {
    layer: "templates",
    severity: "error",
    summary: "a regular expression does not compile on the linear-time engine",
  },
  "template-syntax": { layer: "templates", severity: "error", summary: "a template is malformed" },
  "template-unresolved": {
    layer: "templates",
    severity: "error",
    summary: "a template names something that does not exist",
  },
  "template-order": {
    layer: "templates",
    severity: "error",
    summary: "a template uses an output of a step that does not always run before it",
  },
  "template-conditional": {
    layer: "templates",
    severity: "warning",
    summary: "a template uses an output of a step that may be skipped by its if",
  },
  "expression-syntax": {
    layer: "templates",
    severity: "error",
    summary: "an if or when expression is malformed",
  },
  "file-missing": {
    layer: "templates",
    severity: "error",
    summary: "a file a step refers to does not exist",
  },
  "path-unsafe": {
    layer: "templates",
    severity: "error",
    summary: "a path is absolute, not normalised, leaves the repository or touches .git",
  },
  "ref-invalid": {
    layer: "templates",
    severity: "error",
    summary: "a branch name is not a valid, safe git ref",
  },
  "step-shape": {
    layer: "templates",
    severity: "error",
    summary: "a step's fields do not fit together (e.g. a commit with neither files nor paths)",
  },
  "ai-write-unapproved": {
    layer: "templates",
    severity: "error",
    summary: "an ai step with write scope has no checkpoint or ask-first approval before it",
  },
  "response-schema": {
    layer: "templates",
    severity: "error",
    summary: "a checkpoint's response_schema is not a valid JSON Schema",
  },
  "set-duplicate-id": {
    layer: "set",
    severity: "error",
    summary: "two playbooks in one set share an id",
  },
  "set-unresolved-playbook": {
    layer: "set",
    severity: "error",
    summary: "a handoff, delegate or playbook step names an unknown playbook",
  },
  "set-delegation-cycle": {
    layer: "set",
    severity: "error",
    summary: "playbooks delegate to each other in a cycle",
  },
  "set-depth": {
    layer: "set",
    severity: "error",
    summary: "delegation nests deeper than limits.max_depth",
  },
  "set-delegate-terminal": {
    layer: "set",
    severity: "error",
    summary: "a delegate target has no terminal that returns (every terminal hands off)",
  },
  "set-inputs": {
    layer: "set",
    severity: "error",
    summary: "a sub-playbook call maps inputs the child does not declare or misses required ones",
  },
  "input-unused": { layer: "style", severity: "warning", summary: "an input is never used" },
  "step-no-description": {
    layer: "style",
    severity: "warning",
    summary: "a step has neither name nor description",
  },
} as const satisfies Record<string, RuleInfo>;

export type RuleCode = keyof typeof RULES;

export const RULE_CODES = Object.keys(RULES) as RuleCode[];

export function isRuleCode(code: string): code is RuleCode {
  return Object.hasOwn(RULES, code);
}
