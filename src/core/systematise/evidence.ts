/**
 * What an issue shows about the work done on it, already read from GitHub and bounded by the
 * caller: the drafting and improvement functions of this folder take it as plain, serialisable
 * data and do no I/O. Every string in it comes from people and is treated as untrusted.
 */
import type { Permission } from "../format/types.js";

/** A value recorded with `/record key=value` (or found by a tool). */
export type FindingValue = string | number | boolean;

export interface IssueEvidence {
  repo?: { owner: string; name: string };
  issue: { number: number; title: string; labels: string[] };
  /** Work recorded on the issue with no run waiting for it, in the order it was written. */
  adhoc: AdhocEntry[];
  /** Runs on the issue, oldest first. */
  runs: RunEvidence[];
  /** Pull requests linked to the issue. */
  pullRequests: LinkedPullRequest[];
}

/**
 * One piece of work done by hand: a finding (`/record k=v` with no run waiting), a note (any other
 * comment worth keeping), a choice between ways on (`/choose <label>`), or an approval
 * (`/approve`, `/reject`). `at` is an ISO 8601 instant; it orders the entries among the runs' steps.
 */
export type AdhocEntry =
  | { kind: "record"; key: string; value: FindingValue; actor: string; at: string }
  | { kind: "note"; text: string; actor: string; at: string }
  | { kind: "choice"; label: string; condition?: string; actor: string; at: string }
  | {
      kind: "approval";
      by: string;
      decision: "approve" | "reject";
      /** The person's role in the repository, when the caller looked it up. */
      permission?: Permission;
      at: string;
    };

/** One person's vote at a step that asked for approval. */
export interface Approval {
  by: string;
  decision: "approve" | "reject";
  /** The person's role in the repository, when the caller looked it up. */
  permission?: Permission;
}

export interface RunEvidence {
  playbook: string;
  runId: string;
  status: "completed" | "failed" | "cancelled" | "waiting" | "running";
  /** Steps entered, in order; a delegated playbook's steps as `<playbook>/<step>`. */
  path: StepVisit[];
  /** The issue the run was on, when runs of several issues are given together. */
  issue?: number;
}

export interface StepVisit {
  step: string;
  kind: string;
  status: "completed" | "skipped" | "failed" | "waiting";
  /** The branch label taken (`/choose`, or a `when:` branch). */
  choice?: string;
  /** The prose of the branch taken, when it was a `condition:` branch. */
  condition?: string;
  findings?: Record<string, FindingValue>;
  approvals?: Approval[];
  /** When the step was entered (ISO 8601). */
  at?: string;
}

export interface LinkedPullRequest {
  number: number;
  title: string;
  branch?: string;
  base?: string;
  merged: boolean;
  files?: string[];
  approvedBy?: string[];
  /** When it was merged, or else opened (ISO 8601): where it stands among the other work. */
  at?: string;
}

/** Work done by hand on the issue of a run after the run ended, or while it waited. */
export interface RunAdhoc {
  runId: string;
  entries: AdhocEntry[];
}

/** The instant of an ISO 8601 time, or undefined when it is missing or not a time. */
export function instant(at: string | undefined): number | undefined {
  if (typeof at !== "string" || at.length > 64) return undefined;
  const t = Date.parse(at);
  return Number.isFinite(t) ? t : undefined;
}
