import { playbookError, type PlaybookError } from "./errors.js";
import type { AdvanceResult, Effect, Message, Reply, RunEvent, StepFinished } from "./events.js";
import { resolveInputs, type InputProblem } from "./inputs.js";
import { ASK_FIRST_APPROVERS, atLeast, backoffMs, durationMs, errorAction } from "./policy.js";
import { renderTemplate, runResolver } from "./render.js";
import {
  DEFAULT_MAX_STEPS,
  MAX_RECENT_EVENTS,
  MAX_TRACE,
  STATE_VERSION,
  activeFrame,
  capValue,
  isFinished,
  makeRunId,
  pushBounded,
  type Actor,
  type Frame,
  type RunContext,
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
import { spans } from "../markdown/replies.js";
import { defaultRegistry, type StepRegistry } from "../steps/registry.js";
import type { Outcome, PlaybookBundle, StepContext } from "../steps/types.js";
import { evaluateExpression, parseExpression } from "../format/expression.js";
import { PlaybookGraph, stepTitle } from "../format/graph.js";
import type { Step } from "../format/types.js";
import { SIDE_EFFECT_KINDS } from "../format/vocabulary.js";

export const DEFAULT_MAX_DEPTH = 10;

export interface EngineEnv {
  now: Date;
  /** Playbooks by id, in the versions this run is pinned to (the root and any delegates). */
  playbooks: (id: string) => PlaybookBundle | undefined;
  registry?: StepRegistry;
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
}

/** The part of a run id after its date and time. */
function runTail(req: StartRequest): string | number {
  return req.runToken ?? req.runIndex ?? 1;
}

export type StartResult =
  | { ok: true; result: AdvanceResult }
  | { ok: false; error: PlaybookError; problems: InputProblem[] };

const graphs = new WeakMap<object, PlaybookGraph>();
function graphOf(bundle: PlaybookBundle): PlaybookGraph {
  let g = graphs.get(bundle.playbook);
  if (!g) {
    g = new PlaybookGraph(bundle.playbook);
    graphs.set(bundle.playbook, g);
  }
  return g;
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
  return {
    ok: true,
    result: {
      run,
      effects: [],
      finished: [],
      messages: [
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
  if (run.recentEvents.includes(event.id))
    return unchanged(run, { outcome: "ignored", reason: "this event was already handled" });
  if (event.type === "continue" && event.seq !== run.seq) return unchanged(run);
  return new Transition(structuredClone(run), event, env).run();
}

function unchanged(run: RunState, reply?: Reply): AdvanceResult {
  const r: AdvanceResult = {
    run,
    effects: [],
    messages: [],
    finished: [],
    continue: false,
    changed: false,
  };
  if (reply) r.reply = reply;
  const w = wakeAt(run);
  if (w) r.wakeAt = w;
  return r;
}

/** A retry's backoff, the one deadline known without the playbook. */
function wakeAt(run: RunState): string | undefined {
  if (isFinished(run)) return undefined;
  const f = activeFrame(run);
  return f.phase === "pending" ? f.notBefore : undefined;
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
    return this.result();
  }

  private onFinished(): AdvanceResult {
    const e = this.event;
    if (e.type === "command" && e.command === "retry" && this.draft.status === "failed") {
      this.retry(e.actor);
      return this.result();
    }
    if (e.type === "command")
      return unchanged(this.draft, {
        outcome: "refused",
        reason: `run ${this.draft.id} has ended (${this.draft.status})`,
      });
    return unchanged(this.draft);
  }

  private dispatch(): void {
    const e = this.event;
    const frame = activeFrame(this.draft);
    switch (e.type) {
      case "continue":
        if (frame.phase !== "pending") return this.noChange();
        if (frame.notBefore && frame.notBefore > this.now) return this.noChange();
        return this.enter();
      case "command":
        return this.command(e);
      case "effect_result": {
        if (frame.phase !== "effect" || frame.effectKey !== e.key) return this.noChange();
        if (!e.ok) return this.stepFailed(e.error);
        const { ctx, executor } = this.stepContext();
        // Kept while the step goes on waiting (a pull request until merged), merged when it is done.
        this.setResult(frame, ctx.step.id, {
          status: "running",
          attempt: frame.attempt,
          at: this.now,
          outputs: capOutputs(e.outputs),
        });
        return this.apply(
          executor.onEffect
            ? executor.onEffect(ctx, e.outputs)
            : { type: "done", outputs: e.outputs },
        );
      }
      case "vote_withdrawn": {
        if (frame.phase !== "waiting" && frame.phase !== "approval") return this.noChange();
        const before = frame.votes.length;
        frame.votes = frame.votes.filter((v) => v.commentId !== e.commentId);
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
        return;
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
      default:
        if (frame.phase !== "waiting") return this.noChange();
        return this.onWaitingEvent();
    }
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
    const { ctx, executor } = this.stepContext();
    if (!executor.onEvent) return this.noChange();
    this.apply(executor.onEvent(ctx, this.event));
  }

  private timeout(): void {
    const frame = activeFrame(this.draft);
    const limit = this.bundleOf(frame).playbook.limits?.timeout;
    if (limit && Date.parse(this.now) - Date.parse(this.draft.startedAt) >= durationMs(limit)) {
      return this.failRun(
        playbookError("PB-TIMEOUT", `the run took longer than limits.timeout ${limit}`),
      );
    }
    if (frame.phase !== "waiting" && frame.phase !== "approval") return this.noChange();
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

  private bundleOf(frame: Frame): PlaybookBundle {
    const b = this.env.playbooks(frame.playbook);
    if (!b) throw new Error(`playbook ${frame.playbook} not provided`);
    return b;
  }

  private stepContext(): {
    ctx: StepContext;
    executor: NonNullable<ReturnType<StepRegistry["get"]>>;
  } {
    const frame = activeFrame(this.draft);
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
    if (result.status === "running") return;
    const kind = graphOf(this.bundleOf(frame)).byId.get(stepId)?.step.type ?? "end";
    const f: StepFinished = {
      playbook: frame.playbook,
      step: stepId,
      kind,
      status: result.status,
      depth: this.draft.stack.indexOf(frame),
    };
    if (result.outputs) f.outputs = result.outputs;
    this.finished.push(f);
  }

  /** Enter the current step: the one transition a continuation performs. */
  private enter(): void {
    const frame = activeFrame(this.draft);
    const { ctx, executor } = this.stepContext();
    const step = ctx.step;
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
    if (step.if !== undefined && !evaluateExpression(parseExpression(step.if), ctx.resolve)) {
      this.setResult(frame, step.id, { status: "skipped", attempt: frame.attempt, at: this.now });
      this.stepOutcome = "skipped (if is false)";
      return this.moveNext(step);
    }
    if (this.needsApproval(step) && !(frame.approved ?? []).includes(step.id)) {
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
    this.apply(executor.enter(ctx));
  }

  /** Whether a step needs an approval before it runs (authority ask-first, or an initiator below the bar). */
  private needsApproval(step: Step): boolean {
    const frame = activeFrame(this.draft);
    const playbook = this.bundleOf(frame).playbook;
    if (step.type === "checkpoint") return false;
    // A model with write tools acts only after a person approved: a checkpoint passed, or this gate.
    if (step.type === "ai" && step.scope === "write") {
      const graph = graphOf(this.bundleOf(frame));
      return !Object.entries(frame.results).some(
        ([id, r]) => r.status === "completed" && graph.byId.get(id)?.step.type === "checkpoint",
      );
    }
    const authority =
      step.authority ??
      (SIDE_EFFECT_KINDS.has(step.type) ? playbook.authority?.default : undefined) ??
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
    const frame = activeFrame(this.draft);
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
    frame.phase = "pending";
    frame.votes = [];
    this.stepOutcome = "approved (ask-first)";
  }

  private apply(outcome: Outcome): void {
    const frame = activeFrame(this.draft);
    const step = this.stepContext().ctx.step;
    if ("reply" in outcome && outcome.reply) this.reply = outcome.reply;
    if ((outcome.type === "done" || outcome.type === "wait") && outcome.findings) {
      for (const [k, v] of Object.entries(outcome.findings)) frame.findings[k] = capValue(v);
    }
    switch (outcome.type) {
      case "ignored":
        return this.noChange();
      case "effect": {
        const key = `${this.draft.id}/${this.draft.stack.map((f) => f.current).join(".")}/${frame.attempt}`;
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
        return;
      }
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
      case "done": {
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
      case "fail":
        return this.stepFailed(outcome.error);
      case "cancel":
        this.draft.status = "cancelled";
        this.draft.error = playbookError("PB-CANCELLED", outcome.message);
        this.messages.push({ kind: "done", text: renderMarkdown(paragraph(outcome.message)) });
        this.stepOutcome = "cancelled";
        return;
      case "end":
        this.stepOutcome = `ended (${outcome.status})`;
        this.setResult(frame, step.id, {
          status: "completed",
          attempt: frame.attempt,
          at: this.now,
        });
        return this.endFrame(outcome);
      case "delegate":
        return this.delegate(outcome.playbook, outcome.inputs);
      case "handoff":
        this.setResult(frame, step.id, {
          status: "completed",
          attempt: frame.attempt,
          at: this.now,
        });
        this.stepOutcome = `handed off to ${outcome.playbook}`;
        return this.endFrame(
          { type: "end", status: "neutral", handoff: [outcome.playbook] },
          outcome.inputs,
        );
    }
  }

  /** Leave `step` for its successor: a goto, the first true `when`, the default, or fall-through. */
  private moveNext(step: Step, goto?: string): void {
    const frame = activeFrame(this.draft);
    const bundle = this.bundleOf(frame);
    const graph = graphOf(bundle);
    let target = goto;
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
        if (target === undefined && graph.mode === "steps") target = graph.following(step.id)?.id;
      } else if (step.type !== "end" && graph.mode === "steps") {
        target = graph.following(step.id)?.id;
      }
    }
    this.trace(step.id);
    if (target === undefined) return this.endFrame({ type: "end", status: "success" });
    const attempts = (frame.attempts[target] ?? 0) + 1;
    frame.attempts[target] = attempts;
    frame.current = target;
    frame.attempt = attempts;
    frame.phase = "pending";
    frame.since = this.now;
    frame.votes = [];
    frame.approved = (frame.approved ?? []).filter((id) => id !== target);
    if (frame.approved.length === 0) delete frame.approved;
    if (frame.approvedBy) {
      const kept = Object.entries(frame.approvedBy).filter(([id]) => id !== target);
      if (kept.length > 0) frame.approvedBy = Object.fromEntries(kept);
      else delete frame.approvedBy;
    }
    delete frame.effectKey;
    delete frame.awaiting;
    delete frame.reminded;
    delete frame.notBefore;
  }

  private stepFailed(error: PlaybookError): void {
    const frame = activeFrame(this.draft);
    const { ctx, executor } = this.stepContext();
    const step = ctx.step;
    this.setResult(frame, step.id, {
      status: "failed",
      attempt: frame.attempt,
      at: this.now,
      error,
    });
    const action = errorAction(step, error);
    const retryable = executor.retryable || step.idempotency_key !== undefined;
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
    this.stepOutcome = `failed (${error.code})`;
    this.trace(step.id);
    this.failRun(error, stepTitle(step));
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

  private requestEffectAgain(): void {
    const frame = activeFrame(this.draft);
    const { ctx, executor } = this.stepContext();
    const outcome = executor.enter(ctx);
    if (outcome.type !== "effect") return this.apply(outcome);
    this.effects.push({
      key: frame.effectKey ?? "",
      kind: outcome.kind,
      step: ctx.step.id,
      params: outcome.params,
    } as Effect);
    this.stepOutcome = "effect requested again";
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
    if (!bundle)
      return this.stepFailed(playbookError("PB-PLAYBOOK-UNKNOWN", `no playbook has id '${child}'`));
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
    const said: InlineLike[][] = [
      [
        `Run ${this.draft.id} ${this.draft.status === "failed" ? "ended with a failure" : "completed"}.`,
      ],
    ];
    if (end.advice) said.push(spans(end.advice));
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
    this.messages.push({ kind: "done", text: renderMarkdown(lines(...said)) });
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
      start: activeFrame(this.draft).since,
      end: this.now,
    };
    if (e.type === "command") entry.actor = e.actor.login;
    if (stepId !== undefined) entry.step = stepId;
    this.draft.traceDropped += pushBounded(this.draft.trace, entry, MAX_TRACE);
    this.traced = true;
  }

  private traced = false;

  private result(): AdvanceResult {
    if (!this.changed) {
      const r = unchanged(this.draft, this.reply);
      return r;
    }
    const run = this.draft;
    if (!this.traced) this.trace(this.stepAtStart);
    pushBounded(run.recentEvents, this.event.id, MAX_RECENT_EVENTS);
    run.seq++;
    run.updatedAt = this.now;
    if (!isFinished(run)) {
      const f = activeFrame(run);
      run.status = f.phase === "waiting" || f.phase === "approval" ? "waiting" : "running";
    }
    const f = activeFrame(run);
    const due = !isFinished(run) && f.phase === "pending";
    const result: AdvanceResult = {
      run,
      effects: this.effects,
      messages: this.messages,
      finished: this.finished,
      continue: due && (!f.notBefore || f.notBefore <= this.now),
      changed: true,
    };
    if (this.reply) result.reply = this.reply;
    const w = due ? f.notBefore : this.deadline();
    if (w) result.wakeAt = w;
    return result;
  }

  /** The next reminder or timeout of a waiting step. */
  private deadline(): string | undefined {
    const run = this.draft;
    if (isFinished(run)) return undefined;
    const f = activeFrame(run);
    if (f.phase !== "waiting" && f.phase !== "approval") return undefined;
    const step = graphOf(this.bundleOf(f)).byId.get(f.current ?? "")?.step;
    const times: number[] = [];
    if (step?.timeout) times.push(Date.parse(f.since) + durationMs(step.timeout));
    if (step?.type === "checkpoint" && step.reminder && !f.reminded)
      times.push(Date.parse(f.since) + durationMs(step.reminder));
    return times.length ? new Date(Math.min(...times)).toISOString() : undefined;
  }
}

/** `/run a`, `/run b` as code, for a handoff. */
function runCommands(playbooks: readonly string[]): InlineLike[] {
  return playbooks.map((h, i) => [i ? ", " : "", code(`/run ${h}`)]);
}

function capOutputs(outputs: Record<string, Value>): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const [k, v] of Object.entries(outputs))
    out[k] = Array.isArray(v) ? v.slice(0, 50).map(capValue) : capValue(v);
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
