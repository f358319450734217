import { createHash } from "node:crypto";
import type { RunState } from "../core/engine/state.js";
import { runSeed, summaryRecords } from "../core/trace/build.js";
import { mergeTraces } from "../core/trace/export.js";
import type {
  StoredTraceRecord,
  TraceRecord,
  TraceRun,
  TraceRunSeed,
} from "../core/trace/types.js";
import type { TraceLog, TraceRead } from "./ports.js";

export type { TraceLog, TraceRead };

/** JSON with every object's keys sorted: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sorted(value, 0)) ?? "null";
}

function sorted(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) return null;
    if (typeof value === "bigint") return value.toString();
    return value;
  }
  if (depth > 64) return "[too deep]";
  if (Array.isArray(value)) return value.map((v) => sorted(v, depth + 1) ?? null);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
    out[key] = sorted(v, depth + 1);
  }
  return out;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** `sha256:<hex>` of a value's canonical JSON: what a trace keeps of inputs and outputs. */
export function digest(value: unknown): string {
  return `sha256:${sha256(canonicalJson(value))}`;
}

/** A trace's id: 32 hex digits derived from the run the trace started with. */
export function traceIdOf(rootRunId: string): string {
  return sha256(`playbook-bot trace\0${rootRunId}`).slice(0, 32);
}

/** A span's id: 16 hex digits derived from its seed (see src/core/trace/build.ts). */
export function spanIdOf(key: string): string {
  return sha256(`playbook-bot span\0${key}`).slice(0, 16);
}

/**
 * A record as it is kept: its ids derived, its inputs and outputs reduced to digests. Only the
 * fields a stored record has are copied, so no raw value reaches a store.
 */
export function storedRecord(r: TraceRecord): StoredTraceRecord {
  const s: StoredTraceRecord = {
    trace_id: traceIdOf(r.root_run_id),
    span_id: spanIdOf(r.span_key),
    parent_span_id: spanIdOf(r.parent_key),
    run_id: r.run_id,
    seq: r.seq,
    time: r.time,
    end: r.end,
    duration_ms: r.duration_ms,
    event: r.event,
    actor: r.actor,
    target: r.target,
    authority: { claim: r.authority.claim, granted: r.authority.granted },
    playbook: r.playbook,
    depth: r.depth,
    outcome: r.outcome,
  };
  if (r.authority.by !== undefined) s.authority.by = r.authority.by;
  if (r.event_id !== undefined) s.event_id = r.event_id;
  if (r.step !== undefined) s.step = r.step;
  if (r.kind !== undefined) s.kind = r.kind;
  if (r.tool !== undefined) s.tool = r.tool;
  if (r.delegation) {
    s.delegation = { playbook: r.delegation.playbook, mode: r.delegation.mode };
    if (r.delegation.run_id !== undefined) s.delegation.run_id = r.delegation.run_id;
  }
  if (r.inputs !== undefined) s.inputs = digest(r.inputs);
  if (r.outputs !== undefined) s.outputs = digest(r.outputs);
  if (r.detail !== undefined) s.detail = r.detail;
  return s;
}

export function storedRecords(records: readonly TraceRecord[]): StoredTraceRecord[] {
  return records.map(storedRecord);
}

/** A run's span for an export: its ids derived from its seeds. */
export function storedRun(seed: TraceRunSeed, dropped = 0): TraceRun {
  const run: TraceRun = {
    run_id: seed.run_id,
    trace_id: traceIdOf(seed.root_run_id),
    span_id: spanIdOf(seed.span_key),
    playbook: seed.playbook,
    status: seed.status,
    initiator: seed.initiator,
    started_at: seed.started_at,
    updated_at: seed.updated_at,
  };
  if (seed.parent_key !== undefined) run.parent_span_id = spanIdOf(seed.parent_key);
  if (seed.origin_run_id !== undefined) run.origin_run_id = seed.origin_run_id;
  if (seed.error !== undefined) run.error = seed.error;
  if (dropped > 0) run.dropped = dropped;
  return run;
}

/**
 * A run's whole trace from what is known of it: the records a trace log kept (first, the richest)
 * and those rebuilt from the state's bounded summary for what the log lacks.
 */
export function traceOfRun(
  run: RunState,
  logged: TraceRead = { records: [], dropped: 0 },
): { runs: TraceRun[]; records: StoredTraceRecord[] } {
  return {
    runs: [storedRun(runSeed(run), logged.dropped)],
    records: mergeTraces(logged.records, storedRecords(summaryRecords(run))),
  };
}

/**
 * A trace log whose failures are reported and swallowed: a trace that cannot be written never
 * stops a run, and one that cannot be read reads as empty.
 */
export function guardedTraceLog(log: TraceLog, report: (message: string) => void): TraceLog {
  const say = (what: string, runId: string, err: unknown): void =>
    report(
      `trace: could not ${what} the records of run ${runId}: ${err instanceof Error ? err.message : String(err)}`,
    );
  return {
    append: async (runId, records) => {
      try {
        await log.append(runId, records);
      } catch (err) {
        say("append", runId, err);
      }
    },
    read: async (runId) => {
      try {
        return await log.read(runId);
      } catch (err) {
        say("read", runId, err);
        return { records: [], dropped: 0 };
      }
    },
  };
}

/**
 * One repository's view of a trace log shared by many (the app's): run ids are unique within a
 * repository only, so each is kept under `<scope>:<run id>`.
 */
export function scopedTraceLog(log: TraceLog, scope: string): TraceLog {
  return {
    append: (runId, records) => log.append(`${scope}:${runId}`, records),
    read: (runId) => log.read(`${scope}:${runId}`),
  };
}
