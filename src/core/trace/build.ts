import type { AdvanceResult, Effect, RunEvent, StepFinished } from "../engine/events.js";
import {
  activeFrame,
  isFinished,
  type Actor,
  type Frame,
  type Lane,
  type RunOrigin,
  type RunState,
  type TraceEntry,
} from "../engine/state.js";
import { graphOf } from "../format/graph.js";
import type { PlaybookDocument, Step } from "../format/types.js";
import { answeredWithApproval, hasSideEffects, toolOfStep } from "../steps/registry.js";
import type { PlaybookBundle } from "../steps/types.js";
import {
  APP_ACTOR,
  boundText,
  type TraceAuthority,
  type TraceDelegation,
  type TraceOutcome,
  type TraceRecord,
  type TraceRunSeed,
} from "./types.js";

/** What the builder reads besides the run: the time of the transition and the pinned playbooks. */
export interface TraceEnv {
  now: Date;
  playbooks: (id: string) => PlaybookBundle | undefined;
}

/** Errors that say an authority was not granted (a permission lost, a rejection, a refusal). */
const DENIED = new Set(["GH-PERMISSION", "PB-REJECTED", "PB-AI-TOOL-REFUSED", "PB-SCRIPT-REFUSED"]);

// ---- id seeds (the runtime hashes them) ----

function seed(...parts: (string | number)[]): string {
  return JSON.stringify(parts);
}

/** The seed of a run's own span: the parent of its records at depth 0. */
export function runSpanKey(runId: string): string {
  return seed("run", runId);
}

/**
 * The seed of the span that started a delegated playbook: the delegating step's record, and the
 * parent of the child's records. Named by the frames above the child (playbook, step, attempt),
 * so the same delegation always gets the same span.
 */
function delegationKey(runId: string, frames: readonly Frame[]): string {
  return seed("delegate", runId, ...frames.map((f) => `${f.playbook}:${f.current}@${f.attempt}`));
}

/** The seed of the span of a handoff (its `start_playbook` effect's key names it). */
function handoffKey(effectKey: string): string {
  return seed("handoff", effectKey);
}

/** The run a trace started with: a run started by a handoff carries on its origin's trace. */
export function rootRunOf(run: RunState): string {
  return run.origin?.root ?? run.id;
}

/** The origin a run started by `run`'s handoff (effect key `key`) records (see StartRequest). */
export function handoffOrigin(run: RunState, key: string): RunOrigin {
  return { run: run.id, root: rootRunOf(run), key };
}

/** A run's span, described for its trace. */
export function runSeed(run: RunState): TraceRunSeed {
  const s: TraceRunSeed = {
    run_id: run.id,
    root_run_id: rootRunOf(run),
    span_key: runSpanKey(run.id),
    playbook: boundText(run.stack[0]?.playbook ?? ""),
    status: run.status,
    initiator: boundText(run.initiator),
    started_at: run.startedAt,
    updated_at: run.updatedAt,
  };
  if (run.origin) {
    s.parent_key = handoffKey(run.origin.key);
    s.origin_run_id = run.origin.run;
  }
  if (run.error) s.error = boundText(run.error.code);
  return s;
}

// ---- small readers ----

function durationOf(time: string, end: string): number {
  const ms = Date.parse(end) - Date.parse(time);
  return Number.isFinite(ms) && ms > 0 ? Math.round(ms) : 0;
}

export function eventLabel(event: RunEvent): string {
  return event.type === "command" ? `/${event.command}` : event.type;
}

function stepOf(
  env: TraceEnv,
  playbook: string,
  step: string | null | undefined,
): Step | undefined {
  if (!step) return undefined;
  const bundle = env.playbooks(playbook);
  return bundle ? graphOf(bundle.playbook).byId.get(step)?.step : undefined;
}

function playbookOf(env: TraceEnv, id: string): PlaybookDocument | undefined {
  return env.playbooks(id)?.playbook;
}

/** The lines of a frame: its own and its lanes'. */
function linesOf(frame: Frame): (Frame | Lane)[] {
  return [frame, ...Object.values(frame.lanes ?? {})];
}

/** The lines of a frame by key: "" for its own, a lane's key for each lane. */
function keyedLines(frame: Frame): Map<string, Frame | Lane> {
  return new Map<string, Frame | Lane>([["", frame], ...Object.entries(frame.lanes ?? {})]);
}

/** When the act on `step` began: when its line began its phase, or now when it was just entered. */
function startOf(frame: Frame | undefined, step: string, now: string): string {
  const line = frame ? linesOf(frame).find((l) => l.current === step) : undefined;
  if (!line || line.phase === "pending") return now;
  return line.since <= now ? line.since : now;
}

function unique(list: readonly string[]): string[] {
  return [...new Set(list)];
}

/** The tool an effect uses: the tools it calls, the AI and its tools, git, or its kind. */
function toolOfEffect(effect: Effect): string {
  switch (effect.kind) {
    case "tool_call":
      return unique(effect.params.calls.map((c) => c.tool)).join(",") || "tool_call";
    case "ai":
      return effect.params.tools?.length ? `ai(${unique(effect.params.tools).join(",")})` : "ai";
    case "branch":
    case "commit":
      return "git";
    case "start_playbook":
      return "playbook";
    default:
      return effect.kind;
  }
}

/** The step's authority (its own, the playbook's default for side effects, or just-do-it). */
function stepAuthority(
  run: RunState,
  frame: Frame | undefined,
  playbook: PlaybookDocument | undefined,
  step: Step | undefined,
): TraceAuthority {
  const claim =
    step?.authority ??
    (!step || hasSideEffects(step) ? playbook?.authority?.default : undefined) ??
    "just-do-it";
  const approvers = step ? frame?.approvedBy?.[step.id] : undefined;
  return {
    claim,
    by: boundText(approvers?.length ? approvers.join(", ") : run.initiator),
    granted: true,
  };
}

function commandAuthority(actor: Actor, granted: boolean): TraceAuthority {
  return { claim: actor.permission ?? "none", by: boundText(actor.login), granted };
}

/** The raw inputs of a command: its words (digested by the runtime, never kept). */
function commandInputs(event: Extract<RunEvent, { type: "command" }>): unknown {
  return {
    command: event.command,
    positional: event.args.positional,
    values: event.args.values,
    text: event.args.text,
  };
}

/** An outcome from the text the engine wrote in its bounded trace. */
export function outcomeOfText(text: string): TraceOutcome {
  if (/\bfailed\b|\(failure\)/.test(text)) return "failure";
  if (/cancel/.test(text)) return "cancelled";
  if (/approval/.test(text) && /waiting/.test(text)) return "escalation";
  if (/waiting/.test(text)) return "waiting";
  return "success";
}

/** Entries the engine added to its bounded trace in this transition. */
function newEntries(before: RunState, after: RunState): TraceEntry[] {
  const added =
    after.trace.length + after.traceDropped - (before.trace.length + before.traceDropped);
  if (added <= 0) return [];
  return after.trace.slice(-Math.min(added, after.trace.length));
}

// ---- records ----

/** A record in the making: what differs from act to act. */
interface Act {
  depth: number;
  playbook: string;
  step?: string;
  kind?: string;
  tool?: string;
  time: string;
  authority: TraceAuthority;
  delegation?: TraceDelegation;
  inputs?: unknown;
  outputs?: unknown;
  outcome: TraceOutcome;
  detail?: string;
  /** A span seed of its own (a delegation, a handoff), in place of the transition's. */
  spanKey?: string;
}

/** The record of a run's start. */
export function startRecord(run: RunState, eventId: string, initiator: Actor): TraceRecord {
  const frame = run.stack[0] as Frame;
  return {
    run_id: run.id,
    root_run_id: rootRunOf(run),
    span_key: seed("span", run.id, run.seq, 0),
    parent_key: runSpanKey(run.id),
    seq: run.seq,
    time: run.startedAt,
    end: run.startedAt,
    duration_ms: 0,
    event: "start",
    event_id: boundText(eventId),
    actor: boundText(initiator.login),
    target: "run",
    authority: commandAuthority(initiator, true),
    playbook: boundText(frame.playbook),
    depth: 0,
    inputs: frame.inputs,
    outcome: "success",
    detail: run.origin ? boundText(`started by a handoff from run ${run.origin.run}`) : "started",
  };
}

/**
 * The records of one transition: pure, from the run before, the event and the engine's result.
 * Each act is one record: a step that finished, an effect asked for, a delegation, a wait that
 * began, the run's end; a command or event that did none of these is one record itself. An event
 * that changed nothing gives none, but for a refused command.
 */
export function traceRecords(
  before: RunState,
  event: RunEvent,
  result: AdvanceResult,
  env: TraceEnv,
): TraceRecord[] {
  const now = env.now.toISOString();
  const command = event.type === "command" ? event : undefined;
  if (!result.changed) {
    if (!command || result.reply?.outcome !== "refused") return [];
    const frame = activeFrame(before);
    const step = stepOf(env, frame.playbook, frame.current);
    const act: Act = {
      depth: before.stack.length - 1,
      playbook: frame.playbook,
      time: now,
      authority: commandAuthority(command.actor, false),
      inputs: commandInputs(command),
      outcome: "refused",
      spanKey: seed("refused", before.id, before.seq, event.id),
    };
    if (frame.current) act.step = frame.current;
    if (step) act.kind = step.type;
    if (result.reply.reason) act.detail = result.reply.reason;
    return finish(before, before, event, now, [act]);
  }

  const after = result.run;
  const acts: Act[] = [];
  const entries = newEntries(before, after);
  const said = (step: string | undefined): string | undefined =>
    entries.filter((e) => e.step === step).at(-1)?.outcome;
  const frameAt = (depth: number, playbook: string): Frame | undefined => {
    const b = before.stack[depth];
    if (b?.playbook === playbook) return b;
    const a = after.stack[depth];
    return a?.playbook === playbook ? a : undefined;
  };
  const authorityFor = (
    depth: number,
    playbook: string,
    step: Step | undefined,
    outputs?: Record<string, unknown>,
  ): TraceAuthority => {
    if (command) {
      const a = commandAuthority(command.actor, true);
      // An approval that completed: everyone whose vote counted.
      const by = outputs?.approved_by;
      if (answeredWithApproval(step) && Array.isArray(by) && by.length > 0)
        a.by = boundText(by.map(String).join(", "));
      return a;
    }
    const frame = after.stack[depth]?.playbook === playbook ? after.stack[depth] : undefined;
    return stepAuthority(after, frame ?? frameAt(depth, playbook), playbookOf(env, playbook), step);
  };
  const has = (depth: number, step: string | undefined): Act | undefined =>
    acts.find((a) => a.depth === depth && a.step === step);

  // Steps that finished.
  for (const f of result.finished) acts.push(finishedAct(f));
  function finishedAct(f: StepFinished): Act {
    const step = stepOf(env, f.playbook, f.step);
    const frame = frameAt(f.depth, f.playbook);
    const afterFrame = after.stack[f.depth];
    const error =
      afterFrame?.playbook === f.playbook ? afterFrame.results[f.step]?.error : undefined;
    const act: Act = {
      depth: f.depth,
      playbook: f.playbook,
      step: f.step,
      kind: f.kind,
      time: startOf(frame, f.step, now),
      authority: authorityFor(f.depth, f.playbook, step, f.outputs),
      outcome: f.status === "completed" || f.status === "skipped" ? "success" : "failure",
    };
    const tool = step ? toolOfStep(step) : undefined;
    if (tool) act.tool = tool;
    if (f.outputs) act.outputs = f.outputs;
    if (error && DENIED.has(error.code)) act.authority.granted = false;
    const detail =
      said(f.step) ??
      (f.status === "completed" ? undefined : `${f.status}${error ? ` (${error.code})` : ""}`);
    if (detail) act.detail = detail;
    return act;
  }

  // Effects asked for.
  const activeDepth = after.stack.length - 1;
  const active = activeFrame(after);
  for (const effect of result.effects) {
    if (effect.kind === "start_playbook") {
      // A handoff: the step that ended the run hands off; a run it starts links to this span.
      const at = acts.find((a) => a.depth === 0 && a.step === effect.step);
      const target = at ?? {
        depth: 0,
        playbook: after.stack[0]?.playbook ?? "",
        step: effect.step,
        time: now,
        authority: authorityFor(0, after.stack[0]?.playbook ?? "", undefined),
        outcome: "success" as const,
      };
      target.tool = "playbook";
      target.delegation = { playbook: boundText(effect.params.playbook), mode: "handoff" };
      target.inputs = effect.params.inputs;
      target.spanKey = handoffKey(effect.key);
      if (!at) acts.push(target);
      continue;
    }
    const step = stepOf(env, active.playbook, effect.step);
    const act: Act = {
      depth: activeDepth,
      playbook: active.playbook,
      step: effect.step,
      tool: toolOfEffect(effect),
      time: now,
      authority: authorityFor(activeDepth, active.playbook, step),
      inputs: effect.params,
      outcome: "waiting",
      detail: said(effect.step) ?? `effect ${effect.kind} requested`,
    };
    if (step) act.kind = step.type;
    acts.push(act);
  }

  // A delegation: the step that started a child playbook in this run.
  if (after.stack.length > before.stack.length && after.stack.length >= 2) {
    const depth = after.stack.length - 2;
    const parent = after.stack[depth] as Frame;
    const child = after.stack[depth + 1] as Frame;
    const step = stepOf(env, parent.playbook, parent.current);
    const act: Act = {
      depth,
      playbook: parent.playbook,
      kind: step?.type ?? "playbook",
      tool: "playbook",
      time: now,
      authority: authorityFor(depth, parent.playbook, step),
      delegation: { playbook: boundText(child.playbook), mode: "delegate", run_id: after.id },
      inputs: child.inputs,
      outcome: "waiting",
      detail: said(parent.current ?? undefined) ?? `delegated to ${child.playbook}`,
      spanKey: delegationKey(after.id, after.stack.slice(0, depth + 1)),
    };
    if (parent.current) act.step = parent.current;
    acts.push(act);
  }

  // Waits that began: a checkpoint or an ask-first gate (escalation), anything else (waiting).
  if (!isFinished(after)) {
    const was = before.stack[activeDepth];
    const earlier = was?.playbook === active.playbook ? was : undefined;
    for (const [key, line] of keyedLines(active)) {
      if (line.phase !== "waiting" && line.phase !== "approval") continue;
      if (!line.current || has(activeDepth, line.current)) continue;
      const prior = earlier ? keyedLines(earlier).get(key) : undefined;
      const same =
        prior?.current === line.current && prior.phase === line.phase && prior.since === line.since;
      if (same) continue;
      const step = stepOf(env, active.playbook, line.current);
      const approval = line.phase === "approval" || answeredWithApproval(step);
      const act: Act = {
        depth: activeDepth,
        playbook: active.playbook,
        step: line.current,
        time: now,
        authority: authorityFor(activeDepth, active.playbook, step),
        outcome: approval ? "escalation" : "waiting",
        detail: said(line.current) ?? (approval ? "waiting for approval" : "waiting"),
      };
      if (step) act.kind = step.type;
      acts.push(act);
    }
  }

  // An effect's result: its outputs go with the act of the step that asked for it.
  if (event.type === "effect_result" && event.ok) {
    const before0 = activeFrame(before);
    const line = linesOf(before0).find((l) => l.phase === "effect" && l.effectKey === event.key);
    const act = line?.current
      ? acts.find((a) => a.step === line.current && a.outputs === undefined)
      : undefined;
    if (act) act.outputs = event.outputs;
  }

  // The run's end.
  if (isFinished(after) && !isFinished(before)) {
    const root = after.stack[0] as Frame;
    const outcome: TraceOutcome =
      after.status === "cancelled"
        ? "cancelled"
        : after.status === "failed" || after.end?.status === "failure"
          ? "failure"
          : "success";
    const act: Act = {
      depth: 0,
      playbook: root.playbook,
      time: now,
      authority: command
        ? commandAuthority(command.actor, true)
        : stepAuthority(after, root, playbookOf(env, root.playbook), undefined),
      outcome,
      detail:
        after.end?.conclusion ??
        (after.error ? `${after.status} (${after.error.code})` : after.status),
    };
    if (after.outputs) act.outputs = after.outputs;
    if (command) act.inputs = commandInputs(command);
    acts.push(act);
  }

  // A command or an event that did none of the above is an act of its own.
  if (acts.length === 0) {
    const frame = activeFrame(before);
    const entry = entries.at(-1);
    const stepId = entry?.step ?? frame.current ?? undefined;
    const step = stepOf(env, frame.playbook, stepId);
    const depth = before.stack.length - 1;
    const act: Act = {
      depth,
      playbook: frame.playbook,
      time: now,
      authority: authorityFor(depth, frame.playbook, step),
      outcome: after.status === "waiting" ? "waiting" : "success",
    };
    if (stepId) act.step = stepId;
    if (step) act.kind = step.type;
    if (command) act.inputs = commandInputs(command);
    if (entry) act.detail = entry.outcome;
    acts.push(act);
  } else if (command) {
    for (const act of acts) act.inputs ??= commandInputs(command);
  }
  return finish(before, after, event, now, acts);
}

/** Records from acts: the fields every record of the transition shares, and the ids' seeds. */
function finish(
  before: RunState,
  after: RunState,
  event: RunEvent,
  now: string,
  acts: readonly Act[],
): TraceRecord[] {
  const actor = event.type === "command" ? boundText(event.actor.login) : APP_ACTOR;
  return acts.map((act, index) => {
    // The frames above a child were the same before and after: before, a child that returned
    // is still there.
    const frames = before.stack.length > act.depth ? before.stack : after.stack;
    const record: TraceRecord = {
      run_id: after.id,
      root_run_id: rootRunOf(after),
      span_key: act.spanKey ?? seed("span", after.id, after.seq, index),
      parent_key:
        act.depth === 0
          ? runSpanKey(after.id)
          : delegationKey(after.id, frames.slice(0, act.depth)),
      seq: after.seq,
      time: act.time,
      end: now,
      duration_ms: durationOf(act.time, now),
      event: eventLabel(event),
      event_id: boundText(event.id),
      actor,
      target: act.step ? boundText(`step ${act.step}`) : "run",
      authority: act.authority,
      playbook: boundText(act.playbook),
      depth: act.depth,
      outcome: act.outcome,
    };
    if (act.step) record.step = boundText(act.step);
    if (act.kind) record.kind = boundText(act.kind);
    if (act.tool) record.tool = boundText(act.tool);
    if (act.delegation) record.delegation = act.delegation;
    if (act.inputs !== undefined) record.inputs = act.inputs;
    if (act.outputs !== undefined) record.outputs = act.outputs;
    if (act.detail) record.detail = boundText(act.detail);
    return record;
  });
}

/**
 * Records rebuilt from a run state's bounded trace (`RunState.trace`): what is known when nothing
 * else kept the run's records. Their seeds are the entries' places in the trace, so reading the
 * same state again gives the same ids.
 */
export function summaryRecords(run: RunState): TraceRecord[] {
  const playbook = boundText(run.stack[0]?.playbook ?? "");
  return run.trace.map((e, i) => {
    const r: TraceRecord = {
      run_id: run.id,
      root_run_id: rootRunOf(run),
      span_key: seed("summary", run.id, run.traceDropped + i),
      parent_key: runSpanKey(run.id),
      seq: 0,
      time: e.start,
      end: e.end,
      duration_ms: durationOf(e.start, e.end),
      event: boundText(e.event),
      actor: boundText(e.actor ?? APP_ACTOR),
      target: e.step ? boundText(`step ${e.step}`) : "run",
      authority: { claim: "unknown", granted: true },
      playbook,
      depth: 0,
      outcome: outcomeOfText(e.outcome),
      detail: boundText(e.outcome),
    };
    if (e.step) r.step = boundText(e.step);
    return r;
  });
}
