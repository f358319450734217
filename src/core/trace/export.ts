import { TRACE_FORMAT, type StoredTraceRecord, type TraceOutcome, type TraceRun } from "./types.js";

/**
 * Exports of a trace: the trace's own JSON (`playbook-bot-trace/v1`) and OpenTelemetry's OTLP/JSON.
 * Pure: records and runs in, a JSON-ready value out.
 */

export type TraceFormat = "json" | "otlp";

/**
 * `playbook-bot-trace/v1`: the runs (one span each) and their records, oldest first. `trace_id`
 * is the trace every run belongs to, or null when the export holds runs of several traces.
 * `dropped`: records bounded stores dropped (the runs say whose).
 */
export interface TraceDocument {
  format: typeof TRACE_FORMAT;
  trace_id: string | null;
  runs: TraceRun[];
  records: StoredTraceRecord[];
  dropped: number;
}

/** An OTLP/JSON attribute value: 64-bit integers are decimal strings. */
export type OtlpValue = { stringValue: string } | { intValue: string } | { boolValue: boolean };

export interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}

/** `kind` 1 is SPAN_KIND_INTERNAL; status `code` 1 is OK, 2 is ERROR. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: 1;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpAttribute[];
  status: { code: 1 | 2; message?: string };
}

/** An ExportTraceServiceRequest as OTLP/JSON: ids as hex, enums as integers, times as strings. */
export interface OtlpTrace {
  resourceSpans: {
    resource: { attributes: OtlpAttribute[] };
    scopeSpans: { scope: { name: string; version?: string }; spans: OtlpSpan[] }[];
  }[];
}

export interface ExportOptions {
  /** The version of playbook-bot that exports (OTLP `service.version` and the scope's version). */
  version?: string;
}

function timeOf(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : 0;
}

function txKey(r: StoredTraceRecord): string {
  return `tx\0${r.run_id}\0${r.event}\0${r.end}`;
}

function eventKey(r: StoredTraceRecord): string | undefined {
  return r.event_id === undefined ? undefined : `ev\0${r.run_id}\0${r.event_id}\0${r.step ?? ""}`;
}

/**
 * Records from several sources as one trace, oldest first (by start, then end). Sources are given
 * richest first (a trace log, then a state's bounded summary, then records rebuilt from an issue's
 * thread): a record is dropped when one with its span id came before, or when an earlier source
 * has a record of the same act — the same event id and step, or (for a record without an event
 * id) the same event ending at the same time in the same run.
 */
export function mergeTraces(
  ...sources: readonly (readonly StoredTraceRecord[])[]
): StoredTraceRecord[] {
  const spans = new Set<string>();
  const earlier = new Set<string>();
  const kept: { record: StoredTraceRecord; order: number }[] = [];
  for (const source of sources) {
    const keys: string[] = [];
    for (const record of source) {
      if (spans.has(record.span_id)) continue;
      const ev = eventKey(record);
      if (earlier.has(ev ?? txKey(record))) continue;
      spans.add(record.span_id);
      keys.push(txKey(record));
      if (ev) keys.push(ev);
      kept.push({ record, order: kept.length });
    }
    for (const k of keys) earlier.add(k);
  }
  return kept
    .sort(
      (a, b) =>
        timeOf(a.record.time) - timeOf(b.record.time) ||
        timeOf(a.record.end) - timeOf(b.record.end) ||
        a.order - b.order,
    )
    .map((k) => k.record);
}

/** The trace as `playbook-bot-trace/v1`. */
export function traceDocument(
  records: readonly StoredTraceRecord[],
  runs: readonly TraceRun[],
): TraceDocument {
  const ids = new Set([...runs.map((r) => r.trace_id), ...records.map((r) => r.trace_id)]);
  return {
    format: TRACE_FORMAT,
    trace_id: ids.size === 1 ? ([...ids][0] as string) : null,
    runs: [...runs],
    records: [...records],
    dropped: runs.reduce((n, r) => n + (r.dropped ?? 0), 0),
  };
}

function str(key: string, value: string | undefined): OtlpAttribute[] {
  return value === undefined ? [] : [{ key, value: { stringValue: value } }];
}

function int(key: string, value: number | undefined): OtlpAttribute[] {
  return value === undefined ? [] : [{ key, value: { intValue: String(Math.trunc(value)) } }];
}

function bool(key: string, value: boolean): OtlpAttribute[] {
  return [{ key, value: { boolValue: value } }];
}

/** Nanoseconds since the epoch, as OTLP/JSON writes a fixed64: a decimal string. */
export function unixNano(iso: string): string {
  return (BigInt(timeOf(iso)) * 1_000_000n).toString();
}

const ERROR_OUTCOMES: ReadonlySet<TraceOutcome> = new Set(["failure", "refused"]);

const NS = "playbook_bot";

function recordSpan(r: StoredTraceRecord): OtlpSpan {
  const error = ERROR_OUTCOMES.has(r.outcome);
  return {
    traceId: r.trace_id,
    spanId: r.span_id,
    parentSpanId: r.parent_span_id,
    name: r.step ? `${r.kind ?? "step"} ${r.step}` : `run ${r.event}`,
    kind: 1,
    startTimeUnixNano: unixNano(r.time),
    endTimeUnixNano: unixNano(r.end),
    attributes: [
      ...str(`${NS}.run_id`, r.run_id),
      ...int(`${NS}.seq`, r.seq),
      ...str(`${NS}.event`, r.event),
      ...str(`${NS}.event_id`, r.event_id),
      ...str(`${NS}.actor`, r.actor),
      ...str(`${NS}.target`, r.target),
      ...str(`${NS}.authority.claim`, r.authority.claim),
      ...str(`${NS}.authority.by`, r.authority.by),
      ...bool(`${NS}.authority.granted`, r.authority.granted),
      ...str(`${NS}.playbook`, r.playbook),
      ...int(`${NS}.depth`, r.depth),
      ...str(`${NS}.step`, r.step),
      ...str(`${NS}.step.kind`, r.kind),
      ...str(`${NS}.tool`, r.tool),
      ...str(`${NS}.delegation.playbook`, r.delegation?.playbook),
      ...str(`${NS}.delegation.mode`, r.delegation?.mode),
      ...str(`${NS}.delegation.run_id`, r.delegation?.run_id),
      ...str(`${NS}.inputs.digest`, r.inputs),
      ...str(`${NS}.outputs.digest`, r.outputs),
      ...str(`${NS}.outcome`, r.outcome),
      ...str(`${NS}.detail`, r.detail),
      ...int(`${NS}.duration_ms`, r.duration_ms),
    ],
    status: error ? { code: 2, message: r.detail ?? r.outcome } : { code: 1 },
  };
}

function runSpan(run: TraceRun, records: readonly StoredTraceRecord[]): OtlpSpan {
  const ends = records.filter((r) => r.run_id === run.run_id).map((r) => r.end);
  const end = [run.updated_at, ...ends].reduce((a, b) => (timeOf(b) > timeOf(a) ? b : a));
  const span: OtlpSpan = {
    traceId: run.trace_id,
    spanId: run.span_id,
    name: `run ${run.playbook}`,
    kind: 1,
    startTimeUnixNano: unixNano(run.started_at),
    endTimeUnixNano: unixNano(end),
    attributes: [
      ...str(`${NS}.run_id`, run.run_id),
      ...str(`${NS}.playbook`, run.playbook),
      ...str(`${NS}.run.status`, run.status),
      ...str(`${NS}.run.initiator`, run.initiator),
      ...str(`${NS}.run.origin_run_id`, run.origin_run_id),
      ...str(`${NS}.run.error`, run.error),
      ...int(`${NS}.run.dropped`, run.dropped),
    ],
    status:
      run.status === "failed"
        ? { code: 2, message: run.error ? `failed (${run.error})` : "failed" }
        : { code: 1 },
  };
  if (run.parent_span_id !== undefined) span.parentSpanId = run.parent_span_id;
  return span;
}

/**
 * The trace as OTLP/JSON: one span per run (its records' parent) and one per record, in one
 * resource (`service.name` playbook-bot) and one scope.
 */
export function otlpTrace(
  records: readonly StoredTraceRecord[],
  runs: readonly TraceRun[],
  options: ExportOptions = {},
): OtlpTrace {
  const scope: { name: string; version?: string } = { name: "playbook-bot" };
  if (options.version !== undefined) scope.version = options.version;
  return {
    resourceSpans: [
      {
        resource: {
          attributes: [
            ...str("service.name", "playbook-bot"),
            ...str("service.version", options.version),
          ],
        },
        scopeSpans: [
          {
            scope,
            spans: [...runs.map((run) => runSpan(run, records)), ...records.map(recordSpan)],
          },
        ],
      },
    ],
  };
}

/** The trace in the format asked for: what `playbook-bot trace` prints. */
export function exportTrace(
  records: readonly StoredTraceRecord[],
  runs: readonly TraceRun[],
  format: TraceFormat,
  options: ExportOptions = {},
): TraceDocument | OtlpTrace {
  return format === "otlp" ? otlpTrace(records, runs, options) : traceDocument(records, runs);
}
