import type { PlaybookError } from "./errors.js";
import type { Actor, RunState, Scalar, Value } from "./state.js";
import type { EffectSpecs } from "../steps/effects.js";
import type { TraceRecord } from "../trace/types.js";

export type CommandName = "approve" | "reject" | "choose" | "record" | "call" | "retry" | "cancel";

export interface CommandArgs {
  /** Words that are not k=v, in order (`/approve deploy` → ["deploy"]). */
  positional: string[];
  /** k=v pairs (`/record failing_pods=3`). */
  values: Record<string, string>;
  /** The rest of the line as written (a reason, a note). */
  text: string;
}

/** Everything that can move a run. Each carries a unique id (delivery or comment id) for dedupe. */
export type RunEvent =
  | { type: "continue"; id: string; seq: number }
  | {
      type: "command";
      id: string;
      command: CommandName;
      args: CommandArgs;
      actor: Actor;
      /**
       * The authors of the other approvals the waiting step holds, looked up again as this command
       * arrived. When given, an earlier approval counts only if its author still passes the policy
       * (one missing here does not): a completed approval never rests on a lost role.
       */
      voters?: Actor[];
      commentId?: string;
      createdAt: string;
    }
  | { type: "effect_result"; id: string; key: string; ok: true; outputs: Record<string, Value> }
  | { type: "effect_result"; id: string; key: string; ok: false; error: PlaybookError }
  | {
      type: "pull_request";
      id: string;
      number: number;
      merged: boolean;
      url?: string;
      mergeSha?: string;
    }
  | {
      type: "workflow_run";
      id: string;
      workflow: string;
      runId?: number;
      conclusion: string;
      url?: string;
      /** What GitHub says about the run (absent only where no GitHub ran it: local runs, tests). */
      run?: WorkflowRunFacts;
    }
  | { type: "alert_resolved"; id: string; fingerprint?: string }
  | { type: "vote_withdrawn"; id: string; commentId: string }
  | { type: "timeout"; id: string };

/** The fields of a GitHub `workflow_run` (webhook or REST) that tell whose run it is. */
export interface WorkflowRunFacts {
  /** What started it: `workflow_dispatch` for a dispatch. */
  event: string;
  /** The workflow file, `.github/workflows/<file>`. */
  path: string;
  workflowId: number;
  headBranch: string | null;
  createdAt: string;
  actor?: string;
  triggeringActor?: string;
  /** The repository the run belongs to, `owner/name`, and its id. */
  repository: string;
  repositoryId: number;
  /** The repository of the code it ran: another one (a fork) for a fork's pull request. */
  headRepositoryId?: number;
  /** The run's title: the workflow's `run-name` when it has one. */
  displayTitle?: string;
}

/** The kinds of effect steps ask for; each step kind's `effect.ts` types its params and outputs. */
export type EffectKind = keyof EffectSpecs;

export type EffectParams<K extends EffectKind = EffectKind> = EffectSpecs[K]["params"];

export type EffectOutputs<K extends EffectKind = EffectKind> = EffectSpecs[K]["outputs"];

/**
 * Work for an adapter, one variant per kind: `kind` tells the params apart. `key` (run, step,
 * attempt) lets the adapter find it instead of redoing it.
 */
export type Effect<K extends EffectKind = EffectKind> = {
  [P in K]: { key: string; kind: P; step: string; params: EffectParams<P> };
}[K];

export type MessageKind =
  "info" | "waiting" | "reminder" | "refusal" | "failure" | "done" | "report";

/** Text for people, written by the engine; adapters decide where it goes (comment, terminal). */
export interface Message {
  kind: MessageKind;
  /**
   * GitHub Markdown built as a tree (src/core/markdown): every value from people, alerts or playbooks
   * is in a text or code node, so it is inert. Mentions in it are inert too; `to` says who to
   * notify.
   */
  text: string;
  /** People the message is for (approvers awaited), without '@'. */
  to?: string[];
}

/** What an adapter tells the person who sent a command: 🚀 accepted, 👎 refused, nothing for ignored. */
export interface Reply {
  outcome: "accepted" | "refused" | "ignored";
  /**
   * Plain text; `` `code` `` and `**bold**` are the only marks an adapter renders (`spans` in
   * src/core/markdown), everything else is shown as written and inert.
   */
  reason?: string;
}

/** A step that reached a final result in this transition (a delegated child's too, even once popped). */
export interface StepFinished {
  playbook: string;
  step: string;
  kind: string;
  status: "completed" | "skipped" | "failed" | "ignored";
  /** 0 for the run's own playbook, 1 for a child it delegated to, … */
  depth: number;
  outputs?: Record<string, Value>;
}

export interface AdvanceResult {
  run: RunState;
  effects: Effect[];
  messages: Message[];
  finished: StepFinished[];
  reply?: Reply;
  /** The run can move without outside input: send a continuation. */
  continue: boolean;
  /** Earliest time something is due (a retry backoff, a reminder, a timeout). */
  wakeAt?: string;
  /** Whether the state changed (false: a duplicate, stale or irrelevant event). */
  changed: boolean;
  /**
   * What the transition did, one trace record per act (src/core/trace): absent when it did
   * nothing worth a record. Raw values: the runtime digests them before they are kept.
   */
  records?: TraceRecord[];
}

export type InputValues = Record<string, Scalar>;
