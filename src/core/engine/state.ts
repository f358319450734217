import type { PlaybookError } from "./errors.js";
import type { Permission } from "../format/types.js";

/**
 * Run state: a small, versioned JSON document. It lives in a hidden comment on GitHub and in a
 * file locally, so it holds no file contents and its lists are bounded.
 */
export const STATE_VERSION = 1;
export const MAX_TRACE = 30;
export const MAX_RECENT_EVENTS = 40;
export const MAX_VALUE_LENGTH = 1024;
export const DEFAULT_MAX_STEPS = 500;

export type Scalar = string | number | boolean | null;
export type Value = Scalar | Scalar[];

export type RunStatus = "running" | "waiting" | "completed" | "failed" | "cancelled";

/**
 * Where the current step stands: `pending` (not entered yet: the next continuation enters it),
 * `approval` (an ask-first gate waits before entering), `effect` (an effect was requested and
 * its result is awaited), `waiting` (people or an outside event are awaited).
 */
export type Phase = "pending" | "approval" | "effect" | "waiting";

export interface Actor {
  login: string;
  /** Repository role, resolved by the adapter from the collaborator permission API. */
  permission?: Permission;
  teams?: string[];
  bot?: boolean;
}

export interface Vote {
  user: string;
  decision: "approve" | "reject";
  at: string;
  commentId?: string;
  values?: Record<string, Scalar>;
  note?: string;
}

/**
 * An approval as a fact on the thread: who gave it and the comment they gave it in (GitHub's
 * immutable id), and the comment that asked for it (`prompt`), when known. Before each effect the
 * run service reads the comment again (see src/runtime/run-service/approval-guard.ts), so an
 * approval rests on what GitHub says, not on what the state says.
 */
export interface ApprovalFact {
  user: string;
  comment: string;
  prompt?: string;
}

export interface StepResult {
  /** `running`: the effect is done but the step still waits (e.g. for a merge). */
  status: "running" | "completed" | "skipped" | "failed" | "ignored";
  attempt: number;
  at: string;
  outputs?: Record<string, Value>;
  error?: PlaybookError;
  /** A step answered with an approval: the approvals it completed with, as facts. */
  approvals?: ApprovalFact[];
}

/** One playbook's execution; a delegated child runs in a frame pushed above its parent's. */
export interface Frame {
  playbook: string;
  hash: string;
  commit?: string;
  inputs: Record<string, Scalar>;
  current: string | null;
  phase: Phase;
  /** When the phase began: a command written before it does not count. */
  since: string;
  attempt: number;
  attempts: Record<string, number>;
  /** Earliest time a retry may run (backoff). */
  notBefore?: string;
  results: Record<string, StepResult>;
  /**
   * How steps whose results were folded ended, one character per step in the graph's order
   * (`c` completed, `s` skipped, `f` failed, `i` ignored, `-` not folded): see state-bounds.ts.
   */
  folded?: string;
  findings: Record<string, Scalar>;
  votes: Vote[];
  /** Step ids whose ask-first approval has been given for the current attempt. */
  approved?: string[];
  /** Who gave each ask-first approval in `approved`: checked again before the step acts. */
  approvedBy?: Record<string, string[]>;
  /** The same ask-first approvals as facts (the comments they were given in). */
  approvalFacts?: Record<string, ApprovalFact[]>;
  reminded?: boolean;
  /** Idempotency key of the effect awaited in phase `effect`. */
  effectKey?: string;
  /** What an outside event must match (a pull request number, a workflow). */
  awaiting?: {
    pullRequest?: number;
    /** The dispatched workflow: its file name (`deploy.yml`) or its numeric id. */
    workflow?: string;
    /** The dispatched run's id, when GitHub returned it: only that run ends the wait. */
    workflowRun?: number;
    /** Without the run's id: what only the run this step dispatched has (see dispatch.ts). */
    dispatched?: DispatchedRun;
  };
  /**
   * The comment that announced the current wait (GitHub's id orders the answers: a command in an
   * older comment does not count); valid while `since` is the same.
   */
  prompt?: { comment: string; since: string };
  /** Set in a child frame: the parent's step to resume. */
  returnTo?: string;
  /**
   * Lines that run beside one another (the branches of a `parallel` step, the items of a
   * `for_each`, the steps of a `needs:` list), by key: each has its own current step and phase.
   * Absent in a frame that runs one step at a time.
   */
  lanes?: Record<string, Lane>;
  /** What each waiting line waits for: its lanes, by fork key (see `Fork`). */
  forks?: Record<string, Fork>;
  /** Set on a lane's view only (never stored): a for_each item and its index. */
  item?: Scalar;
  itemIndex?: number;
}

/** The fields that say where a line stands: a frame's own line, or a lane's. */
export const LINE_FIELDS = [
  "current",
  "phase",
  "since",
  "attempt",
  "notBefore",
  "votes",
  "approved",
  "approvedBy",
  "approvalFacts",
  "reminded",
  "effectKey",
  "awaiting",
  "prompt",
] as const;

/** One line of a fork: where it stands, like a frame's own line. */
export interface Lane
  extends
    Pick<Frame, "current" | "phase" | "since" | "attempt">,
    Partial<
      Pick<Frame, "notBefore" | "votes" | "approved" | "approvedBy" | "approvalFacts" | "reminded">
    >,
    Partial<Pick<Frame, "effectKey" | "awaiting" | "prompt">> {
  /** The fork it belongs to. */
  fork: string;
  /** The branch, the item's index, or the step of a `needs:` list. */
  name: string;
  /** for_each: the item, capped (`MAX_ITEM_LENGTH`), and its index. */
  item?: Scalar;
  index?: number;
  /** for_each: the item's result so far. */
  result?: StepResult;
}

export type LaneEnd = "completed" | "failed" | "cancelled";

/**
 * A step that waits for lanes: a `parallel` step (its key is the step id), a `for_each` step
 * (`each:<step>`), or a line that entered a `needs:` list (`needs:<list key>`).
 */
export interface Fork {
  kind: "parallel" | "for_each" | "needs";
  /** The line that waits: "" for the frame's own, or a lane's key. */
  host: string;
  /** The step the host waits at. */
  step: string;
  /** How each lane that ended, ended, by name (a branch, an item's index, a step). */
  ended: Record<string, LaneEnd>;
  /** The first lane that completed. */
  first?: string;
  /** The first failure, kept for the fork's own. */
  error?: PlaybookError;
  /** for_each: the items, the next index to start, and each item's outputs by index. */
  items?: Scalar[];
  next?: number;
  outputs?: Record<string, Record<string, Value>>;
}

/** The longest item a for_each keeps in the state. */
export const MAX_ITEM_LENGTH = 256;

/** What a dispatch request left to know its run by, each value bounded (`MAX_FACT_LENGTH`). */
export interface DispatchedRun {
  /** The repository dispatched to, `owner/name`. */
  repository: string;
  /** The branch or tag the run was dispatched on (a run's `head_branch`). */
  ref: string;
  /** When GitHub took the request, by GitHub's clock (its `date` header), as an instant. */
  at: string;
  /** The app's bot login (`<slug>[bot]`), the run's actor; absent when the app does not know it. */
  actor?: string;
  /** The value of the playbook's `correlation_input`, shown by the run's `run-name`. */
  correlation?: string;
}

export interface TraceEntry {
  event: string;
  actor?: string;
  step?: string;
  outcome: string;
  start: string;
  end: string;
}

/**
 * Where a run started by another run's handoff came from: its trace goes on in that run's (see
 * src/core/trace). Each value is bounded (`MAX_ORIGIN_KEY`).
 */
export interface RunOrigin {
  /** The run that handed off. */
  run: string;
  /** The run the trace started with (the handing-off run's own origin root, or that run). */
  root: string;
  /** The key of the handoff's `start_playbook` effect (`<run>/handoff/<playbook>`). */
  key: string;
}

/** The longest handoff key a run's origin keeps. */
export const MAX_ORIGIN_KEY = 200;

/** Context captured at start; values are capped so that issue text cannot bloat the state. */
export interface RunContext {
  issue?: { number?: number; title?: string; url?: string; author?: string };
  repo?: { owner?: string; name?: string; full_name?: string; default_branch?: string };
  alert?: Record<string, Scalar | Record<string, Scalar>>;
  url?: string;
}

export interface RunState {
  v: typeof STATE_VERSION;
  id: string;
  status: RunStatus;
  initiator: string;
  /** The initiator's role when the run started: ask_first_below compares against it. */
  initiatorPermission?: Permission;
  startedAt: string;
  updatedAt: string;
  seq: number;
  /** Steps entered so far, across frames: what limits.max_steps bounds. */
  steps: number;
  /** Tool calls the bot made for the run: what limits.max_tool_calls bounds. */
  toolCalls?: number;
  /**
   * Tool calls offered to ai steps whose answer has not come back, by effect key: reserved when
   * offered, so parallel branches and for_each items share what is left instead of each being
   * offered all of it; what a step did not use comes back with its answer.
   */
  toolCallsReserved?: Record<string, number>;
  stack: Frame[];
  context: RunContext;
  error?: PlaybookError;
  end?: {
    status: "success" | "failure" | "neutral";
    conclusion?: string;
    advice?: string;
    handoff?: string[];
  };
  outputs?: Record<string, Value>;
  /** Set when an initiator approved their own run (allowed by the policy); recorded for audit. */
  selfApproved?: string[];
  /** Set when another run handed off to this one. */
  origin?: RunOrigin;
  recentEvents: string[];
  trace: TraceEntry[];
  traceDropped: number;
}

/** The longest token a run id carries after its date and time. */
export const MAX_RUN_TOKEN = 24;

/** What a run id looks like (also read back from state blocks and files): safe in every use. */
export const RUN_ID_PATTERN = "^[0-9]{8}-[0-9]{4}-[a-z0-9]+(-[a-z0-9]+)*$";
export const MAX_RUN_ID = 14 + MAX_RUN_TOKEN;

/**
 * Readable run ids: date and time, then what makes the id unique in the repository —
 * `20261121-2304-42-k3f9q` (the app: issue number and five characters), `20261121-2304-k3f9qz`
 * (the CLI), or a three-digit index for fixed ids (`20261121-2304-007`, also the form of older
 * runs). Ids appear in trailers, markers and branch names, so a token keeps to `[a-z0-9-]`.
 */
export function makeRunId(now: Date, token: string | number): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, "0");
  const tail =
    typeof token === "number"
      ? p(token % 1000, 3)
      : token
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, "-")
          .slice(0, MAX_RUN_TOKEN)
          .replace(/^-+|-+$/g, "")
          .padStart(3, "0");
  return `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}-${tail}`;
}

/** Lower-case letters and digits without look-alikes; 32 of them, so each byte maps evenly. */
const TOKEN_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

/** `length` token characters from bytes (random, or a MAC): five carry 25 bits. */
export function tokenChars(bytes: Uint8Array, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += TOKEN_ALPHABET[(bytes[i % bytes.length] ?? 0) % 32];
  return out;
}

/** A lane's key in its frame: the fork, then the lane's name. */
export function laneKey(fork: string, name: string): string {
  return `${fork}#${name}`;
}

export function activeFrame(run: RunState): Frame {
  const f = run.stack[run.stack.length - 1];
  if (!f) throw new Error("run has no frame");
  return f;
}

export function capValue(v: Scalar): Scalar {
  return typeof v === "string" && v.length > MAX_VALUE_LENGTH
    ? `${v.slice(0, MAX_VALUE_LENGTH - 1)}…`
    : v;
}

export function pushBounded<T>(list: T[], item: T, max: number): number {
  list.push(item);
  const over = list.length - max;
  if (over > 0) list.splice(0, over);
  return Math.max(0, over);
}

export function isFinished(run: RunState): boolean {
  return run.status === "completed" || run.status === "failed" || run.status === "cancelled";
}
