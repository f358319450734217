import { durationMs } from "../../engine/policy.js";
import type { Frame } from "../../engine/state.js";
import type { CheckpointStep } from "../../format/types.js";

/**
 * The times a waiting checkpoint acts by itself, in epoch ms: its reminder (until it was sent)
 * and its timeout. A tick at or after one of them reaches the step's `onEvent`.
 */
export function checkpointWakeTimes(
  step: CheckpointStep,
  line: Pick<Frame, "since" | "reminded">,
): number[] {
  const since = Date.parse(line.since);
  const times: number[] = [];
  if (step.reminder !== undefined && !line.reminded) times.push(since + durationMs(step.reminder));
  if (step.timeout !== undefined) times.push(since + durationMs(step.timeout));
  return times;
}
