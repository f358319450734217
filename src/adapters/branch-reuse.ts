import { playbookError, type PlaybookError } from "../core/engine/errors.js";
import type { BranchParams, IfExists } from "../core/steps/branch/effect.js";
import { runTrailer } from "../runtime/effects.js";

export type { IfExists };

/** `new-name` tries `<name>` and then `<name>-2` up to this suffix. */
export const MAX_NAME_SUFFIX = 10;

/** What a branch effect asks for; `require_new: true` is the older spelling of `fail`. */
export function ifExists(params: BranchParams): IfExists {
  const v = params.if_exists;
  if (v === "reuse" || v === "fail" || v === "new-name") return v;
  return params.require_new === true ? "fail" : "reuse";
}

/** The names a branch effect may use, in the order it tries them. */
export function candidateNames(name: string, mode: IfExists): string[] {
  if (mode !== "new-name") return [name];
  const names = [name];
  for (let n = 2; n <= MAX_NAME_SUFFIX; n++) names.push(`${name}-${n}`);
  return names;
}

/** The run an effect key belongs to: keys are `<run id>/<step path>/<attempt>`. */
export function runOfKey(key: string): string {
  const slash = key.indexOf("/");
  return slash === -1 ? key : key.slice(0, slash);
}

export interface BranchCommit {
  sha: string;
  message: string;
}

/** Whether a commit carries a trailer of this run (from any of its steps or attempts). */
export function madeByRun(message: string, runId: string): boolean {
  const prefix = runTrailer(`${runId}/`);
  return message.split("\n").some((line) => line.trim().startsWith(prefix));
}

/** The commits (not on the base) that the run of this effect key did not make. */
export function foreignCommits(commits: readonly BranchCommit[], key: string): BranchCommit[] {
  const runId = runOfKey(key);
  return commits.filter((c) => !madeByRun(c.message, runId));
}

const HOW_TO_FIX =
  "delete or rename that branch (keep what you need from it first), or set `if_exists: new-name` on the step to use a fresh name; then retry";

/**
 * The branch holds commits this run did not make (and `unseen` more that could not be checked):
 * reusing it would put them in the run's pull request.
 */
export function foreignBranch(
  name: string,
  foreign: readonly BranchCommit[],
  unseen = 0,
): PlaybookError {
  const plural = (n: number): string => `${n} commit${n === 1 ? "" : "s"}`;
  const shown = foreign
    .slice(0, 3)
    .map((c) => `${c.sha.slice(0, 7)} "${(c.message.split("\n")[0] ?? "").slice(0, 60)}"`);
  if (foreign.length > shown.length) shown.push(`${foreign.length - shown.length} more`);
  const what = [
    foreign.length
      ? `holds ${plural(foreign.length)} this run did not make (${shown.join(", ")})`
      : "",
    unseen ? `has ${plural(unseen)} more than can be checked` : "",
  ].filter(Boolean);
  return playbookError(
    "GH-CONFLICT",
    `branch '${name}' already exists and ${what.join(" and ")}: ${HOW_TO_FIX}`,
  );
}

export function branchExists(name: string): PlaybookError {
  return playbookError(
    "GH-CONFLICT",
    `branch '${name}' already exists and the step requires a new one (if_exists: fail): delete it, or choose another name`,
  );
}

/** Every name `new-name` may use is taken by other work. */
export function noFreeName(name: string): PlaybookError {
  return playbookError(
    "GH-CONFLICT",
    `branches '${name}' to '${name}-${MAX_NAME_SUFFIX}' all exist and hold commits this run did not make: delete some of them, or choose another name`,
  );
}
