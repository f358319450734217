import type { BranchStep } from "../../format/types.js";

/**
 * When the branch exists: `reuse` it only if it holds nothing but this run's commits, `fail`
 * whatever it holds, or use the first `new-name` (`<name>-2`, `-3`, …) that is free or left by
 * this run.
 */
export type IfExists = NonNullable<BranchStep["if_exists"]>;

/** A branch made from `from` (default: the default branch on GitHub, HEAD locally). */
export type BranchParams = {
  name: string;
  from?: string;
  /** The older spelling of `if_exists: fail`. */
  require_new?: boolean;
  /** Default `reuse` (`fail` with `require_new`). */
  if_exists?: IfExists;
};

export type BranchOutputs = {
  /** The name used: the one asked for, or a fresh one with `if_exists: new-name`. */
  name: string;
  /** The branch's head. */
  sha: string;
  url: string;
  /** False when an existing branch of this run was reused. */
  created: boolean;
};

/** What the effect does, in words (a failure says what was being done). */
export const describeBranchEffect = (p: BranchParams): string => `create branch ${p.name}`;
