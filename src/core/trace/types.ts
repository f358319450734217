/**
 * Run traces: one record per act of a run (a step that finished, an effect asked for, a wait that
 * began, a delegation, a command, the run's start and end), with who acted, on what, under which
 * authority, with which tool, how long it took and how it ended.
 *
 * The engine builds `TraceRecord`s (raw inputs and outputs, and the seeds of their ids); the
 * runtime turns them into `StoredTraceRecord`s (ids hashed, inputs and outputs reduced to digests)
 * before anything keeps them. Everything here is pure.
 */

/** The `format` of an exported trace (see export.ts). */
export const TRACE_FORMAT = "playbook-bot-trace/v1";

/** The longest text a record keeps in one field: values from people and playbooks are bounded. */
export const TRACE_TEXT_MAX = 200;

/** The actor of what the bot does by itself (continuations, effects, time). */
export const APP_ACTOR = "playbook-bot";

export const TRACE_OUTCOMES = [
  "success",
  "failure",
  "escalation",
  "waiting",
  "refused",
  "cancelled",
] as const;

/**
 * How an act ended: `success`; `failure`; `escalation` (the run waits for an approval: a
 * checkpoint, an ask-first gate); `waiting` (for an effect's result, a merge, findings, a choice);
 * `refused` (a command that was not allowed); `cancelled`.
 */
export type TraceOutcome = (typeof TRACE_OUTCOMES)[number];

/**
 * The authority behind an act: for a command, the actor's repository permission (`write`, …);
 * for what the bot does, the step's authority (`just-do-it`, `show-me`, `ask-first`). `by`: who
 * holds it (the commenter, the approvers, or the initiator the run acts for).
 */
export interface TraceAuthority {
  claim: string;
  by?: string;
  granted: boolean;
}

/**
 * A playbook started from this act: `delegate` runs it in the same run and comes back (`run_id`
 * is that run), `handoff` ends this run and starts it as a new run (whose id is not known yet).
 */
export interface TraceDelegation {
  playbook: string;
  mode: "delegate" | "handoff";
  run_id?: string;
}

/** The fields a record has before and after the runtime stores it. */
export interface TraceFields {
  run_id: string;
  /** The run's sequence number after the act (0 when unknown: a record rebuilt from a summary). */
  seq: number;
  /** When the act began (an effect: when it was asked for; a wait: when it began). */
  time: string;
  end: string;
  duration_ms: number;
  /** What moved the run: `start`, `/approve`, `continue`, `effect_result`, `timeout`, … */
  event: string;
  event_id?: string;
  /** A login, or `playbook-bot` for what the bot did by itself. */
  actor: string;
  /** What was acted on: `step <id>` or `run`. */
  target: string;
  authority: TraceAuthority;
  /** The playbook the act belongs to, and how deep it runs (0: the run's own, 1: a delegate). */
  playbook: string;
  depth: number;
  step?: string;
  /** The step's kind. */
  kind?: string;
  /** The tool or skill used: tool names, `ai` (with its tools), `git`, or the effect's kind. */
  tool?: string;
  delegation?: TraceDelegation;
  outcome: TraceOutcome;
  /** A short text (bounded): what the engine said of the act, a refusal's reason. */
  detail?: string;
}

/** A record as the engine builds it: raw values and the seeds of its ids. */
export interface TraceRecord extends TraceFields {
  /** The run the trace started with (this run, or the one a handoff came from). */
  root_run_id: string;
  /** Hashed by the runtime into the span id and the parent's span id. */
  span_key: string;
  parent_key: string;
  /** Raw values: the runtime keeps only their digests. */
  inputs?: unknown;
  outputs?: unknown;
}

/** A record as it is kept and exported. */
export interface StoredTraceRecord extends TraceFields {
  /** 32 lower-case hex digits, the same for every run of one trace. */
  trace_id: string;
  /** 16 lower-case hex digits, unique per record and the same when it is built again. */
  span_id: string;
  parent_span_id: string;
  /** `sha256:<hex>` of the canonical JSON of the value (keys sorted). */
  inputs?: string;
  outputs?: string;
}

/** A run as the engine describes it for its trace: the seeds of its span. */
export interface TraceRunSeed {
  run_id: string;
  root_run_id: string;
  span_key: string;
  parent_key?: string;
  playbook: string;
  status: string;
  initiator: string;
  started_at: string;
  updated_at: string;
  /** The run that handed off to this one. */
  origin_run_id?: string;
  /** The code of the error the run failed or was cancelled with. */
  error?: string;
}

/** A run in an exported trace: its own span, the parent of its records. */
export interface TraceRun {
  run_id: string;
  trace_id: string;
  span_id: string;
  parent_span_id?: string;
  playbook: string;
  status: string;
  initiator: string;
  started_at: string;
  updated_at: string;
  origin_run_id?: string;
  error?: string;
  /** Records a bounded store dropped (the oldest first). */
  dropped?: number;
}

/** Text bounded to `max` characters, control characters made spaces. */
export function boundText(text: string, max = TRACE_TEXT_MAX): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, " ");
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

const HEX32 = /^[0-9a-f]{32}$/;
const HEX16 = /^[0-9a-f]{16}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const OUTCOMES: ReadonlySet<string> = new Set(TRACE_OUTCOMES);

function text(v: unknown, max = TRACE_TEXT_MAX): string | undefined {
  return typeof v === "string" ? boundText(v, max) : undefined;
}

function instant(v: unknown): string | undefined {
  return typeof v === "string" && v.length <= 40 && Number.isFinite(Date.parse(v)) ? v : undefined;
}

/**
 * A stored record read back from somewhere someone else could write (a file, a shared store): the
 * record with its fields checked and bounded, or undefined when it is not one. Unknown fields go.
 */
export function checkStoredRecord(value: unknown): StoredTraceRecord | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const time = instant(v.time);
  const end = instant(v.end);
  const auth = v.authority as Record<string, unknown> | undefined;
  if (
    typeof v.trace_id !== "string" ||
    !HEX32.test(v.trace_id) ||
    typeof v.span_id !== "string" ||
    !HEX16.test(v.span_id) ||
    typeof v.parent_span_id !== "string" ||
    !HEX16.test(v.parent_span_id) ||
    typeof v.run_id !== "string" ||
    !time ||
    !end ||
    typeof v.outcome !== "string" ||
    !OUTCOMES.has(v.outcome) ||
    typeof v.event !== "string" ||
    typeof v.actor !== "string" ||
    typeof v.target !== "string" ||
    typeof v.playbook !== "string" ||
    !auth ||
    typeof auth !== "object" ||
    typeof auth.claim !== "string" ||
    typeof auth.granted !== "boolean"
  )
    return undefined;
  const count = (n: unknown): number =>
    typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : 0;
  const r: StoredTraceRecord = {
    trace_id: v.trace_id,
    span_id: v.span_id,
    parent_span_id: v.parent_span_id,
    run_id: boundText(v.run_id, 64),
    seq: count(v.seq),
    time,
    end,
    duration_ms: count(v.duration_ms),
    event: boundText(v.event),
    actor: boundText(v.actor),
    target: boundText(v.target),
    authority: { claim: boundText(auth.claim), granted: auth.granted },
    playbook: boundText(v.playbook),
    depth: count(v.depth),
    outcome: v.outcome as TraceOutcome,
  };
  const by = text(auth.by);
  if (by !== undefined) r.authority.by = by;
  for (const key of ["event_id", "step", "kind", "tool", "detail"] as const) {
    const t = text(v[key]);
    if (t !== undefined) r[key] = t;
  }
  for (const key of ["inputs", "outputs"] as const) {
    const d = v[key];
    if (typeof d === "string" && DIGEST.test(d)) r[key] = d;
  }
  const del = v.delegation as Record<string, unknown> | undefined;
  if (
    del &&
    typeof del === "object" &&
    typeof del.playbook === "string" &&
    (del.mode === "delegate" || del.mode === "handoff")
  ) {
    r.delegation = { playbook: boundText(del.playbook), mode: del.mode };
    const run = text(del.run_id, 64);
    if (run !== undefined) r.delegation.run_id = run;
  }
  return r;
}

/** Records that are records (checked and bounded, see checkStoredRecord), each span once. */
export function checkStoredRecords(records: readonly unknown[]): StoredTraceRecord[] {
  const seen = new Set<string>();
  const out: StoredTraceRecord[] = [];
  for (const r of records) {
    const checked = checkStoredRecord(r);
    if (!checked || seen.has(checked.span_id)) continue;
    seen.add(checked.span_id);
    out.push(checked);
  }
  return out;
}
