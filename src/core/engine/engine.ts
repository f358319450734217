import { playbookError, type PlaybookError } from "./errors.js";
import { contractBreach } from "./contracts.js";
import type { AdvanceResult, Effect, Message, Reply, RunEvent, StepFinished } from "./events.js";
import { resolveInputs, type InputProblem } from "./inputs.js";
import { wakeAt } from "./deadlines.js";
import {
  ASK_FIRST_APPROVERS,
  atLeast,
  backoffMs,
  durationMs,
  errorAction,
  runPermissionOf,
} from "./policy.js";
import {
  NEEDS_FORK,
  ROOT_LINE,
  activeLines,
  forEachItems,
  forEachLimits,
  forEachOutputs,
  hostedFork,
  laneView,
  lanesOf,
  lineOf,
  needsForkKey,
  storeView,
} from "./lanes.js";
import { renderTemplate, runResolver } from "./render.js";
import {
  DEFAULT_MAX_STEPS,
  MAX_ORIGIN_KEY,
  MAX_RECENT_EVENTS,
  MAX_TRACE,
  STATE_VERSION,
  activeFrame,
  capValue,
  isFinished,
  laneKey,
  makeRunId,
  pushBounded,
  type Actor,
  type Fork,
  type Frame,
  type Lane,
  type LaneEnd,
  type RunContext,
  type RunOrigin,
  type RunState,
  type Scalar,
  type StepResult,
  type Value,
} from "./state.js";
import { castVote, waitingMessage } from "../steps/checkpoint/executor.js";
import {
  code,
  lines,
  paragraph,
  renderMarkdown,
  strong,
  type InlineLike,
} from "../markdown/comment.js";
import { authorMarkdown } from "../markdown/author.js";
import {
  actsAfterApproval,
  answeredWithApproval,
  callsOf,
  endsPlaybook,
  hasSideEffects,
  stepKind,
} from "../steps/registry.js";
import { defaultRegistry, type StepRegistry } from "../steps/executors.js";
import type { Outcome, PlaybookBundle, StepContext } from "../steps/types.js";
import { evaluateExpression, expressionRefs, parseExpression } from "../format/expression.js";
import { graphOf as graphOfPlaybook, stepTitle, type PlaybookGraph } from "../format/graph.js";
import type { ParallelStep, Step } from "../format/types.js";
import { branchNames, joinDecision, parallelOutputs } from "../steps/parallel/executor.js";
import type { JoinDecision } from "../steps/parallel/types.js";
import type { StepList } from "../format/graph.js";
import { FOR_EACH_LIMITS } from "../format/schema.js";
import { AI_TOOL_CALLS_PER_STEP, type AiParams } from "../steps/ai/effect.js";
import { foldResults, MAX_FINDINGS, MAX_OUTPUTS_PER_STEP, stepStatus } from "./state-bounds.js";
import { startRecord, traceRecords } from "../trace/build.js";

export const DEFAULT_MAX_DEPTH = 10;

export interface EngineEnv {
  now: Date;
  /** Playbooks by id, in the versions this run is pinned to (the root and any delegates). */
  playbooks: (id: string) => PlaybookBundle | undefined;
  /** Why a playbook of this id is not among them: the report of its file, which did not load. */
  invalidPlaybook?: (id: string) => InvalidPlaybook | undefined;
  registry?: StepRegistry;
}

/** A playbook file that did not load, as its validation report tells it. */
export interface InvalidPlaybook {
  file: string;
  diagnostics: readonly { severity: string; message: string; line?: number }[];
}

/** How many of an invalid playbook's errors a failure names. */
const NAMED_FINDINGS = 3;

/** Why a delegated playbook cannot run: its file and its first errors, with their lines. */
function invalidPlaybookError(id: string, report: InvalidPlaybook): PlaybookError {
  const errors = report.diagnostics.filter((d) => d.severity === "error");
  const named = errors
    .slice(0, NAMED_FINDINGS)
    .map((d) => (d.line !== undefined ? `line ${d.line}: ${d.message}` : d.message));
  const more =
    errors.length > NAMED_FINDINGS ? ` (and ${errors.length - NAMED_FINDINGS} more)` : "";
  return playbookError(
    "PB-PLAYBOOK-INVALID",
    `playbook '${id}' cannot run: ${report.file} is invalid — ${named.join("; ")}${more}`,
  );
}

export interface StartRequest {
  bundle: PlaybookBundle;
  /** Raw input values (from `collectInputs`); checked and converted here. */
  inputs: Record<string, Scalar>;
  initiator: Actor;
  eventId: string;
  context?: RunContext;
  /**
   * Makes the run id unique in the repository among runs started in the same minute (the id is
   * `<date>-<time>-<token>`): the caller's own separator, such as the issue number, or random
   * characters. Effect keys, commit trailers and hidden markers all start with the run id.
   */
  runToken?: string;
  /** Without a token: a three-digit index (`001`), for fixed ids in tests and playbook tests. */
  runIndex?: number;
  /** Set when another run's handoff starts this one: the new run carries on its trace. */
  origin?: RunOrigin;
}

/** The part of a run id after its date and time. */
function runTail(req: StartRequest): string | number {
  return req.runToken ?? req.runIndex ?? 1;
}

export type StartResult =
  | { ok: true; result: AdvanceResult }
  | { ok: false; error: PlaybookError; problems: InputProblem[] };

/** Tool calls one run may make when its playbook sets no limits.max_tool_calls. */
export const DEFAULT_MAX_TOOL_CALLS = 50;

/** What a `silent` playbook still tells people: what needs them. */
const SILENT_TOLD: ReadonlySet<Message["kind"]> = new Set(["waiting", "reminder", "failure"]);

function graphOf(bundle: PlaybookBundle): PlaybookGraph {
  return graphOfPlaybook(bundle.playbook);
}

const defaultSteps = defaultRegistry();

/** Start a run: inputs are checked all at once; the first step is entered by the next continuation. */
export function start(req: StartRequest, env: EngineEnv): StartResult {
  const inputs = resolveInputs(req.bundle.playbook.inputs, req.inputs);
  if (!inputs.ok) {
    return {
      ok: false,
      problems: inputs.problems,
      error: playbookError(
        "PB-INPUT-INVALID",
        `inputs of '${req.bundle.playbook.id}' are invalid: ${inputs.problems.map((p) => p.message).join("; ")}`,
      ),
    };
  }
  const now = env.now.toISOString();
  const graph = graphOf(req.bundle);
  const frame = newFrame(req.bundle, inputs.values, graph.entry ?? null, now);
  const run: RunState = {
    v: STATE_VERSION,
    id: makeRunId(env.now, runTail(req)),
    status: "running",
    initiator: req.initiator.login,
    startedAt: now,
    updatedAt: now,
    seq: 1,
    steps: 0,
    stack: [frame],
    context: req.context ?? {},
    recentEvents: [req.eventId],
    trace: [
      { event: "start", actor: req.initiator.login, outcome: "started", start: now, end: now },
    ],
    traceDropped: 0,
  };
  if (req.initiator.permission) run.initiatorPermission = req.initiator.permission;
  if (req.origin)
    run.origin = {
      run: req.origin.run,
      root: req.origin.root,
      key: req.origin.key.slice(0, MAX_ORIGIN_KEY),
    };
  return {
    ok: true,
    result: {
      run,
      effects: [],
      finished: [],
      records: [startRecord(run, req.eventId, req.initiator)],
      // A silent playbook does not announce itself either.
      messages: req.bundle.playbook.interaction_mode?.includes("silent")
        ? []
        : [
            {
              kind: "info",
              text: renderMarkdown(
                paragraph(
                  `Run ${run.id} of `,
                  strong(req.bundle.playbook.name ?? req.bundle.playbook.id),
                  ` started by @${req.initiator.login}.`,
                ),
              ),
            },
          ],
      continue: true,
      changed: true,
    },
  };
}

function newFrame(
  bundle: PlaybookBundle,
  inputs: Record<string, Scalar>,
  entry: string | null,
  now: string,
): Frame {
  const f: Frame = {
    playbook: bundle.playbook.id,
    hash: bundle.hash,
    inputs,
    current: entry,
    phase: "pending",
    since: now,
    attempt: 1,
    attempts: entry ? { [entry]: 1 } : {},
    results: {},
    findings: {},
    votes: [],
  };
  if (bundle.commit !== undefined) f.commit = bundle.commit;
  return f;
}

/**
 * Advance a run by one event: at most one step transition. Pure: the same run, event and clock
 * always give the same result; nothing here does I/O.
 */
export function advance(run: RunState, event: RunEvent, env: EngineEnv): AdvanceResult {
  const result = transition(run, event, env);
  const records = traceRecords(run, event, result, env);
  if (records.length > 0) result.records = records;
  return result;
}

function transition(run: RunState, event: RunEvent, env: EngineEnv): AdvanceResult {
  if (run.recentEvents.includes(event.id))
    return unchanged(run, env, { outcome: "ignored", reason: "this event was already handled" });
  if (event.type === "continue" && event.seq !== run.seq) return unchanged(run, env);
  return new Transition(structuredClone(run), event, env).run();
}

/** Nothing changed; the result still says when the run goes on by itself (a tick came early). */
function unchanged(run: RunState, env: EngineEnv, reply?: Reply): AdvanceResult {
  const r: AdvanceResult = {
    run,
    effects: [],
    messages: [],
    finished: [],
    continue: false,
    changed: false,
  };
  if (reply) r.reply = reply;
  const w = wakeAt(run, env);
  if (w) r.wakeAt = w;
  return r;
}

class Transition {
  private readonly effects: Effect[] = [];
  private readonly messages: Message[] = [];
  private reply: Reply | undefined;
  private readonly now: string;
  private readonly registry: StepRegistry;
  private changed = true;
  private stepOutcome = "";
  private readonly finished: StepFinished[] = [];
  /** The step the event found current: what the trace names when no step finished. */
  private readonly stepAtStart: string | undefined;

  constructor(
    private readonly draft: RunState,
    private readonly event: RunEvent,
    private readonly env: EngineEnv,
  ) {
    this.now = env.now.toISOString();
    this.registry = env.registry ?? defaultSteps;
    this.stepAtStart = activeFrame(draft).current ?? undefined;
  }

  run(): AdvanceResult {
    const frame = activeFrame(this.draft);
    const bundle = this.env.playbooks(frame.playbook);
    if (!bundle || bundle.hash !== frame.hash) {
      if (!isFinished(this.draft)) {
        this.failRun(
          playbookError(
            "PB-PLAYBOOK-CHANGED",
            bundle
              ? `playbook '${frame.playbook}' changed since this run started (pinned to ${frame.hash.slice(0, 12)})`
              : `playbook '${frame.playbook}' is no longer available`,
          ),
        );
        return this.result();
      }
    }
    if (isFinished(this.draft)) return this.onFinished();
    this.dispatch();
    this.settle();
    return this.result();
  }

  private onFinished(): AdvanceResult {
    const e = this.event;
    if (e.type === "command" && e.command === "retry" && this.draft.status === "failed") {
      this.retry(e.actor);
      return this.result();
    }
    if (e.type === "command")
      return unchanged(this.draft, this.env, {
        outcome: "refused",
        reason: `run ${this.draft.id} has ended (${this.draft.status})`,
      });
    return unchanged(this.draft, this.env);
  }

  /** The line the transition works on: the active frame's own, or one of its lanes. */
  private line = ROOT_LINE;
  private view: Frame | undefined;
  /** Lanes that ended in this transition, settled into their forks by `settle`. */
  private readonly endedLanes: { key: string; end: LaneEnd; error?: PlaybookError }[] = [];

  /** The current line as a frame: where its step stands, and the frame's values. */
  private frame(): Frame {
    return this.view ?? activeFrame(this.draft);
  }

  /** Work on one line: the frame's own, or a lane through its view (written back after). */
  private inLine(key: string, work: () => void): void {
    if (key === ROOT_LINE) {
      const saved = [this.line, this.view] as const;
      this.line = ROOT_LINE;
      this.view = undefined;
      try {
        work();
      } finally {
        [this.line, this.view] = saved;
      }
      return;
    }
    const host = activeFrame(this.draft);
    const lane = host.lanes?.[key];
    if (!lane) return;
    const saved = [this.line, this.view] as const;
    const view = laneView(host, lane);
    this.line = key;
    this.view = view;
    try {
      work();
    } finally {
      // A lane that ended in `work` may be gone already.
      if (host.lanes?.[key] === lane) storeView(view, lane);
      [this.line, this.view] = saved;
    }
  }

  /** Each line in turn (in the playbook's order); the event changed the run if it changed one. */
  private eachLine(lines: readonly string[], work: () => void, stopAtFirst = false): void {
    let any = false;
    for (const key of lines) {
      if (isFinished(this.draft)) break;
      if (key !== ROOT_LINE && !activeFrame(this.draft).lanes?.[key]) continue;
      this.changed = true;
      this.inLine(key, work);
      this.settle();
      if (this.changed) {
        any = true;
        if (stopAtFirst) break;
      }
    }
    this.changed = any;
  }

  private lines(): string[] {
    const frame = activeFrame(this.draft);
    return activeLines(frame, graphOf(this.bundleOf(frame)));
  }

  /** Lines whose step is pending and due (a continuation enters them). */
  private dueLines(): string[] {
    const frame = activeFrame(this.draft);
    return this.lines().filter((key) => {
      const l = lineOf(frame, key);
      return l?.phase === "pending" && !(l.notBefore && l.notBefore > this.now);
    });
  }

  private dispatch(): void {
    const e = this.event;
    const frame = activeFrame(this.draft);
    switch (e.type) {
      case "continue": {
        if (!frame.lanes) {
          if (frame.phase !== "pending") return this.noChange();
          if (frame.notBefore && frame.notBefore > this.now) return this.noChange();
          return this.enter();
        }
        const due = this.dueLines();
        if (due.length === 0) return this.noChange();
        return this.eachLine(due, () => {
          if (this.frame().phase === "pending") this.enter();
          else this.noChange();
        });
      }
      case "command":
        return this.command(e);
      case "effect_result": {
        const line = this.lines().find((key) => {
          const l = key === ROOT_LINE ? frame : frame.lanes?.[key];
          return l?.phase === "effect" && l.effectKey === e.key;
        });
        if (line === undefined) return this.noChange();
        return this.eachLine([line], () => this.effectResult(e));
      }
      case "vote_withdrawn": {
        const line = this.lines().find((key) => {
          const l = key === ROOT_LINE ? frame : frame.lanes?.[key];
          return (
            (l?.phase === "waiting" || l?.phase === "approval") &&
            (l.votes ?? []).some((v) => v.commentId === e.commentId)
          );
        });
        if (line === undefined) return this.noChange();
        return this.eachLine([line], () => this.voteWithdrawn(e.commentId));
      }
      case "timeout":
        return this.timeout();
      case "alert_resolved":
        this.stepOutcome = "alert resolved";
        this.messages.push({
          kind: "info",
          text: renderMarkdown(paragraph("The alert that started this run has resolved.")),
        });
        return;
      default: {
        const waiting = this.lines().filter((key) => lineOf(frame, key)?.phase === "waiting");
        if (waiting.length === 0) return this.noChange();
        return this.eachLine(waiting, () => this.onWaitingEvent(), true);
      }
    }
  }

  /** Tool calls this run may make: its playbook's limits.max_tool_calls, or the default. */
  private toolCallLimit(): number {
    return (
      this.bundleOf(this.draft.stack[0] as Frame).playbook.limits?.max_tool_calls ??
      DEFAULT_MAX_TOOL_CALLS
    );
  }

  /** Tool calls reserved for ai effects still out, other than the one with `key`. */
  private reservedExcept(key: string): number {
    let sum = 0;
    for (const [k, n] of Object.entries(this.liveReservations())) if (k !== key) sum += n;
    return sum;
  }

  /**
   * Reserves the tool calls an ai effect is offered: what the budget has left after the calls
   * made and the reservations of effects still out (a parallel branch's, a for_each item's).
   * Asked again for the same effect, it offers the same reservation.
   */
  private reserveToolCalls(key: string): number {
    const reserved = this.liveReservations();
    const held = reserved[key];
    if (held !== undefined) return held;
    const others = Object.values(reserved).reduce((sum, n) => sum + n, 0);
    const left = this.toolCallLimit() - (this.draft.toolCalls ?? 0) - others;
    const grant = Math.max(0, Math.min(AI_TOOL_CALLS_PER_STEP, left));
    this.draft.toolCallsReserved = { ...reserved, [key]: grant };
    return grant;
  }

  /**
   * The reservations of effects some line still waits for: a lane cancelled while its ai step was
   * out (a `join: any` met, a branch failing) gives its reservation back.
   */
  private liveReservations(): Record<string, number> {
    const waiting = new Set<string>();
    for (const f of this.draft.stack) {
      if (f.effectKey !== undefined) waiting.add(f.effectKey);
      for (const lane of Object.values(f.lanes ?? {}))
        if (lane.effectKey !== undefined) waiting.add(lane.effectKey);
    }
    const live = Object.entries(this.draft.toolCallsReserved ?? {}).filter(([k]) => waiting.has(k));
    return Object.fromEntries(live);
  }

  /** The effect's answer came back: its reservation is given up; returns what it was. */
  private releaseToolCalls(key: string): number | undefined {
    const reserved = this.draft.toolCallsReserved;
    const held = reserved?.[key];
    if (!reserved || held === undefined) return undefined;
    const rest = { ...reserved };
    delete rest[key];
    if (Object.keys(rest).length > 0) this.draft.toolCallsReserved = rest;
    else delete this.draft.toolCallsReserved;
    return held;
  }

  private effectResult(e: Extract<RunEvent, { type: "effect_result" }>): void {
    const frame = this.frame();
    if (!e.ok) {
      this.releaseToolCalls(e.key);
      return this.stepFailed(e.error);
    }
    const { ctx, executor } = this.stepContext();
    // The calls a model made in an ai step, counted against the run's budget; at most what it
    // was offered, and the rest of its reservation comes back.
    const granted = this.releaseToolCalls(e.key);
    const modelCalls = executor.kind === "ai" ? e.outputs.tool_calls : undefined;
    if (typeof modelCalls === "number" && Number.isFinite(modelCalls) && modelCalls > 0)
      this.draft.toolCalls =
        (this.draft.toolCalls ?? 0) +
        Math.min(Math.floor(modelCalls), granted ?? AI_TOOL_CALLS_PER_STEP);
    // Kept while the step goes on waiting (a pull request until merged), merged when it is done.
    this.setResult(frame, ctx.step.id, {
      status: "running",
      attempt: frame.attempt,
      at: this.now,
      outputs: capOutputs(e.outputs),
    });
    this.apply(
      executor.onEffect ? executor.onEffect(ctx, e.outputs) : { type: "done", outputs: e.outputs },
    );
  }

  private voteWithdrawn(commentId: string): void {
    const frame = this.frame();
    const before = frame.votes.length;
    frame.votes = frame.votes.filter((v) => v.commentId !== commentId);
    if (frame.votes.length === before) return this.noChange();
    this.stepOutcome = "vote withdrawn";
    this.messages.push({
      kind: "info",
      text: renderMarkdown(
        paragraph(
          "A vote on ",
          strong(frame.current ?? ""),
          " was withdrawn (its comment was edited or deleted).",
        ),
      ),
    });
  }

  private noChange(): void {
    this.changed = false;
  }

  private command(e: Extract<RunEvent, { type: "command" }>): void {
    const frame = activeFrame(this.draft);
    if (e.actor.bot) {
      this.reply = { outcome: "refused", reason: "commands from bots are not accepted" };
      return this.noChange();
    }
    if (e.command === "cancel") {
      this.draft.status = "cancelled";
      this.draft.error = playbookError(
        "PB-CANCELLED",
        `cancelled by @${e.actor.login}${e.args.text ? `: ${e.args.text}` : ""}`,
      );
      this.stepOutcome = "cancelled";
      this.messages.push({
        kind: "done",
        text: renderMarkdown(paragraph(`Run ${this.draft.id} was cancelled by @${e.actor.login}.`)),
      });
      this.reply = { outcome: "accepted" };
      return;
    }
    if (frame.lanes) return this.laneCommand(e);
    this.lineCommand(e);
  }

  /** A command in a frame with lanes: /retry goes to every line it helps, the rest to one line. */
  private laneCommand(e: Extract<RunEvent, { type: "command" }>): void {
    const frame = activeFrame(this.draft);
    const lines = this.lines();
    if (e.command === "retry") {
      const stalled = lines.filter((key) => {
        const phase = lineOf(frame, key)?.phase;
        return phase === "effect" || phase === "pending";
      });
      if (stalled.length === 0) {
        this.reply = {
          outcome: "refused",
          reason: "nothing to retry: every branch waits for people",
        };
        return this.noChange();
      }
      return this.eachLine(stalled, () => this.lineCommand(e));
    }
    const waiting = lines.filter((key) => {
      const phase = lineOf(frame, key)?.phase;
      return phase === "waiting" || phase === "approval";
    });
    const stepOf = (key: string): string | null | undefined =>
      key === ROOT_LINE ? frame.current : frame.lanes?.[key]?.current;
    // A first word that names a waiting step picks it; otherwise the first step, in the
    // playbook's order, that waits for this kind of command.
    const named = waiting.find((key) => stepOf(key) === e.args.positional[0]);
    const graph = graphOf(this.bundleOf(frame));
    const fits = (key: string): boolean => {
      const approval = lineOf(frame, key)?.phase === "approval";
      const gate = answeredWithApproval(graph.byId.get(stepOf(key) ?? "")?.step);
      return e.command === "approve" || e.command === "reject"
        ? approval || gate
        : !approval && !gate;
    };
    const target = named ?? waiting.find(fits) ?? waiting[0];
    if (target === undefined) {
      this.reply = { outcome: "refused", reason: `nothing waits for /${e.command} now` };
      return this.noChange();
    }
    this.eachLine([target], () => this.lineCommand(e));
  }

  /** A command for the current line. */
  private lineCommand(e: Extract<RunEvent, { type: "command" }>): void {
    const frame = this.frame();
    if (e.command === "retry") {
      if (frame.phase === "effect") {
        // A lost effect result: ask again with the same key, so the effect is found, not redone.
        this.requestEffectAgain();
        this.reply = { outcome: "accepted" };
        return;
      }
      if (frame.phase === "pending") {
        delete frame.notBefore;
        this.stepOutcome = "retry requested";
        this.reply = { outcome: "accepted" };
        return;
      }
      this.reply = {
        outcome: "refused",
        reason: `nothing to retry: '${frame.current}' is waiting for people, not failed`,
      };
      return this.noChange();
    }
    // approve, reject, choose, record: only for the step that waits, and only if written after it began waiting.
    if (frame.phase !== "waiting" && frame.phase !== "approval") {
      this.reply = { outcome: "refused", reason: `nothing waits for /${e.command} now` };
      return this.noChange();
    }
    if (writtenBeforeWaiting(e, frame)) {
      this.reply = {
        outcome: "ignored",
        reason: "the comment was written before this step started waiting",
      };
      return this.noChange();
    }
    if (frame.phase === "approval") return this.gateVote(e);
    this.onWaitingEvent();
  }

  private onWaitingEvent(): void {
    if (hostedFork(activeFrame(this.draft), this.line) !== undefined) return this.noChange();
    const { ctx, executor } = this.stepContext();
    if (!executor.onEvent) return this.noChange();
    const outcome = executor.onEvent(ctx, this.event);
    const refused = this.choiceRefusal(ctx.graph, outcome);
    if (refused) {
      this.reply = { outcome: "refused", reason: refused };
      return this.noChange();
    }
    this.apply(outcome);
  }

  /**
   * A `/choose` whose branch is a step that enters another playbook (delegate or handoff) is the
   * chooser's doing too: they must be allowed to run that playbook (`permissions.run`), as the
   * person the run acts for must be when it is entered.
   */
  private choiceRefusal(graph: PlaybookGraph, outcome: Outcome): string | undefined {
    const e = this.event;
    if (e.type !== "command" || e.command !== "choose") return undefined;
    if (outcome.type !== "done" || outcome.goto === undefined) return undefined;
    const target = graph.byId.get(outcome.goto)?.step;
    for (const call of target ? callsOf(target) : []) {
      const bundle = this.env.playbooks(call.target);
      const least = bundle ? runPermissionOf(bundle.playbook) : undefined;
      if (least && !atLeast(e.actor, least))
        return `@${e.actor.login} may not choose '${outcome.goto}': it enters playbook '${call.target}', which needs ${least} access or more`;
    }
    return undefined;
  }

  private timeout(): void {
    const frame = activeFrame(this.draft);
    const limit = this.bundleOf(frame).playbook.limits?.timeout;
    if (limit && Date.parse(this.now) - Date.parse(this.draft.startedAt) >= durationMs(limit)) {
      return this.failRun(
        playbookError("PB-TIMEOUT", `the run took longer than limits.timeout ${limit}`),
      );
    }
    if (!frame.lanes) return this.lineTimeout();
    // A tick also enters the lanes whose backoff has passed.
    this.eachLine(this.lines(), () => {
      const phase = this.frame().phase;
      if (
        phase === "pending" &&
        !(this.frame().notBefore && (this.frame().notBefore as string) > this.now)
      )
        this.enter();
      else this.lineTimeout();
    });
  }

  /** A tick for the current line: a reminder, or a step that waited too long. */
  private lineTimeout(): void {
    const frame = this.frame();
    if (frame.phase !== "waiting" && frame.phase !== "approval") return this.noChange();
    if (hostedFork(activeFrame(this.draft), this.line) !== undefined) return this.noChange();
    const { ctx, executor } = this.stepContext();
    if (frame.phase === "waiting" && executor.onEvent && executor.kind === "checkpoint")
      return this.apply(executor.onEvent(ctx, this.event));
    const step = ctx.step;
    if (
      step.timeout &&
      Date.parse(this.now) - Date.parse(frame.since) >= durationMs(step.timeout)
    ) {
      return this.stepFailed(
        playbookError("PB-TIMEOUT", `'${step.id}' waited longer than ${step.timeout}`),
      );
    }
    this.noChange();
  }

  /** A step that cannot run in a lane (an end, a delegation, a handoff) fails it. */
  private notInLane(step: Step): void {
    this.stepFailed(
      playbookError(
        "PB-NOT-IN-BRANCH",
        `'${step.id}' (${step.type}) cannot run inside a branch, a for_each or a needs: list`,
      ),
      false,
    );
  }

  /** The current line has nothing more to do: a lane ends, the frame's own line ends the frame. */
  private endLine(end: LaneEnd = "completed", error?: PlaybookError): void {
    if (this.line === ROOT_LINE) {
      if (end === "completed") return this.endFrame({ type: "end", status: "success" });
      return this.failRun(error ?? playbookError("PB-BRANCH-FAILED", "a branch failed"));
    }
    const ended: (typeof this.endedLanes)[number] = { key: this.line, end };
    if (error) ended.error = error;
    this.endedLanes.push(ended);
  }

  /** The current line waits for a new fork of lanes, which start pending. */
  private openFork(key: string, fork: Fork, lanes: Omit<Lane, "fork" | "phase" | "since">[]): void {
    const frame = this.frame();
    const host = activeFrame(this.draft);
    frame.phase = "waiting";
    frame.since = this.now;
    frame.votes = [];
    host.forks = { ...host.forks, [key]: fork };
    for (const lane of lanes) this.addLane(key, lane);
    this.stepOutcome = `started ${lanes.length} ${fork.kind === "parallel" ? "branch(es)" : fork.kind === "for_each" ? "item(s)" : "step(s)"}`;
  }

  private addLane(fork: string, lane: Omit<Lane, "fork" | "phase" | "since">): void {
    const host = activeFrame(this.draft);
    host.lanes = {
      ...host.lanes,
      [laneKey(fork, lane.name)]: { fork, phase: "pending", since: this.now, ...lane },
    };
  }

  /** A lane's first attempt at a step (an item's attempts are its own). */
  private laneAttempt(step: string): number {
    const host = activeFrame(this.draft);
    const attempt = (host.attempts[step] ?? 0) + 1;
    host.attempts[step] = attempt;
    return attempt;
  }

  /** A step's lists of steps start side by side (a parallel step's branches), each a lane. */
  private startLanes(step: string, lanes: { name: string; first: string }[]): void {
    this.openFork(
      parallelForkKey(step),
      { kind: "parallel", host: this.line, step, ended: {} },
      lanes.map(({ name, first }) => ({ name, current: first, attempt: this.laneAttempt(first) })),
    );
  }

  private startForEach(step: Step, resolve: ReturnType<typeof runResolver>): void {
    const limits = forEachLimits(this.bundleOf(this.frame()).playbook);
    const items = forEachItems(step.for_each ?? "", resolve);
    if (!items.ok || items.items.length > limits.items) {
      return this.stepFailed(
        playbookError(
          "PB-FOR-EACH-INVALID",
          items.ok
            ? `'${step.id}' has ${items.items.length} items, more than limits.max_items (${limits.items})`
            : `for_each of '${step.id}': ${items.message}`,
        ),
        false,
      );
    }
    const fork: Fork = {
      kind: "for_each",
      host: this.line,
      step: step.id,
      ended: {},
      items: items.items,
      next: 0,
      outputs: {},
    };
    const first = Math.min(limits.parallel, items.items.length);
    this.openFork(eachForkKey(step.id), fork, []);
    for (let i = 0; i < first; i++) this.startItem(eachForkKey(step.id), fork);
    this.stepOutcome = `started ${first} of ${items.items.length} item(s)`;
    if (items.items.length === 0) this.settleFork(eachForkKey(step.id));
  }

  private startItem(key: string, fork: Fork): void {
    const index = fork.next ?? 0;
    fork.next = index + 1;
    const attempt = this.frame().attempt;
    const item = fork.items?.[index] ?? null;
    this.addLane(key, { name: String(index), current: fork.step, attempt, item, index });
  }

  private startNeeds(list: StepList): void {
    const key = needsForkKey(list.key);
    const graph = graphOf(this.bundleOf(this.frame()));
    const roots = graph.roots(list);
    this.openFork(
      key,
      { kind: "needs", host: this.line, step: this.frame().current ?? "", ended: {} },
      roots.map((id) => ({ name: id, current: id, attempt: this.laneAttempt(id) })),
    );
    this.settleFork(key);
  }

  /** Take each lane that ended into its fork, and end the forks whose join is met or lost. */
  private settle(): void {
    for (let next = this.endedLanes.shift(); next; next = this.endedLanes.shift()) {
      if (isFinished(this.draft)) return;
      const frame = activeFrame(this.draft);
      const lane = frame.lanes?.[next.key];
      const fork = lane ? frame.forks?.[lane.fork] : undefined;
      if (!lane || !fork) continue;
      this.dropLane(next.key);
      fork.ended[lane.name] = next.end;
      if (next.end === "completed" && fork.first === undefined) fork.first = lane.name;
      if (next.end === "failed" && next.error && !fork.error) fork.error = next.error;
      if (fork.kind === "for_each" && lane.result?.outputs)
        fork.outputs = { ...fork.outputs, [lane.name]: lane.result.outputs };
      this.settleFork(lane.fork);
    }
  }

  /** Where a fork stands: start what may start, and end it when its join is met or lost. */
  private settleFork(key: string): void {
    const frame = activeFrame(this.draft);
    const fork = frame.forks?.[key];
    if (!fork) return;
    const graph = graphOf(this.bundleOf(frame));
    const step = graph.byId.get(fork.step)?.step;
    if (!step) return;
    const running = lanesOf(frame, key).length;
    let decision: JoinDecision = { type: "wait" };
    if (fork.kind === "parallel") {
      decision = joinDecision(step as ParallelStep, fork);
    } else if (Object.values(fork.ended).includes("failed")) {
      decision = {
        type: "fail",
        error: fork.error ?? playbookError("PB-BRANCH-FAILED", `a lane of '${fork.step}' failed`),
      };
    } else if (fork.kind === "for_each") {
      const limits = forEachLimits(this.bundleOf(frame).playbook);
      const total = fork.items?.length ?? 0;
      for (let n = running; n < limits.parallel && (fork.next ?? 0) < total; n++)
        this.startItem(key, fork);
      if (Object.keys(fork.ended).length >= total)
        decision = {
          type: "done",
          outputs: forEachOutputs(fork, stepKind(step.type)?.outputs ?? null),
        };
    } else {
      const list = graph.listOf(fork.step);
      const ids = list?.ids ?? [];
      const met = (id: string): boolean => fork.ended[id] === "completed";
      for (const id of ids) {
        if (fork.ended[id] !== undefined || frame.lanes?.[laneKey(key, id)]) continue;
        if ((graph.byId.get(id)?.step.needs ?? []).every(met))
          this.addLane(key, { name: id, current: id, attempt: this.laneAttempt(id) });
      }
      if (ids.every((id) => fork.ended[id] !== undefined)) decision = { type: "done", outputs: {} };
      else if (lanesOf(frame, key).length === 0)
        decision = {
          type: "fail",
          error: playbookError(
            "PB-NEEDS-UNMET",
            `steps ${ids.filter((id) => fork.ended[id] === undefined).join(", ")} can never start: their needs are not met`,
          ),
        };
    }
    if (decision.type === "wait") return;
    for (const [lane] of lanesOf(frame, key)) this.cancelLane(lane);
    delete frame.forks?.[key];
    if (frame.forks && Object.keys(frame.forks).length === 0) delete frame.forks;
    if (frame.lanes && Object.keys(frame.lanes).length === 0) delete frame.lanes;
    const outcome = decision;
    this.inLine(fork.host, () => {
      const host = this.frame();
      if (outcome.type === "fail") {
        host.phase = "pending";
        // A needs: list is no step of its own: its line fails.
        if (fork.kind === "needs") return this.endLine("failed", outcome.error);
        return this.stepFailed(outcome.error, fork.kind === "parallel");
      }
      const outputs =
        fork.kind === "parallel"
          ? parallelOutputs(fork, branchNames(step as ParallelStep))
          : outcome.outputs;
      this.stepOutcome = `${fork.kind === "needs" ? "needs: list" : fork.step} done`;
      if (fork.kind === "needs") return this.moveNext(step);
      this.apply({ type: "done", outputs });
    });
  }

  /** A lane stops where it is (its fork's join was met or lost), and so do the lanes it waits for. */
  private cancelLane(key: string): void {
    const frame = activeFrame(this.draft);
    const lane = frame.lanes?.[key];
    if (!lane) return;
    const nested = hostedFork(frame, key);
    if (nested !== undefined) {
      for (const [inner] of lanesOf(frame, nested)) this.cancelLane(inner);
      delete frame.forks?.[nested];
    }
    const fork = frame.forks?.[lane.fork];
    if (fork) fork.ended[lane.name] = "cancelled";
    this.dropLane(key);
  }

  private dropLane(key: string): void {
    const frame = activeFrame(this.draft);
    if (!frame.lanes) return;
    Reflect.deleteProperty(frame.lanes, key);
  }

  private bundleOf(frame: Frame): PlaybookBundle {
    const b = this.env.playbooks(frame.playbook);
    if (!b) throw new Error(`playbook ${frame.playbook} not provided`);
    return b;
  }

  private stepContext(): {
    ctx: StepContext;
    executor: NonNullable<ReturnType<StepRegistry["get"]>>;
  } {
    const frame = this.frame();
    const bundle = this.bundleOf(frame);
    const graph = graphOf(bundle);
    const step = graph.byId.get(frame.current ?? "")?.step;
    if (!step) throw new Error(`step ${frame.current} not in ${frame.playbook}`);
    const executor = this.registry.get(step.type);
    if (!executor) throw new Error(`no executor for step kind ${step.type}`);
    const resolve = runResolver(this.draft, frame);
    const ctx: StepContext = {
      step,
      run: this.draft,
      frame,
      bundle,
      graph,
      now: this.now,
      resolve,
      render: (src, use) => renderTemplate(src, resolve, use),
    };
    return { ctx, executor };
  }

  /** Store a step's result; final ones are also reported, so adapters can log what finished. */
  private setResult(frame: Frame, stepId: string, result: StepResult): void {
    frame.results[stepId] = result;
    // An item of a for_each is part of its step, which is reported once, when every item is done.
    if (result.status === "running" || frame.itemIndex !== undefined) return;
    const kind = graphOf(this.bundleOf(frame)).byId.get(stepId)?.step.type ?? "end";
    const f: StepFinished = {
      playbook: frame.playbook,
      step: stepId,
      kind,
      status: result.status,
      depth: this.draft.stack.includes(frame)
        ? this.draft.stack.indexOf(frame)
        : this.draft.stack.length - 1,
    };
    if (result.outputs) f.outputs = result.outputs;
    this.finished.push(f);
  }

  /** Enter the current step: the one transition a continuation performs. */
  private enter(): void {
    const frame = this.frame();
    const { ctx, executor } = this.stepContext();
    const step = ctx.step;
    // A line that enters a needs: list waits while the list's steps run, each as a lane.
    const item = frame.itemIndex !== undefined;
    const list = ctx.graph.listOf(step.id);
    if (
      list?.dag &&
      !item &&
      activeFrame(this.draft).lanes?.[this.line]?.fork !== needsForkKey(list.key)
    )
      return this.startNeeds(list);
    const root = this.bundleOf(this.draft.stack[0] as Frame).playbook;
    this.draft.steps++;
    const maxSteps = root.limits?.max_steps ?? DEFAULT_MAX_STEPS;
    if (this.draft.steps > maxSteps) {
      return this.failRun(
        playbookError(
          "PB-MAX-STEPS",
          `the run entered more than ${maxSteps} steps (limits.max_steps)`,
        ),
      );
    }
    // An item of a for_each was checked (if, approval) when the step began, unless its `if`
    // reads the item: then each item is tested, and an item it is false for is skipped.
    const perItem = step.for_each !== undefined && step.if !== undefined && readsItem(step.if);
    if (
      item === perItem &&
      step.if !== undefined &&
      !evaluateExpression(parseExpression(step.if), ctx.resolve)
    ) {
      this.setResult(frame, step.id, { status: "skipped", attempt: frame.attempt, at: this.now });
      this.stepOutcome = "skipped (if is false)";
      // A skipped end (or hand-off) does not end the run: the step after it comes next.
      const after = endsPlaybook(step)
        ? graphOf(this.bundleOf(frame)).following(step.id)?.id
        : undefined;
      return this.moveNext(step, after);
    }
    if (!item && this.needsApproval(step) && !(frame.approved ?? []).includes(step.id)) {
      frame.phase = "approval";
      frame.since = this.now;
      frame.votes = [];
      this.stepOutcome = "waiting for ask-first approval";
      this.messages.push(
        waitingMessage(
          stepTitle(step),
          `this step asks first before it runs (${step.type}).`,
          ASK_FIRST_APPROVERS,
        ),
      );
      return;
    }
    if (step.for_each !== undefined && !item) return this.startForEach(step, ctx.resolve);
    this.apply(executor.enter(ctx));
  }

  /** Whether a step needs an approval before it runs (authority ask-first, or an initiator below the bar). */
  private needsApproval(step: Step): boolean {
    const frame = this.frame();
    const playbook = this.bundleOf(frame).playbook;
    // A step that is itself an approval (a checkpoint) is never gated by one.
    if (answeredWithApproval(step)) return false;
    // needs_review: every step that changes something waits for a person's approval first.
    if (playbook.interaction_mode?.includes("needs_review") === true && hasSideEffects(step))
      return true;
    // A model with write tools acts only after a person approved: a checkpoint passed, or this gate.
    if (actsAfterApproval(step)) {
      const graph = graphOf(this.bundleOf(frame));
      return !graph.steps.some(
        (s) => answeredWithApproval(s.step) && stepStatus(frame, graph, s.id) === "completed",
      );
    }
    const authority =
      step.authority ??
      (hasSideEffects(step) ? playbook.authority?.default : undefined) ??
      "just-do-it";
    if (authority === "ask-first") return true;
    const bar = playbook.authority?.ask_first_below;
    if (authority === "show-me" && bar) {
      const permission = this.draft.initiatorPermission;
      return !atLeast({ login: this.draft.initiator, ...(permission ? { permission } : {}) }, bar);
    }
    return false;
  }

  private gateVote(e: Extract<RunEvent, { type: "command" }>): void {
    const frame = this.frame();
    if (e.command !== "approve" && e.command !== "reject") {
      this.reply = {
        outcome: "refused",
        reason: `'${frame.current}' waits for /approve, not /${e.command}`,
      };
      return this.noChange();
    }
    const result = castVote(
      { run: this.draft, frame, stepId: frame.current ?? "", now: this.now },
      ASK_FIRST_APPROVERS,
      e,
    );
    if (result.outcome === "refused") {
      this.reply = { outcome: "refused", reason: result.reason };
      return this.noChange();
    }
    this.reply = { outcome: "accepted" };
    if (result.outcome === "pending") return;
    if (result.outcome === "rejected")
      return this.stepFailed(
        playbookError("PB-REJECTED", `'${frame.current}' was ${result.reason}`),
      );
    const step = frame.current ?? "";
    frame.approved = [...(frame.approved ?? []), step];
    // Kept for the check before the step acts: the approver must still hold the role then.
    const by = result.outputs.approved_by;
    frame.approvedBy = { ...frame.approvedBy, [step]: Array.isArray(by) ? by.map(String) : [] };
    frame.approvalFacts = { ...frame.approvalFacts, [step]: result.facts };
    frame.phase = "pending";
    frame.votes = [];
    this.stepOutcome = "approved (ask-first)";
  }

  /** The outcome, or the failure of the step's input or output contract it breaks. */
  private withinContracts(step: Step, outcome: Outcome): Outcome {
    const breach =
      outcome.type === "effect"
        ? contractBreach(step, "input", outcome.params as Record<string, unknown>)
        : outcome.type === "done"
          ? contractBreach(step, "output", { ...outcome.outputs, ...outcome.findings })
          : undefined;
    return breach ? { type: "fail", error: breach } : outcome;
  }

  private apply(given: Outcome): void {
    const frame = this.frame();
    const step = this.stepContext().ctx.step;
    const outcome = this.withinContracts(step, given);
    if ("reply" in outcome && outcome.reply) this.reply = outcome.reply;
    if ((outcome.type === "done" || outcome.type === "wait") && outcome.findings) {
      for (const [k, v] of Object.entries(outcome.findings))
        if (Object.hasOwn(frame.findings, k) || Object.keys(frame.findings).length < MAX_FINDINGS)
          frame.findings[k] = capValue(v);
    }
    switch (outcome.type) {
      case "ignored":
        return this.noChange();
      case "effect":
        return this.requestEffect(step, outcome);
      case "wait":
        if (frame.phase !== "waiting") {
          frame.phase = "waiting";
          frame.since = this.now;
          frame.votes = [];
          delete frame.reminded;
        }
        if (outcome.awaiting) frame.awaiting = outcome.awaiting;
        this.messages.push(...(outcome.messages ?? []));
        this.stepOutcome = "waiting";
        return;
      case "fork":
        return this.startLanes(step.id, outcome.lanes);
      case "done":
        return this.stepDone(step, outcome);
      case "fail":
        return this.stepFailed(outcome.error);
      case "cancel":
        this.draft.status = "cancelled";
        this.draft.error = playbookError("PB-CANCELLED", outcome.message);
        this.messages.push({ kind: "done", text: renderMarkdown(paragraph(outcome.message)) });
        this.stepOutcome = "cancelled";
        return;
      default:
        return this.leavePlaybook(step, outcome);
    }
  }

  /** The step asks for an effect, within the run's tool-call budget; the run waits for it. */
  private requestEffect(step: Step, outcome: Extract<Outcome, { type: "effect" }>): void {
    const frame = this.frame();
    // (run, step, attempt[, item]): a lane's step in place of its frame's.
    const steps = this.draft.stack.map((f) => f.current);
    steps[steps.length - 1] = frame.current;
    const item = frame.itemIndex === undefined ? "" : `/${frame.itemIndex}`;
    const key = `${this.draft.id}/${steps.join(".")}/${frame.attempt}${item}`;
    // The model's own calls come out of the run's budget too: it may make what is left.
    if (outcome.kind === "ai") this.offerToolCalls(outcome.params as AiParams, key);
    if (outcome.kind === "tool_call") {
      const calls = (outcome.params as { calls: unknown[] }).calls.length;
      const limit = this.toolCallLimit();
      const made = this.draft.toolCalls ?? 0;
      const committed = made + this.reservedExcept(key);
      if (committed + calls > limit)
        return this.stepFailed(
          playbookError(
            "PB-TOOL-BUDGET",
            `step ${step.id} would make tool call ${committed + calls} of a run allowed ${limit} (limits.max_tool_calls)`,
          ),
        );
      this.draft.toolCalls = made + calls;
    }
    frame.phase = "effect";
    frame.effectKey = key;
    frame.since = this.now;
    this.effects.push({
      key,
      kind: outcome.kind,
      step: step.id,
      params: outcome.params,
    } as Effect);
    this.stepOutcome = `effect ${outcome.kind} requested`;
  }

  /** The step is done: its outputs are kept (a show-me step reports them) and the run goes on. */
  private stepDone(step: Step, outcome: Extract<Outcome, { type: "done" }>): void {
    const frame = this.frame();
    const result: Frame["results"][string] = {
      status: "completed",
      attempt: frame.attempt,
      at: this.now,
    };
    const previous = frame.results[step.id]?.outputs;
    const outputs = {
      ...(frame.results[step.id]?.status === "running" ? previous : {}),
      ...(outcome.outputs ?? {}),
    };
    if (Object.keys(outputs).length > 0) result.outputs = capOutputs(outputs);
    if (outcome.approvals?.length) result.approvals = outcome.approvals;
    this.setResult(frame, step.id, result);
    this.messages.push(...(outcome.messages ?? []));
    if (step.authority === "show-me" && result.outputs) {
      this.messages.push({
        kind: "report",
        text: renderMarkdown(
          paragraph(
            strong(stepTitle(step)),
            ` done: ${Object.entries(result.outputs)
              .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
              .join(", ")}`,
          ),
        ),
      });
    }
    // A step finished by its child's return keeps saying so in the trace.
    this.stepOutcome ||= "completed";
    return this.moveNext(step, outcome.goto);
  }

  /** The step ends its playbook, starts a child, or hands off; only the run's own line may. */
  private leavePlaybook(
    step: Step,
    outcome: Extract<Outcome, { type: "end" | "delegate" | "handoff" }>,
  ): void {
    const frame = this.frame();
    if (this.line !== ROOT_LINE) return this.notInLane(step);
    if (outcome.type === "delegate") return this.delegate(outcome.playbook, outcome.inputs);
    // A handoff (or an end naming one playbook, at the root) starts that playbook for the initiator.
    const started =
      outcome.type === "handoff"
        ? outcome.playbook
        : outcome.handoff?.length === 1 && this.draft.stack.length === 1
          ? outcome.handoff[0]
          : undefined;
    const refused = started === undefined ? undefined : this.enterRefusal(started);
    if (refused) return this.stepFailed(refused);
    this.setResult(frame, step.id, { status: "completed", attempt: frame.attempt, at: this.now });
    if (outcome.type === "end") {
      this.stepOutcome = `ended (${outcome.status})`;
      return this.endFrame(outcome);
    }
    this.stepOutcome = `handed off to ${outcome.playbook}`;
    return this.endFrame(
      { type: "end", status: "neutral", handoff: [outcome.playbook] },
      outcome.inputs,
    );
  }

  /** Leave `step` for its successor: a goto, the first true `when`, the default, or fall-through. */
  private moveNext(step: Step, goto?: string): void {
    const frame = this.frame();
    const bundle = this.bundleOf(frame);
    const graph = graphOf(bundle);
    let target = goto;
    // An item of a for_each, and a step of a needs: list, end their lane: nothing follows them
    // there (the list, or the for_each step, goes on once all are done).
    const lane = activeFrame(this.draft).lanes?.[this.line];
    const ownsOneStep = frame.itemIndex !== undefined || lane?.fork.startsWith(NEEDS_FORK);
    if (ownsOneStep || graph.listOf(step.id)?.dag) {
      this.trace(step.id);
      return this.endLine();
    }
    if (target === undefined) {
      const next = step.next;
      if (typeof next === "string") target = next;
      else if (Array.isArray(next)) {
        const resolve = runResolver(this.draft, frame);
        const when = next.find(
          (b) => b.when !== undefined && evaluateExpression(parseExpression(b.when), resolve),
        );
        target = when?.goto ?? next.find((b) => b.default !== undefined)?.default;
        if (target === undefined && next.some((b) => b.condition !== undefined)) {
          return this.stepFailed(
            playbookError("PB-NO-BRANCH", `'${step.id}' needs /choose to pick a branch`),
          );
        }
        if (target === undefined) target = graph.following(step.id)?.id;
      } else if (step.type !== "end") {
        target = graph.following(step.id)?.id;
      }
    }
    this.trace(step.id);
    if (target === undefined) return this.endLine();
    const attempts = (frame.attempts[target] ?? 0) + 1;
    frame.attempts[target] = attempts;
    frame.current = target;
    frame.attempt = attempts;
    frame.phase = "pending";
    frame.since = this.now;
    frame.votes = [];
    frame.approved = (frame.approved ?? []).filter((id) => id !== target);
    if (frame.approved.length === 0) delete frame.approved;
    for (const field of ["approvedBy", "approvalFacts"] as const) {
      const kept = Object.entries(frame[field] ?? {}).filter(([id]) => id !== target);
      if (kept.length > 0) frame[field] = Object.fromEntries(kept) as never;
      else delete frame[field];
    }
    delete frame.effectKey;
    delete frame.awaiting;
    delete frame.reminded;
    delete frame.notBefore;
  }

  private stepFailed(error: PlaybookError, retryable = true): void {
    const frame = this.frame();
    const { ctx, executor } = this.stepContext();
    const step = ctx.step;
    this.setResult(frame, step.id, {
      status: "failed",
      attempt: frame.attempt,
      at: this.now,
      error,
    });
    const action = errorAction(step, error);
    retryable &&= executor.retryable || step.idempotency_key !== undefined;
    if (action.action === "retry" && retryable && frame.attempt <= action.max) {
      frame.attempt = (frame.attempts[step.id] ?? frame.attempt) + 1;
      frame.attempts[step.id] = frame.attempt;
      frame.phase = "pending";
      frame.notBefore = new Date(Date.parse(this.now) + backoffMs(frame.attempt - 1)).toISOString();
      delete frame.effectKey;
      this.stepOutcome = `failed (${error.code}), retry ${frame.attempt - 1} of ${action.max}`;
      this.messages.push({
        kind: "info",
        text: renderMarkdown(
          paragraph(
            strong(stepTitle(step)),
            ` failed (${error.code}: ${error.message}); retrying (${frame.attempt - 1} of ${action.max}).`,
          ),
        ),
      });
      return;
    }
    if (action.action === "continue" || action.action === "ignore") {
      if (action.action === "ignore")
        this.setResult(frame, step.id, {
          status: "ignored",
          attempt: frame.attempt,
          at: this.now,
          error,
        });
      this.stepOutcome = `failed (${error.code}), ${action.action}`;
      return this.moveNext(step);
    }
    if (action.action === "goto") {
      this.stepOutcome = `failed (${error.code}), going on at ${action.step}`;
      return this.moveNext(step, action.step);
    }
    this.stepOutcome = `failed (${error.code})`;
    this.trace(step.id);
    if (this.line !== ROOT_LINE) return this.endLine("failed", error);
    if (this.delegatorRecovers(error)) {
      // The child's failure is its delegating step's: that step's on_error goes on from here.
      const child = this.draft.stack.pop() as Frame;
      const parent = activeFrame(this.draft);
      for (const [k, v] of Object.entries(child.findings)) parent.findings[k] = v;
      this.stepOutcome = `${child.playbook} failed (${error.code})`;
      return this.stepFailed(error, false);
    }
    this.failRun(error, stepTitle(step));
  }

  /**
   * Whether the step that delegated to the running child goes on when the child fails (its
   * on_error continues, ignores or goes to a step). Otherwise the child stays where it failed,
   * for `/retry` to take up.
   */
  private delegatorRecovers(error: PlaybookError): boolean {
    const stack = this.draft.stack;
    if (stack.length < 2) return false;
    const parent = stack[stack.length - 2] as Frame;
    const step = graphOf(this.bundleOf(parent)).byId.get(parent.current ?? "")?.step;
    return (
      step !== undefined && ["continue", "ignore", "goto"].includes(errorAction(step, error).action)
    );
  }

  private failRun(error: PlaybookError, where?: string): void {
    this.draft.status = "failed";
    this.draft.error = error;
    this.stepOutcome ||= `failed (${error.code})`;
    this.messages.push({
      kind: "failure",
      text: renderMarkdown(
        lines(
          [
            `Run ${this.draft.id} failed`,
            where ? [" at ", strong(where)] : [],
            `: ${error.message} (${error.code}).`,
          ],
          [error.guidance],
        ),
      ),
    });
  }

  private retry(actor: Actor): void {
    const frame = activeFrame(this.draft);
    this.draft.status = "running";
    delete this.draft.error;
    // The line that failed waited for lanes: they start again from the step.
    delete frame.lanes;
    delete frame.forks;
    const current = frame.current ?? "";
    frame.attempt = (frame.attempts[current] ?? frame.attempt) + 1;
    frame.attempts[current] = frame.attempt;
    frame.phase = "pending";
    frame.since = this.now;
    frame.votes = [];
    delete frame.effectKey;
    delete frame.awaiting;
    delete frame.notBefore;
    this.stepOutcome = `retry by ${actor.login}`;
    this.reply = { outcome: "accepted" };
    this.messages.push({
      kind: "info",
      text: renderMarkdown(
        paragraph(`@${actor.login} retries `, strong(current), ` (attempt ${frame.attempt}).`),
      ),
    });
  }

  /** An ai step with tools is offered the calls reserved for it (see reserveToolCalls). */
  private offerToolCalls(params: AiParams, key: string): void {
    if ((params.tools?.length ?? 0) > 0) params.max_tool_calls = this.reserveToolCalls(key);
  }

  private requestEffectAgain(): void {
    const frame = this.frame();
    const { ctx, executor } = this.stepContext();
    const outcome = executor.enter(ctx);
    if (outcome.type !== "effect") return this.apply(outcome);
    // Asked again (after a restart), it is offered its reservation, not a step's whole allowance.
    if (outcome.kind === "ai")
      this.offerToolCalls(outcome.params as AiParams, frame.effectKey ?? "");
    this.effects.push({
      key: frame.effectKey ?? "",
      kind: outcome.kind,
      step: ctx.step.id,
      params: outcome.params,
    } as Effect);
    this.stepOutcome = "effect requested again";
  }

  /**
   * Entering another playbook (delegated to or handed off to) needs that playbook's
   * `permissions.run` of the person the run acts for, as starting it would: otherwise a run anyone
   * may start could carry them into one only admins may run. A run with no recorded permission was
   * started by the app itself (for an alert) and acts for nobody: it may enter a playbook that an
   * alert may start itself (`on.alerts`) or that anyone may run (`permissions.run: read`).
   */
  private enterRefusal(id: string): PlaybookError | undefined {
    const permission = this.draft.initiatorPermission;
    const bundle = this.env.playbooks(id);
    if (!bundle) return undefined;
    const least = runPermissionOf(bundle.playbook);
    // A run that acts for nobody (an alert's) enters only what an alert may start or anyone may run.
    if (permission === undefined)
      return bundle.playbook.on?.alerts !== undefined || least === "read"
        ? undefined
        : playbookError(
            "PB-PERMISSION",
            `a run started by an alert acts for nobody: it may enter only a playbook an alert may start (on.alerts) or anyone may run (permissions.run: read), and playbook '${id}' is neither (it needs ${least} access or more)`,
          );
    if (atLeast({ login: this.draft.initiator, permission }, least)) return undefined;
    return playbookError(
      "PB-PERMISSION",
      `@${this.draft.initiator} (${permission}) may not run playbook '${id}': it needs ${least} access or more`,
    );
  }

  private delegate(child: string, inputs: Record<string, Scalar>): void {
    const root = this.bundleOf(this.draft.stack[0] as Frame).playbook;
    const maxDepth = root.limits?.max_depth ?? DEFAULT_MAX_DEPTH;
    if (this.draft.stack.length >= maxDepth) {
      return this.stepFailed(
        playbookError(
          "PB-MAX-DEPTH",
          `delegating to '${child}' would nest ${this.draft.stack.length + 1} playbooks deep (limit ${maxDepth})`,
        ),
      );
    }
    const bundle = this.env.playbooks(child);
    const invalid = bundle ? undefined : this.env.invalidPlaybook?.(child);
    if (invalid) return this.stepFailed(invalidPlaybookError(child, invalid));
    if (!bundle)
      return this.stepFailed(playbookError("PB-PLAYBOOK-UNKNOWN", `no playbook has id '${child}'`));
    const refused = this.enterRefusal(child);
    if (refused) return this.stepFailed(refused);
    const checked = resolveInputs(bundle.playbook.inputs, inputs);
    if (!checked.ok) {
      return this.stepFailed(
        playbookError(
          "PB-INPUT-INVALID",
          `inputs for '${child}' are invalid: ${checked.problems.map((p) => p.message).join("; ")}`,
        ),
      );
    }
    const parent = activeFrame(this.draft);
    parent.phase = "waiting";
    parent.since = this.now;
    const frame = newFrame(bundle, checked.values, graphOf(bundle).entry ?? null, this.now);
    frame.returnTo = parent.current ?? "";
    this.draft.stack.push(frame);
    this.stepOutcome = `delegated to ${child}`;
    this.messages.push({
      kind: "info",
      text: renderMarkdown(
        paragraph(
          strong(parent.current ?? ""),
          " runs playbook ",
          strong(bundle.playbook.name ?? child),
          " and comes back with its findings.",
        ),
      ),
    });
  }

  /** A frame ends: a child returns to its parent, the root ends the run. */
  private endFrame(
    end: Extract<Outcome, { type: "end" }>,
    handoffInputs: Record<string, Scalar> = {},
  ): void {
    const frame = activeFrame(this.draft);
    const bundle = this.bundleOf(frame);
    const outputs = this.declaredOutputs(bundle, frame);
    if (!outputs.ok) return this.failRun(outputs.error);
    if (this.draft.stack.length > 1) {
      this.draft.stack.pop();
      const parent = activeFrame(this.draft);
      for (const [k, v] of Object.entries(frame.findings)) parent.findings[k] = v;
      if (end.handoff?.length) {
        this.messages.push({
          kind: "info",
          text: renderMarkdown(
            paragraph(
              "Playbook ",
              strong(frame.playbook),
              " suggests continuing with ",
              runCommands(end.handoff),
              ".",
            ),
          ),
        });
      }
      const childOutputs: Record<string, Value> = { ...outputs.values };
      if (end.conclusion !== undefined) childOutputs.conclusion = end.conclusion;
      // The child's run is the delegating step's effect: its outputs are kept while the step
      // goes on waiting (for /choose between prose branches), and the step decides what follows.
      const { ctx, executor } = this.stepContext();
      const result: Frame["results"][string] = {
        status: "running",
        attempt: parent.attempt,
        at: this.now,
      };
      if (Object.keys(childOutputs).length > 0) result.outputs = capOutputs(childOutputs);
      this.setResult(parent, ctx.step.id, result);
      // Back in the parent: a wait that follows starts now, not when the child was entered.
      parent.phase = "pending";
      this.stepOutcome = `${frame.playbook} returned`;
      this.apply(
        executor.onEffect
          ? executor.onEffect(ctx, childOutputs)
          : { type: "done", outputs: childOutputs },
      );
      if (activeFrame(this.draft).phase === "waiting") {
        this.stepOutcome = `${frame.playbook} returned; waiting for /choose`;
        this.trace(ctx.step.id);
      }
      return;
    }
    this.draft.status = end.status === "failure" ? "failed" : "completed";
    const record: NonNullable<RunState["end"]> = { status: end.status };
    if (end.conclusion !== undefined) record.conclusion = end.conclusion;
    if (end.advice !== undefined) record.advice = capValue(end.advice) as string;
    if (end.handoff?.length) record.handoff = end.handoff;
    this.draft.end = record;
    if (Object.keys(outputs.values).length > 0) this.draft.outputs = outputs.values;
    const said: InlineLike[][] = [];
    if (end.handoff?.length) {
      said.push(
        end.handoff.length === 1
          ? ["Continuing with playbook ", strong(end.handoff[0] as string), "."]
          : ["Continue with one of: ", runCommands(end.handoff), "."],
      );
      if (end.handoff.length === 1) {
        this.effects.push({
          key: `${this.draft.id}/handoff/${end.handoff[0]}`,
          kind: "start_playbook",
          step: frame.current ?? "",
          params: { playbook: end.handoff[0] as string, inputs: handoffInputs },
        });
      }
    }
    this.messages.push({ kind: "done", text: this.endMessage(end.advice, said) });
  }

  /** How the run ended, the advice (the author's Markdown, kept as such), then what follows. */
  private endMessage(advice: string | undefined, after: InlineLike[][]): string {
    const ran = `Run ${this.draft.id} ${this.draft.status === "failed" ? "ended with a failure" : "completed"}.`;
    if (!advice) return renderMarkdown(lines([ran], ...after));
    return renderMarkdown(
      paragraph(ran),
      ...authorMarkdown(advice),
      ...(after.length ? [lines(...after)] : []),
    );
  }

  private declaredOutputs(
    bundle: PlaybookBundle,
    frame: Frame,
  ): { ok: true; values: Record<string, Value> } | { ok: false; error: PlaybookError } {
    const values: Record<string, Value> = {};
    const resolve = runResolver(this.draft, frame);
    for (const [name, template] of Object.entries(bundle.playbook.outputs ?? {})) {
      const r = renderTemplate(template, resolve, "value");
      if (!r.ok)
        return {
          ok: false,
          error: playbookError(
            "PB-OUTPUT-MISSING",
            `output '${name}' has no value: ${r.error.message}`,
          ),
        };
      values[name] = capValue(r.value);
    }
    return { ok: true, values };
  }

  private trace(stepId?: string): void {
    const e = this.event;
    const entry: RunState["trace"][number] = {
      event: e.type === "command" ? `/${e.command}` : e.type,
      outcome: this.stepOutcome || "moved on",
      start: this.frame().since,
      end: this.now,
    };
    if (e.type === "command") entry.actor = e.actor.login;
    if (stepId !== undefined) entry.step = stepId;
    this.draft.traceDropped += pushBounded(this.draft.trace, entry, MAX_TRACE);
    this.traced = true;
  }

  private traced = false;

  /**
   * The messages for people. A `silent` playbook posts no progress of its own: only what needs
   * people (a wait, a reminder, a failure) is told; the status comment still shows every step.
   */
  private told(): Message[] {
    const root = this.draft.stack[0];
    // A removed playbook fails its run; the failure is told.
    const playbook = root ? this.env.playbooks(root.playbook)?.playbook : undefined;
    const silent = playbook?.interaction_mode?.includes("silent") === true;
    if (!silent) return this.messages;
    return this.messages.filter((m) => SILENT_TOLD.has(m.kind));
  }

  private result(): AdvanceResult {
    if (!this.changed) {
      const r = unchanged(this.draft, this.env, this.reply);
      return r;
    }
    const run = this.draft;
    if (!this.traced) this.trace(this.stepAtStart);
    pushBounded(run.recentEvents, this.event.id, MAX_RECENT_EVENTS);
    run.seq++;
    run.updatedAt = this.now;
    // Done here, on the frames themselves (a lane works on a view of its frame).
    for (const frame of run.stack) {
      const bundle = this.env.playbooks(frame.playbook);
      if (bundle?.hash === frame.hash) foldResults(frame, bundle.playbook);
    }
    if (activeFrame(run).lanes) return this.laneResult();
    if (!isFinished(run)) {
      const f = activeFrame(run);
      run.status = f.phase === "waiting" || f.phase === "approval" ? "waiting" : "running";
    }
    const f = activeFrame(run);
    const due = !isFinished(run) && f.phase === "pending";
    const result: AdvanceResult = {
      run,
      effects: this.effects,
      messages: this.told(),
      finished: this.finished,
      continue: due && (!f.notBefore || f.notBefore <= this.now),
      changed: true,
    };
    if (this.reply) result.reply = this.reply;
    const w = wakeAt(run, this.env);
    if (w) result.wakeAt = w;
    return result;
  }

  /**
   * The result of a frame with lanes: it runs while some line can act by itself, waits when every
   * line waits for people or events, goes on at once when a line is due, and wakes at the first
   * backoff, reminder or timeout of any line.
   */
  private laneResult(): AdvanceResult {
    const run = this.draft;
    const frame = activeFrame(run);
    const lines = this.lines().map((key) => ({ key, line: lineOf(frame, key) }));
    const pending = lines.filter(({ line }) => line?.phase === "pending");
    const acting = lines.some(({ line }) => line?.phase === "pending" || line?.phase === "effect");
    if (!isFinished(run)) run.status = acting ? "running" : "waiting";
    const due = pending.some(({ line }) => !line?.notBefore || line.notBefore <= this.now);
    const result: AdvanceResult = {
      run,
      effects: this.effects,
      messages: this.told(),
      finished: this.finished,
      continue: !isFinished(run) && due,
      changed: true,
    };
    if (this.reply) result.reply = this.reply;
    const w = wakeAt(run, this.env);
    if (w) result.wakeAt = w;
    return result;
  }
}

/** `/run a`, `/run b` as code, for a handoff. */
function runCommands(playbooks: readonly string[]): InlineLike[] {
  return playbooks.map((h, i) => [i ? ", " : "", code(`/run ${h}`)]);
}

/** The longest output list kept: a for_each's, one entry per item. */
const MAX_OUTPUT_LIST = FOR_EACH_LIMITS.max_items.cap;

function capOutputs(outputs: Record<string, Value>): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const [k, v] of Object.entries(outputs).slice(0, MAX_OUTPUTS_PER_STEP))
    out[k] = Array.isArray(v) ? v.slice(0, MAX_OUTPUT_LIST).map(capValue) : capValue(v);
  return out;
}

/**
 * Whether a command was written before its step began waiting. Ordered by GitHub's comment ids
 * where the wait was announced in a comment; otherwise by instants (never timestamps as text:
 * `…:50Z` and `…:50.395Z` do not sort as the times they are).
 */
function writtenBeforeWaiting(e: Extract<RunEvent, { type: "command" }>, frame: Frame): boolean {
  const prompt = frame.prompt?.since === frame.since ? frame.prompt.comment : undefined;
  if (prompt !== undefined && e.commentId !== undefined && /^[0-9]{1,20}$/.test(e.commentId))
    return BigInt(e.commentId) < BigInt(prompt);
  const written = Date.parse(e.createdAt);
  return Number.isNaN(written) || written < Date.parse(frame.since);
}

function parallelForkKey(step: string): string {
  return `parallel:${step}`;
}

function eachForkKey(step: string): string {
  return `each:${step}`;
}

/** Whether an `if` reads the for_each item at hand (`item…` or `item_index`). */
function readsItem(test: string): boolean {
  if (test.includes("[item_index]")) return true;
  return expressionRefs(parseExpression(test)).some(
    (r) => r.path[0] === "item" || r.path[0] === "item_index",
  );
}
