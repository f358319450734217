import type { StepKind } from "./types.js";

/** Context variables a template or expression may name, besides inputs, steps and findings. */
export const CONTEXT_VARIABLES: Record<string, readonly string[]> = {
  issue: ["number", "title", "url", "author"],
  repo: ["owner", "name", "full_name", "default_branch"],
  run: ["id", "url", "initiator", "playbook", "started_at"],
  alert: [
    "title",
    "summary",
    "severity",
    "status",
    "source",
    "fingerprint",
    "url",
    "labels",
    "annotations",
  ],
};

/** Alert fields that hold maps, so `alert.labels.<name>` is allowed. */
export const CONTEXT_MAPS = new Set(["alert.labels", "alert.annotations"]);

/**
 * Outputs each step kind produces. `null`: the set depends on the step (a checkpoint's response
 * schema, a child playbook's outputs) and is checked where that is known.
 */
export const STEP_OUTPUTS: Record<StepKind, readonly string[] | null> = {
  comment: ["id", "url"],
  end: [],
  checkpoint: null,
  investigate: [],
  decide: ["conclusion", "confidence", "root_cause", "rule", "alternatives", "next_actions"],
  branch: ["name", "sha", "url", "created"],
  commit: ["sha", "url", "branch"],
  pull_request: ["number", "url", "head", "merged", "merge_sha"],
  issue: ["number", "url"],
  label: ["labels"],
  close: ["state"],
  dispatch: ["run_id", "url", "conclusion"],
  ai: ["text"],
  playbook: null,
};

/** Outputs every checkpoint has, besides the fields of its response schema. */
export const CHECKPOINT_OUTPUTS = ["approved_by", "note"];

/** Steps whose effects change the repository or the thread: authority applies to them. */
export const SIDE_EFFECT_KINDS: ReadonlySet<StepKind> = new Set([
  "branch",
  "commit",
  "pull_request",
  "issue",
  "label",
  "close",
  "dispatch",
  "comment",
]);
