import type { Severity } from "../format/diagnostics.js";
import type { SetContext, SetFinding } from "./analysis/set.js";
import type { Finding, RuleContext } from "./context.js";

// What a validation rule is: a code (a contract: configs turn it off, CI greps it), its metadata,
// and its check. One module holds one rule; ./index.ts lists them.

export type { Severity };

/**
 * Layers run in order, and a file that fails an earlier layer is not checked by later ones (their
 * findings would be noise): syntax → schema → graph → templates and style; set runs across files.
 */
export type Layer = "syntax" | "schema" | "graph" | "templates" | "set" | "style";

/** A rule as the catalogue lists it. */
export interface RuleInfo {
  readonly layer: Layer;
  readonly severity: Severity;
  readonly summary: string;
  /** How to fix what the rule finds, where that is the same for every finding. */
  readonly guidance?: string;
}

export interface RuleMeta<Code extends string> extends RuleInfo {
  readonly code: Code;
}

// Finding and SetFinding live beside the helpers that make them, so those import nothing back.
export type { Finding };
export type { SetFinding };

/** What a single-file rule needs of the document before its check means anything. */
export type Requirement =
  /** Exactly one of steps: and nodes: (steps-and-nodes reports the rest): the graph is the playbook's. */
  | "one-step-form"
  /** No graph-layer error: references checked over unresolved targets would only add noise. */
  | "sound-graph"
  /**
   * The whole graph is there: one step form, every id once, and no step set aside for a schema
   * error (a stand-in's edges and fields are not the step's). Verdicts over all the steps
   * (reachability, cycles, endings, what nothing uses) wait for it: made over a partial graph they
   * would report a consequence as a cause.
   */
  | "whole-graph";

/** A rule over one playbook that passed the schema. */
export interface FileRule<Code extends string = string> extends RuleMeta<Code> {
  readonly layer: "graph" | "templates" | "style";
  readonly requires?: Requirement;
  check(ctx: RuleContext): Finding<Code>[];
}

/** A rule across the playbooks of one set (and the known playbooks they may name). */
export interface SetRule<Code extends string = string> extends RuleMeta<Code> {
  readonly layer: "set";
  check(set: SetContext): SetFinding<Code>[];
}

/**
 * Several codes that come from one pass that cannot be split (a loader, a JSON Schema check):
 * the module declares them together and maps the pass's problems to them.
 */
export interface RulePass<Code extends string, Input> {
  readonly rules: readonly RuleMeta<Code>[];
  check(input: Input): Finding<Code>[];
}
