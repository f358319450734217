import { playbookError } from "../../engine/errors.js";
import type { Fork, LaneEnd } from "../../engine/state.js";
import type { ParallelStep } from "../../format/types.js";
import type { Outcome, StepExecutor } from "../types.js";
import type { JoinDecision } from "./types.js";

/**
 * A `parallel` step starts its branches and waits for its join. The engine runs the branches
 * (each a line of its own, see `Fork` in the run state); this module says what the join needs
 * and what the step's outputs are.
 */
export const parallelStep: StepExecutor<ParallelStep> = {
  kind: "parallel",
  // A retry would start every branch again; each branch's own steps retry by their on_error.
  retryable: false,
  enter({ step }): Outcome {
    return {
      type: "fork",
      lanes: branchNames(step).map((name) => ({
        name,
        first: step.branches[name]?.[0]?.id ?? "",
      })),
    };
  },
};

/** The branches, in the order they are written. */
export function branchNames(step: ParallelStep): string[] {
  return Object.keys(step.branches);
}

/** How many branches must complete for the step to be done. */
export function joinCount(step: ParallelStep): number {
  const join = step.join ?? "all";
  if (join === "all") return branchNames(step).length;
  if (join === "any") return 1;
  return join.count;
}

function count(fork: Fork, end: LaneEnd): number {
  return Object.values(fork.ended).filter((e) => e === end).length;
}

/** The names of the lanes that ended so, in the order they are written. */
export function endedAs(fork: Fork, end: LaneEnd, names: readonly string[]): string[] {
  return names.filter((n) => fork.ended[n] === end);
}

/** Whether a parallel step's join is met, can no longer be, or is still to come. */
export function joinDecision(step: ParallelStep, fork: Fork): JoinDecision {
  const names = branchNames(step);
  const completed = count(fork, "completed");
  const failed = count(fork, "failed");
  const running = names.length - Object.keys(fork.ended).length;
  const policy = step.on_branch_failure ?? "fail";
  if (failed > 0 && policy !== "continue") {
    const branch = endedAs(fork, "failed", names)[0] ?? "";
    return {
      type: "fail",
      error:
        policy === "fail" && fork.error
          ? fork.error
          : playbookError(
              "PB-BRANCH-FAILED",
              `branch '${branch}' of '${step.id}' failed${fork.error ? ` (${fork.error.code}: ${fork.error.message})` : ""}`,
            ),
    };
  }
  const need = joinCount(step);
  const all = (step.join ?? "all") === "all";
  // With `continue`, a failed branch has finished as far as `all` is concerned.
  if (all ? completed + failed === names.length : completed >= need)
    return { type: "done", outputs: parallelOutputs(fork, names) };
  if (completed + running + (all ? failed : 0) < need) {
    return {
      type: "fail",
      error: playbookError(
        "PB-JOIN-UNMET",
        `'${step.id}' needs ${need} completed branch(es) but only ${completed} can complete (failed: ${endedAs(fork, "failed", names).join(", ") || "none"})`,
      ),
    };
  }
  return { type: "wait" };
}

/** The step's outputs: which branches completed, failed and were cancelled, and the first. */
export function parallelOutputs(
  fork: Fork,
  names: readonly string[],
): { completed: string[]; failed: string[]; cancelled: string[]; first: string } {
  return {
    completed: endedAs(fork, "completed", names),
    failed: endedAs(fork, "failed", names),
    cancelled: endedAs(fork, "cancelled", names),
    first: fork.first ?? "",
  };
}
