import { playbookError, type PlaybookError } from "../../core/engine/errors.js";
import type { Effect } from "../../core/engine/events.js";

/**
 * A run's changes reach the repository's default branch only through a pull request people can
 * review: a commit onto it is refused before it is made, on every host that runs the GitHub App
 * (the app, the Actions bot, the simulation and the playground). Branch names are compared
 * without regard to case, as a case-insensitive checkout would see them. Local runs refuse it in
 * their git adapter, together with the branches checked out in a work tree.
 */
export function defaultBranchRefusal(
  effect: Effect,
  defaultBranch: string,
): PlaybookError | undefined {
  if (effect.kind !== "commit") return undefined;
  const branch = effect.params.branch;
  if (branch.toLowerCase() !== defaultBranch.toLowerCase()) return undefined;
  return playbookError(
    "PB-EFFECT-FAILED",
    `a run does not commit to '${branch}', the repository's default branch: create a branch with a branch step, commit to it and open a pull request`,
  );
}
