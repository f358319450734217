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
  if (!result.changed) {
    if (event.type !== "command" || result.reply?.outcome !== "refused") return [];
    return finish(before, before, event, now, [refusedAct(before, event, result.reply, env, now)]);
  }
  const acts = new Transition(before, event, result, env, now).acts();
  return finish(before, result.run, event, now, acts);
}

/** A refused command changes nothing, and is still recorded: who asked, and why it was not. */
function refusedAct(
  before: RunState,
  command: Extract<RunEvent, { type: "command" }>,
  reply: NonNullable<AdvanceResult["reply"]>,
  env: TraceEnv,
  now: string,
): Act {
  const frame = activeFrame(before);
  const step = stepOf(env, frame.playbook, frame.current);
  const act: Act = {
    depth: before.stack.length - 1,
    playbook: frame.playbook,
    time: now,
    authority: commandAuthority(command.actor, false),
    inputs: commandInputs(command),
    outcome: "refused",
    spanKey: seed("refused", before.id, before.seq, command.id),
  };
  if (frame.current) act.step = frame.current;
  if (step) act.kind = step.type;
  if (reply.reason) act.detail = reply.reason;
  return act;
}

/** The acts of one transition that changed the run, gathered in the order they are recorded. */
class Transition {
  private readonly after: RunState;
  private readonly command: Extract<RunEvent, { type: "command" }> | undefined;
  private readonly entries: TraceEntry[];
  private readonly list: Act[] = [];
  private readonly activeDepth: number;
  private readonly active: Frame;

  constructor(
    private readonly before: RunState,
    private readonly event: RunEvent,
    private readonly result: AdvanceResult,
    private readonly env: TraceEnv,
    private readonly now: string,
  ) {
    this.after = result.run;
    this.command = event.type === "command" ? event : undefined;
    this.entries = newEntries(before, this.after);
    this.activeDepth = this.after.stack.length - 1;
    this.active = activeFrame(this.after);
  }

  acts(): Act[] {
    const { before, after, command } = this;
    // Steps that finished.
    for (const f of this.result.finished) this.list.push(this.finishedAct(f));
    for (const effect of this.result.effects) this.effectAct(effect);
    // A delegation: the step that started a child playbook in this run.
    if (after.stack.length > before.stack.length && after.stack.length >= 2)
      this.list.push(this.delegationAct());
    if (!isFinished(after)) this.waitActs();
    this.effectOutputs();
    if (isFinished(after) && !isFinished(before)) this.list.push(this.endAct());
    // A command or an event that did none of the above is an act of its own.
    if (this.list.length === 0) this.list.push(this.plainAct());
    else if (command) for (const act of this.list) act.inputs ??= commandInputs(command);
    return this.list;
  }

  /** What the engine's bounded trace says of `step` in this transition, last. */
  private said(step: string | undefined): string | undefined {
    return this.entries.filter((e) => e.step === step).at(-1)?.outcome;
  }

  private frameAt(depth: number, playbook: string): Frame | undefined {
    const b = this.before.stack[depth];
    if (b?.playbook === playbook) return b;
    const a = this.after.stack[depth];
    return a?.playbook === playbook ? a : undefined;
  }

  private authorityFor(
    depth: number,
    playbook: string,
    step: Step | undefined,
    outputs?: Record<string, unknown>,
  ): TraceAuthority {
    const { after, command } = this;
    if (command) {
      const a = commandAuthority(command.actor, true);
      // An approval that completed: everyone whose vote counted.
      const by = outputs?.approved_by;
      if (answeredWithApproval(step) && Array.isArray(by) && by.length > 0)
        a.by = boundText(by.map(String).join(", "));
      return a;
    }
    const frame = after.stack[depth]?.playbook === playbook ? after.stack[depth] : undefined;
    return stepAuthority(
      after,
      frame ?? this.frameAt(depth, playbook),
      playbookOf(this.env, playbook),
      step,
    );
  }

  private has(depth: number, step: string | undefined): Act | undefined {
    return this.list.find((a) => a.depth === depth && a.step === step);
  }

  private finishedAct(f: StepFinished): Act {
    const step = stepOf(this.env, f.playbook, f.step);
    const frame = this.frameAt(f.depth, f.playbook);
    const afterFrame = this.after.stack[f.depth];
    const error =
      afterFrame?.playbook === f.playbook ? afterFrame.results[f.step]?.error : undefined;
    const act: Act = {
      depth: f.depth,
      playbook: f.playbook,
      step: f.step,
      kind: f.kind,
      time: startOf(frame, f.step, this.now),
      authority: this.authorityFor(f.depth, f.playbook, step, f.outputs),
      outcome: f.status === "completed" || f.status === "skipped" ? "success" : "failure",
    };
    const tool = step ? toolOfStep(step) : undefined;
    if (tool) act.tool = tool;
    if (f.outputs) act.outputs = f.outputs;
    if (error && DENIED.has(error.code)) act.authority.granted = false;
    const detail =
      this.said(f.step) ??
      (f.status === "completed" ? undefined : `${f.status}${error ? ` (${error.code})` : ""}`);
    if (detail) act.detail = detail;
    return act;
  }

  /** An effect asked for; a handoff goes with the act of the step that hands off. */
  private effectAct(effect: Effect): void {
    const { after, active, activeDepth, now } = this;
    if (effect.kind === "start_playbook") {
      // A handoff: the step that ended the run hands off; a run it starts links to this span.
      const at = this.list.find((a) => a.depth === 0 && a.step === effect.step);
      const target = at ?? {
        depth: 0,
        playbook: after.stack[0]?.playbook ?? "",
        step: effect.step,
        time: now,
        authority: this.authorityFor(0, after.stack[0]?.playbook ?? "", undefined),
        outcome: "success" as const,
      };
      target.tool = "playbook";
      target.delegation = { playbook: boundText(effect.params.playbook), mode: "handoff" };
      target.inputs = effect.params.inputs;
      target.spanKey = handoffKey(effect.key);
      if (!at) this.list.push(target);
      return;
    }
    const step = stepOf(this.env, active.playbook, effect.step);
    const act: Act = {
      depth: activeDepth,
      playbook: active.playbook,
      step: effect.step,
      tool: toolOfEffect(effect),
      time: now,
      authority: this.authorityFor(activeDepth, active.playbook, step),
      inputs: effect.params,
      outcome: "waiting",
      detail: this.said(effect.step) ?? `effect ${effect.kind} requested`,
    };
    if (step) act.kind = step.type;
    this.list.push(act);
  }

  private delegationAct(): Act {
    const after = this.after;
    const depth = after.stack.length - 2;
    const parent = after.stack[depth] as Frame;
    const child = after.stack[depth + 1] as Frame;
    const step = stepOf(this.env, parent.playbook, parent.current);
    const act: Act = {
      depth,
      playbook: parent.playbook,
      kind: step?.type ?? "playbook",
      tool: "playbook",
      time: this.now,
      authority: this.authorityFor(depth, parent.playbook, step),
      delegation: { playbook: boundText(child.playbook), mode: "delegate", run_id: after.id },
      inputs: child.inputs,
      outcome: "waiting",
      detail: this.said(parent.current ?? undefined) ?? `delegated to ${child.playbook}`,
      spanKey: delegationKey(after.id, after.stack.slice(0, depth + 1)),
    };
    if (parent.current) act.step = parent.current;
    return act;
  }

  /** Waits that began: a checkpoint or an ask-first gate (escalation), anything else (waiting). */
  private waitActs(): void {
    const { active, activeDepth } = this;
    const was = this.before.stack[activeDepth];
    const earlier = was?.playbook === active.playbook ? was : undefined;
    for (const [key, line] of keyedLines(active)) {
      if (line.phase !== "waiting" && line.phase !== "approval") continue;
      if (!line.current || this.has(activeDepth, line.current)) continue;
      const prior = earlier ? keyedLines(earlier).get(key) : undefined;
      const same =
        prior?.current === line.current && prior.phase === line.phase && prior.since === line.since;
      if (same) continue;
      const step = stepOf(this.env, active.playbook, line.current);
      const approval = line.phase === "approval" || answeredWithApproval(step);
      const act: Act = {
        depth: activeDepth,
        playbook: active.playbook,
        step: line.current,
        time: this.now,
        authority: this.authorityFor(activeDepth, active.playbook, step),
        outcome: approval ? "escalation" : "waiting",
        detail: this.said(line.current) ?? (approval ? "waiting for approval" : "waiting"),
      };
      if (step) act.kind = step.type;
      this.list.push(act);
    }
  }

  /** An effect's result: its outputs go with the act of the step that asked for it. */
  private effectOutputs(): void {
    const event = this.event;
    if (event.type !== "effect_result" || !event.ok) return;
    const before0 = activeFrame(this.before);
    const line = linesOf(before0).find((l) => l.phase === "effect" && l.effectKey === event.key);
    const act = line?.current
      ? this.list.find((a) => a.step === line.current && a.outputs === undefined)
      : undefined;
    if (act) act.outputs = event.outputs;
  }

  /** The run's end. */
  private endAct(): Act {
    const { after, command } = this;
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
      time: this.now,
      authority: command
        ? commandAuthority(command.actor, true)
        : stepAuthority(after, root, playbookOf(this.env, root.playbook), undefined),
      outcome,
      detail:
        after.end?.conclusion ??
        (after.error ? `${after.status} (${after.error.code})` : after.status),
    };
    if (after.outputs) act.outputs = after.outputs;
    if (command) act.inputs = commandInputs(command);
    return act;
  }

  /** A command or event that finished, asked for, delegated, awaited and ended nothing. */
  private plainAct(): Act {
    const { before, command } = this;
    const frame = activeFrame(before);
    const entry = this.entries.at(-1);
    const stepId = entry?.step ?? frame.current ?? undefined;
    const step = stepOf(this.env, frame.playbook, stepId);
    const depth = before.stack.length - 1;
    const act: Act = {
      depth,
      playbook: frame.playbook,
      time: this.now,
      authority: this.authorityFor(depth, frame.playbook, step),
      outcome: this.after.status === "waiting" ? "waiting" : "success",
    };
    if (stepId) act.step = stepId;
    if (step) act.kind = step.type;
    if (command) act.inputs = commandInputs(command);
    if (entry) act.detail = entry.outcome;
    return act;
  }
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
