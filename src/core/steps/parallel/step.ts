// The `parallel` step as TypeScript reads it; ./schema.ts is the contract it follows.
import type { StepBase } from "../../format/step-base.js";
import type { BRANCH_FAILURE_POLICIES } from "./schema.js";

/** What a `parallel` step waits for: every branch, any one, or a number of them. */
export type Join = "all" | "any" | { count: number };

export type BranchFailurePolicy = (typeof BRANCH_FAILURE_POLICIES)[number];

/** A `parallel` step whose branches hold steps of type S (the format's `Step`). */
export interface ParallelStepOf<S> extends StepBase {
  type: "parallel";
  /** Branch name → steps run in order; step ids are unique across the whole playbook. */
  branches: Record<string, S[]>;
  join?: Join;
  on_branch_failure?: BranchFailurePolicy;
}
