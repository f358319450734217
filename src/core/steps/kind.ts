import type { PathSegment } from "../format/source.js";
import type { Approvers, Step } from "../format/types.js";

/** A file next to the playbook a step reads (a template, a prompt), and where the step names it. */
export interface StepFileReference {
  rel: string;
  /** The path to the field, from the step. */
  at: PathSegment[];
}

/** A path in the repository a step writes or expects (the path-unsafe rule checks it stays inside). */
export interface StepRepoPath {
  path: string;
  /** The path to the field, from the step. */
  at: PathSegment[];
  /** How to write it instead, when it is unsafe. */
  hint: string;
  /** A glob (`*`, `**`): checked as if its wildcards were names. */
  glob: boolean;
}

/** A playbook a step delegates to (and comes back from) or hands off to, and where it names it. */
export interface PlaybookCall {
  target: string;
  kind: "delegate" | "handoff";
  /** The path to the field, from the step. */
  at: PathSegment[];
  /** The inputs it maps for the playbook, as written. */
  with?: Record<string, unknown>;
}

/** An expression a step holds beyond its `if` (checked by the expression rules). */
export interface StepExpression {
  text: string;
  /** The path to the field, from the step. */
  at: PathSegment[];
  /** Names it reads from the step's own values (a call's `result`), not from the run. */
  own?: readonly string[];
}

/** A way a step's fields do not fit together (the step-shape rule reports it). */
export interface ShapeProblem {
  /** The path to the field, from the step (empty: the step itself). */
  at: PathSegment[];
  message: string;
  hint: string;
  /** Underline the field's key rather than its value. */
  key?: boolean;
}

/**
 * What the rest of the code needs to know of one step kind besides how it runs, kept in the kind's
 * folder (src/core/steps/<kind>/index.ts) and listed once in ./registry.ts. Central modules ask the
 * registry instead of switching on a step's type; a hook left out means "nothing of that kind".
 * It is the kind's validation half: it never imports the kind's executor (./<kind>/executor.ts,
 * listed in ./executors.ts), so validating a playbook loads no executor and nothing they render.
 * What the format needs of the kind (its schema fragment, how it shapes the graph, whether it
 * ends its playbook) is in ./<kind>/schema.ts instead, which the format reads without executors.
 */
export interface StepKindPlugin<S extends Step = Step> {
  /** The kind's name: its folder's, and its steps' `type`. */
  readonly kind: S["type"];
  /**
   * The outputs every step of this kind produces. `null`: they depend on the step (a checkpoint's
   * response schema, a child playbook's outputs); `outputsOf` adds what a given step declares.
   */
  readonly outputs: readonly string[] | null;
  /** The outputs a given step produces besides `outputs`, from its own fields. */
  outputsOf?(step: S): readonly string[];
  /** Its effects change the repository or the thread, so a playbook's authority applies to it. */
  readonly sideEffect?: boolean;
  /** The tool a run's trace names for the step's act (default: none known before its effect). */
  tool?(step: S): string;
  /** The files next to the playbook the step reads: loaded with the playbook, checked by rules. */
  files?(step: S): StepFileReference[];
  /** The paths in the repository the step writes or expects. */
  repoPaths?(step: S): StepRepoPath[];
  /** The finding keys the step expects to establish. */
  expectedFindings?(step: S): readonly string[];
  /**
   * Whether the step may record findings of keys nobody wrote down: the results of tools the bot
   * calls on its own when the step starts.
   */
  findsUnforeseen?(step: S): boolean;
  /** The playbooks a run may go on to from this step: each one it delegates or hands off to. */
  calls?(step: S): PlaybookCall[];
  /** The expressions the step holds besides `if` (a branch's `when` is the graph's). */
  expressions?(step: S): StepExpression[];
  /** What does not fit together in the step's fields, beyond what the schema checks. */
  shapeProblems?(step: S): ShapeProblem[];
  /**
   * Whether the step can stop its run until something happens (a person, a workflow, a merge).
   * Default: only when it has a timeout.
   */
  canWait?(step: S): boolean;
  /**
   * What people answer the step with while it waits: an approval (`/approve`, `/reject`) or
   * findings and a choice (`/record`, `/choose`). Default: nothing (it waits for an event).
   */
  readonly answeredWith?: "approval" | "findings";
  /**
   * Whether the step may act only once a person approved: a step answered with an approval has
   * completed in the run, or else the step waits for an ask-first approval of its own.
   */
  actsAfterApproval?(step: S): boolean;
  /** Who may approve the step, when it is answered with an approval. */
  approvers?(step: S): Approvers | undefined;
  /**
   * How the step's node looks in a Mermaid flowchart: the brackets of its shape (default: a box)
   * and the words of the line under its title (default: its kind; null: none), as plain text.
   */
  readonly diagramNode?: { open: string; close: string; caption?: (step: S) => string[] | null };
}
