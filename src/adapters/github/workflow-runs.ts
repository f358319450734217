import { createHash } from "node:crypto";
import type { WorkflowRunFacts } from "../../core/engine/events.js";

/** A `workflow_run` as the webhook and the REST API both give it (the fields used here). */
export interface RawWorkflowRun {
  id: number;
  event?: string | null;
  path?: string | null;
  workflow_id?: number | null;
  head_branch?: string | null;
  created_at?: string | null;
  status?: string | null;
  conclusion?: string | null;
  html_url?: string | null;
  display_title?: string | null;
  actor?: { login?: string | null } | null;
  triggering_actor?: { login?: string | null } | null;
  repository?: { id?: number | null; full_name?: string | null } | null;
  head_repository?: { id?: number | null; full_name?: string | null } | null;
}

/** The facts the dispatch step matches a run by; unknown fields stay empty, so they match nothing. */
export function workflowRunFacts(run: RawWorkflowRun): WorkflowRunFacts {
  const facts: WorkflowRunFacts = {
    event: run.event ?? "",
    path: run.path ?? "",
    workflowId: run.workflow_id ?? -1,
    headBranch: run.head_branch ?? null,
    createdAt: run.created_at ?? "",
    repository: run.repository?.full_name ?? "",
    repositoryId: run.repository?.id ?? -1,
  };
  if (run.actor?.login) facts.actor = run.actor.login;
  if (run.triggering_actor?.login) facts.triggeringActor = run.triggering_actor.login;
  // A run without its head repository is not known to be of this repository's own code.
  facts.headRepositoryId = run.head_repository?.id ?? -2;
  if (run.display_title) facts.displayTitle = run.display_title;
  return facts;
}

/**
 * The value a dispatch sets its `correlation_input` to: the effect's key (run, step, attempt),
 * which no other dispatch has; a very long key is shortened with its hash.
 */
export function dispatchCorrelation(key: string): string {
  if (key.length <= 128) return key;
  return `${key.slice(0, 64)}~${createHash("sha256").update(key).digest("hex").slice(0, 32)}`;
}

/** A run's `head_branch` for a dispatched ref: the branch or tag name without `refs/heads/`. */
export function dispatchedRef(ref: string): string {
  return ref.replace(/^refs\/(heads|tags)\//, "");
}
