import type { PlaybookError } from "./errors.js";
import type { Actor, RunState, Scalar, Value } from "./state.js";

export type CommandName = "approve" | "reject" | "choose" | "record" | "retry" | "cancel";

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
    }
  | { type: "alert_resolved"; id: string; fingerprint?: string }
  | { type: "vote_withdrawn"; id: string; commentId: string }
  | { type: "timeout"; id: string };

export type EffectKind =
  | "comment"
  | "branch"
  | "commit"
  | "pull_request"
  | "issue"
  | "label"
  | "close"
  | "dispatch"
  | "ai"
  | "start_playbook";

/** Work for an adapter. `key` (run, step, attempt) lets the adapter find it instead of redoing it. */
export interface Effect {
  key: string;
  kind: EffectKind;
  step: string;
  params: Record<string, unknown>;
}

export type MessageKind =
  "info" | "waiting" | "reminder" | "refusal" | "failure" | "done" | "report";

/** Text for people, written by the engine; adapters decide where it goes (comment, terminal). */
export interface Message {
  kind: MessageKind;
  text: string;
  /** People the message is for (approvers awaited), without '@'. */
  to?: string[];
}

/** What an adapter tells the person who sent a command: 🚀 accepted, 👎 refused, nothing for ignored. */
export interface Reply {
  outcome: "accepted" | "refused" | "ignored";
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
}

export type InputValues = Record<string, Scalar>;
