import { durationMs } from "./policy.js";
import { ROOT_LINE, activeLines, laneView } from "./lanes.js";
import { activeFrame, isFinished, type Frame, type RunState } from "./state.js";
import { graphOf } from "../format/graph.js";
import { defaultRegistry, type StepRegistry } from "../steps/executors.js";
import type { PlaybookBundle } from "../steps/types.js";

/** What `wakeAt` reads: the run's playbooks (as the engine gets them) and the step kinds. */
export interface DeadlineEnv {
  playbooks: (id: string) => PlaybookBundle | undefined;
  registry?: StepRegistry;
}

const defaultSteps = defaultRegistry();

/**
 * The earliest time a run goes on by itself, as an ISO time: a retry's backoff, a waiting step's
 * `timeout`, what its kind waits for (a checkpoint's reminder), on every line of the active frame
 * (its lanes too), and the active playbook's `limits.timeout`. Undefined when nothing but people
 * or outside events move the run. Pure: the same run and playbooks give the same time, so a tick
 * that came early knows when to come back.
 */
export function wakeAt(run: RunState, env: DeadlineEnv): string | undefined {
  if (isFinished(run)) return undefined;
  const frame = activeFrame(run);
  const bundle = env.playbooks(frame.playbook);
  // A playbook that changed fails the run at its next event; only its backoffs are known.
  const known = bundle?.hash === frame.hash ? bundle : undefined;
  const times: number[] = [];
  const limit = known?.playbook.limits?.timeout;
  if (limit) times.push(Date.parse(run.startedAt) + durationMs(limit));
  const keys = known
    ? activeLines(frame, graphOf(known.playbook))
    : [ROOT_LINE, ...Object.keys(frame.lanes ?? {})];
  for (const key of keys) {
    const lane = key === ROOT_LINE ? undefined : frame.lanes?.[key];
    if (key !== ROOT_LINE && !lane) continue;
    const line = lane ? laneView(frame, lane) : frame;
    times.push(...lineTimes(line, known, env.registry ?? defaultSteps));
  }
  const due = times.filter(Number.isFinite);
  return due.length ? new Date(Math.min(...due)).toISOString() : undefined;
}

/** The times one line goes on by itself: its backoff, or its waiting step's deadlines. */
function lineTimes(
  line: Frame,
  bundle: PlaybookBundle | undefined,
  registry: StepRegistry,
): number[] {
  if (line.phase === "pending") return line.notBefore ? [Date.parse(line.notBefore)] : [];
  if ((line.phase !== "waiting" && line.phase !== "approval") || !bundle) return [];
  const step = graphOf(bundle.playbook).byId.get(line.current ?? "")?.step;
  if (!step) return [];
  const times = step.timeout ? [Date.parse(line.since) + durationMs(step.timeout)] : [];
  // What the kind does by itself happens only while the step waits (not at an ask-first gate).
  const own = line.phase === "waiting" ? registry.get(step.type)?.wakeTimes : undefined;
  if (own) times.push(...own(step, line));
  return times;
}
