import type { RunState } from "../../core/engine/state.js";
import { boundText, type StoredTraceRecord, type TraceRun } from "../../core/trace/types.js";
import { mergeTraces } from "../../core/trace/export.js";
import { digest, spanIdOf, traceIdOf, traceOfRun } from "../trace.js";
import type { TraceRead } from "../ports.js";
import type { AdhocLog } from "./adhoc-log.js";

/** An issue, as the traces of work on it name it. */
export interface IssueKey {
  owner: string;
  repo: string;
  number: number;
}

/** The id the ad-hoc trace of an issue goes by (it is no run's). */
export function adhocTraceId(issue: IssueKey): string {
  return `adhoc-${issue.number}`;
}

/**
 * The issue's ad-hoc log as a trace of its own: a span for the issue's work by hand, and a record
 * per `/record` or `/note`, by the person who wrote it. Values are kept as digests, like a run's.
 */
export function adhocTrace(
  log: AdhocLog,
  issue: IssueKey,
): { runs: TraceRun[]; records: StoredTraceRecord[] } {
  if (log.entries.length === 0) return { runs: [], records: [] };
  const root = `issue:${issue.owner}/${issue.repo}#${issue.number}`;
  const traceId = traceIdOf(root);
  const span = spanIdOf(`${root}:adhoc`);
  const runId = adhocTraceId(issue);
  const first = log.entries[0]!;
  const last = log.entries.at(-1)!;
  const run: TraceRun = {
    run_id: runId,
    trace_id: traceId,
    span_id: span,
    playbook: "(work by hand)",
    status: "recorded",
    initiator: first.actor,
    started_at: first.at,
    updated_at: last.at,
  };
  if (log.dropped > 0) run.dropped = log.dropped;
  const records = log.entries.map((e, i): StoredTraceRecord => {
    const what = e.kind === "record" ? { [e.key]: e.value } : { note: e.text };
    return {
      trace_id: traceId,
      span_id: spanIdOf(`${root}:adhoc:${e.event}:${e.kind === "record" ? e.key : ""}`),
      parent_span_id: span,
      run_id: runId,
      seq: log.dropped + i + 1,
      time: e.at,
      end: e.at,
      duration_ms: 0,
      event: `/${e.kind}`,
      event_id: e.event,
      actor: e.actor,
      target: "issue",
      // Only people with triage access or more are kept in the log.
      authority: { claim: "triage", by: e.actor, granted: true },
      playbook: "(work by hand)",
      depth: 0,
      outcome: "success",
      outputs: digest(what),
      detail: boundText(e.kind === "record" ? `recorded ${e.key}` : "noted"),
    };
  });
  return { runs: [run], records };
}

/** The key the trace log keeps an issue's refusals under, and their span's run id. */
export function refusalTraceId(issue: IssueKey): string {
  return `refused-${issue.number}`;
}

/** What was refused before any run was involved: a command or a label, and who asked. */
export interface Refusal {
  /** The delivery's id, with the command's place in its comment: the same on redelivery. */
  eventId: string;
  /** `/approve`, `/frobnicate`, `label playbook:deploy`, … (bounded when kept). */
  event: string;
  actor: string;
  /** The actor's repository permission, when it was looked up. */
  permission?: string;
  /** Why (empty: the actor was told by a reaction only). */
  reason: string;
  at: string;
}

/**
 * A refusal as a trace record of the issue's own: the command or label, the permission the
 * actor held (not granted), and the reason. Its span id is derived from the event, so a
 * redelivered refusal is kept once.
 */
export function refusalRecord(issue: IssueKey, r: Refusal): StoredTraceRecord {
  const root = `issue:${issue.owner}/${issue.repo}#${issue.number}`;
  const record: StoredTraceRecord = {
    trace_id: traceIdOf(root),
    span_id: spanIdOf(`${root}:refused:${r.eventId}`),
    parent_span_id: spanIdOf(`${root}:refused`),
    run_id: refusalTraceId(issue),
    seq: 0,
    time: r.at,
    end: r.at,
    duration_ms: 0,
    event: boundText(r.event, 60),
    event_id: boundText(r.eventId, 100),
    actor: boundText(r.actor, 100),
    target: "issue",
    authority: { claim: r.permission ?? "none", by: boundText(r.actor, 100), granted: false },
    playbook: "(refused before a run)",
    depth: 0,
    outcome: "refused",
  };
  if (r.reason) record.detail = boundText(r.reason);
  return record;
}

/** The refusals a trace log kept for an issue, as a span of their own (numbered in order). */
export function refusalTrace(
  read: TraceRead,
  issue: IssueKey,
): { runs: TraceRun[]; records: StoredTraceRecord[] } {
  if (read.records.length === 0) return { runs: [], records: [] };
  const root = `issue:${issue.owner}/${issue.repo}#${issue.number}`;
  const records = read.records.map((r, i) => ({ ...r, seq: read.dropped + i + 1 }));
  const run: TraceRun = {
    run_id: refusalTraceId(issue),
    trace_id: traceIdOf(root),
    span_id: spanIdOf(`${root}:refused`),
    playbook: "(refused before a run)",
    status: "refused",
    initiator: records[0]!.actor,
    started_at: records[0]!.time,
    updated_at: records.at(-1)!.time,
  };
  if (read.dropped > 0) run.dropped = read.dropped;
  return { runs: [run], records };
}

/**
 * The whole trace of an issue: each run's (the records its trace log kept, then those rebuilt
 * from its state's summary), the issue's work by hand, and what was refused before any run was
 * involved, oldest first.
 */
export function issueTrace(
  runs: readonly { run: RunState; logged?: TraceRead }[],
  adhoc: AdhocLog | undefined,
  issue: IssueKey,
  refused?: TraceRead,
): { runs: TraceRun[]; records: StoredTraceRecord[] } {
  const parts = runs.map((r) => traceOfRun(r.run, r.logged));
  if (adhoc) parts.push(adhocTrace(adhoc, issue));
  if (refused) parts.push(refusalTrace(refused, issue));
  return {
    runs: parts
      .flatMap((p) => p.runs)
      .sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at)),
    records: mergeTraces(...parts.map((p) => p.records)),
  };
}
