import { describe, expect, it } from "vitest";
import {
  exportTrace,
  mergeTraces,
  otlpTrace,
  traceDocument,
  unixNano,
  type OtlpAttribute,
  type OtlpTrace,
  type TraceDocument,
} from "../../../src/core/trace/export.js";
import { runSeed, summaryRecords } from "../../../src/core/trace/build.js";
import type { RunState } from "../../../src/core/engine/state.js";
import {
  TRACE_FORMAT,
  checkStoredRecord,
  type StoredTraceRecord,
  type TraceRun,
} from "../../../src/core/trace/types.js";
import { storedRecords, storedRun } from "../../../src/runtime/trace.js";
import { Driver, MAINTAINER, WRITER, bundle, yaml } from "../engine/helpers.js";

const SECRET = "tok_5ecret_9f8e7d";

const PLAYBOOK = yaml`
  apiVersion: playbook-bot/v1
  id: probe
  steps:
    - id: approve
      type: checkpoint
      message: Go?
    - id: query
      type: investigate
      suggested_calls:
        - { tool: vault/read, args: { token: "${SECRET}" }, run: auto }
      expected_findings: [ok]
    - { id: done, type: end }
`;

/** A run that goes through a checkpoint, a tool call with a secret argument and its failure. */
function traced(): { records: StoredTraceRecord[]; runs: TraceRun[] } {
  const d = new Driver(bundle(PLAYBOOK));
  d.start();
  d.drive();
  d.tick(60_000);
  d.command("approve", WRITER);
  d.drive();
  d.tick(1_500);
  d.failEffect("GH-ERROR");
  const records = storedRecords(d.all.flatMap((r) => r.records ?? []));
  return { records, runs: [storedRun(runSeed(d.run))] };
}

function attrs(list: readonly OtlpAttribute[]): Record<string, unknown> {
  return Object.fromEntries(list.map((a) => [a.key, a.value]));
}

describe("the trace's own JSON", () => {
  it("has the documented shape, one trace id, and records that read back as records", () => {
    const { records, runs } = traced();
    const doc = exportTrace(records, runs, "json") as TraceDocument;
    expect(Object.keys(doc)).toEqual(["format", "trace_id", "runs", "records", "dropped"]);
    expect(doc.format).toBe(TRACE_FORMAT);
    expect(doc.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(doc.runs).toEqual(runs);
    expect(doc.records).toHaveLength(records.length);
    expect(doc.records.every((r) => r.trace_id === doc.trace_id)).toBe(true);
    expect(doc.dropped).toBe(0);
    for (const r of doc.records)
      expect(checkStoredRecord(JSON.parse(JSON.stringify(r)))).toEqual(r);
  });

  it("says null for the trace id of an export that mixes traces, and sums what was dropped", () => {
    const { records, runs } = traced();
    const other: TraceRun = { ...(runs[0] as TraceRun), trace_id: "f".repeat(32), dropped: 3 };
    const doc = traceDocument(records, [...runs, { ...(runs[0] as TraceRun), dropped: 2 }, other]);
    expect(doc.trace_id).toBeNull();
    expect(doc.dropped).toBe(5);
  });

  it("never carries a secret of a tool call's arguments, in either format", () => {
    const { records, runs } = traced();
    const call = records.find((r) => r.tool === "vault/read" && r.outcome === "waiting");
    expect(call?.inputs).toMatch(/^sha256:[0-9a-f]{64}$/);
    for (const format of ["json", "otlp"] as const)
      expect(JSON.stringify(exportTrace(records, runs, format))).not.toContain(SECRET);
  });

  it("gives the same ids and digests when the same run is traced again", () => {
    const a = traced();
    const b = traced();
    expect(b.records.map((r) => [r.span_id, r.parent_span_id, r.inputs, r.outputs])).toEqual(
      a.records.map((r) => [r.span_id, r.parent_span_id, r.inputs, r.outputs]),
    );
    expect(new Set(a.records.map((r) => r.span_id)).size).toBe(a.records.length);
  });
});

describe("OTLP/JSON", () => {
  it("writes one resource and scope, a run span and a child span per record, field by field", () => {
    const { records, runs } = traced();
    const otlp = exportTrace(records, runs, "otlp", { version: "9.9.9" }) as OtlpTrace;
    expect(otlp.resourceSpans).toHaveLength(1);
    const [rs] = otlp.resourceSpans;
    expect(rs?.resource.attributes).toEqual([
      { key: "service.name", value: { stringValue: "playbook-bot" } },
      { key: "service.version", value: { stringValue: "9.9.9" } },
    ]);
    expect(rs?.scopeSpans).toHaveLength(1);
    expect(rs?.scopeSpans[0]?.scope).toEqual({ name: "playbook-bot", version: "9.9.9" });
    const spans = rs?.scopeSpans[0]?.spans ?? [];
    expect(spans).toHaveLength(records.length + 1);

    const run = runs[0] as TraceRun;
    const root = spans[0];
    expect(root).toMatchObject({
      traceId: run.trace_id,
      spanId: run.span_id,
      name: "run probe",
      kind: 1,
      startTimeUnixNano: unixNano(run.started_at),
      status: { code: 2, message: "failed (GH-ERROR)" },
    });
    expect(root).not.toHaveProperty("parentSpanId");
    // The run's span lasts until its last record ended.
    const lastEnd = records.map((r) => Date.parse(r.end)).reduce((a, b) => Math.max(a, b));
    expect(root?.endTimeUnixNano).toBe(String(BigInt(lastEnd) * 1_000_000n));
    expect(attrs(root?.attributes ?? [])).toMatchObject({
      "playbook_bot.run_id": { stringValue: run.run_id },
      "playbook_bot.run.status": { stringValue: "failed" },
      "playbook_bot.run.error": { stringValue: "GH-ERROR" },
    });

    for (const [i, r] of records.entries()) {
      const span = spans[i + 1];
      expect(span?.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span?.traceId).toBe(r.trace_id);
      expect(span?.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(span?.spanId).toBe(r.span_id);
      expect(span?.parentSpanId).toBe(run.span_id);
      expect(span?.kind).toBe(1);
      expect(span?.startTimeUnixNano).toMatch(/^[0-9]+$/);
      expect(span?.startTimeUnixNano).toBe(`${Date.parse(r.time)}000000`);
      expect(span?.endTimeUnixNano).toBe(`${Date.parse(r.end)}000000`);
      const a = attrs(span?.attributes ?? []);
      expect(a["playbook_bot.outcome"]).toEqual({ stringValue: r.outcome });
      expect(a["playbook_bot.seq"]).toEqual({ intValue: String(r.seq) });
      expect(a["playbook_bot.duration_ms"]).toEqual({ intValue: String(r.duration_ms) });
      expect(a["playbook_bot.authority.granted"]).toEqual({ boolValue: r.authority.granted });
      for (const { value } of span?.attributes ?? []) expect(Object.keys(value)).toHaveLength(1);
    }

    const approve = spans.find(
      (s) =>
        s.name === "checkpoint approve" &&
        JSON.stringify(attrs(s.attributes)["playbook_bot.outcome"]) === '{"stringValue":"success"}',
    );
    expect(attrs(approve?.attributes ?? [])).toMatchObject({
      "playbook_bot.actor": { stringValue: "dave" },
      "playbook_bot.authority.claim": { stringValue: "write" },
      "playbook_bot.step": { stringValue: "approve" },
      "playbook_bot.step.kind": { stringValue: "checkpoint" },
    });
    expect(approve?.endTimeUnixNano).toBe(
      String(BigInt(Date.parse("2026-03-01T10:01:00.000Z")) * 1_000_000n),
    );
    const failed = spans.find((s) => s.name === "investigate query" && s.status.code === 2);
    expect(failed?.status.message).toMatch(/GH-ERROR/);
    const asked = spans.find(
      (s) =>
        JSON.stringify(attrs(s.attributes)["playbook_bot.tool"]) === '{"stringValue":"vault/read"}',
    );
    expect(asked?.name).toBe("investigate query");
    expect(attrs(asked?.attributes ?? [])["playbook_bot.inputs.digest"]).toEqual({
      stringValue: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
  });

  it("gives a run started by a handoff the span of the step that handed off as its parent", () => {
    const run: TraceRun = {
      run_id: "20260301-1001-002",
      trace_id: "a".repeat(32),
      span_id: "b".repeat(16),
      parent_span_id: "c".repeat(16),
      playbook: "storage",
      status: "completed",
      initiator: "alice",
      started_at: "2026-03-01T10:01:00.000Z",
      updated_at: "2026-03-01T10:02:00.000Z",
      origin_run_id: "20260301-1000-001",
    };
    const [span] = otlpTrace([], [run]).resourceSpans[0]?.scopeSpans[0]?.spans ?? [];
    expect(span?.parentSpanId).toBe("c".repeat(16));
    expect(span?.status).toEqual({ code: 1 });
    expect(attrs(span?.attributes ?? [])["playbook_bot.run.origin_run_id"]).toEqual({
      stringValue: "20260301-1000-001",
    });
  });

  it("writes nanoseconds as decimal strings without losing precision", () => {
    expect(unixNano("2026-03-01T10:00:00.123Z")).toBe("1772359200123000000");
    expect(unixNano("not a time")).toBe("0");
  });
});

function record(over: Partial<StoredTraceRecord>): StoredTraceRecord {
  return {
    trace_id: "1".repeat(32),
    span_id: "0".repeat(16),
    parent_span_id: "2".repeat(16),
    run_id: "20260301-1000-001",
    seq: 2,
    time: "2026-03-01T10:00:00.000Z",
    end: "2026-03-01T10:00:00.000Z",
    duration_ms: 0,
    event: "continue",
    actor: "playbook-bot",
    target: "step a",
    authority: { claim: "just-do-it", granted: true },
    playbook: "p",
    depth: 0,
    outcome: "success",
    ...over,
  };
}

describe("merging records from several sources", () => {
  it("drops a span seen before, and acts an earlier source has by event id and step", () => {
    const log = [
      record({ span_id: "a".repeat(16), event_id: "e1", step: "a", time: "2026-03-01T10:00:02Z" }),
      record({ span_id: "b".repeat(16), event_id: "e2", step: "b", time: "2026-03-01T10:00:01Z" }),
    ];
    const thread = [
      // The same act rebuilt from the thread: another span id, the same event and step.
      record({ span_id: "c".repeat(16), event_id: "e1", step: "a" }),
      // An act the log lost.
      record({ span_id: "d".repeat(16), event_id: "e3", step: "c", time: "2026-03-01T09:59:00Z" }),
      // A repeat of a span of the log.
      log[0] as StoredTraceRecord,
    ];
    const merged = mergeTraces(log, thread);
    expect(merged.map((r) => r.span_id[0])).toEqual(["d", "b", "a"]);
  });

  it("drops a summary entry (no event id) whose event ended at the same time in an earlier source", () => {
    const log = [record({ span_id: "a".repeat(16), event_id: "e1", step: "a", event: "/approve" })];
    const summary = [
      record({ span_id: "b".repeat(16), event: "/approve", step: "x" }),
      record({ span_id: "c".repeat(16), event: "/approve", end: "2026-03-01T11:00:00.000Z" }),
    ];
    expect(mergeTraces(log, summary).map((r) => r.span_id[0])).toEqual(["a", "c"]);
    // Within one source, records of one act all stay (a for_each asks for one effect per item).
    const items = [
      record({ span_id: "e".repeat(16), event_id: "e9", step: "each" }),
      record({ span_id: "f".repeat(16), event_id: "e9", step: "each" }),
    ];
    expect(mergeTraces(items)).toHaveLength(2);
  });

  it("orders by start, then end, then the order given", () => {
    const merged = mergeTraces([
      record({
        span_id: "a".repeat(16),
        time: "2026-03-01T10:00:05Z",
        end: "2026-03-01T10:00:09Z",
      }),
      record({
        span_id: "b".repeat(16),
        time: "2026-03-01T10:00:05Z",
        end: "2026-03-01T10:00:06Z",
      }),
      record({
        span_id: "c".repeat(16),
        time: "2026-03-01T10:00:05Z",
        end: "2026-03-01T10:00:06Z",
      }),
      record({
        span_id: "d".repeat(16),
        time: "2026-03-01T10:00:01Z",
        end: "2026-03-01T10:00:10Z",
      }),
    ]);
    expect(merged.map((r) => r.span_id[0])).toEqual(["d", "b", "c", "a"]);
  });

  it("merges a state's summary with a log that kept the same run without doubling its acts", () => {
    const d = new Driver(bundle(PLAYBOOK));
    d.start();
    d.drive();
    d.tick(60_000);
    d.command("approve", MAINTAINER);
    const logged = storedRecords(d.all.flatMap((r) => r.records ?? []));
    // What the log kept is complete: the summary adds nothing.
    expect(mergeTraces(logged, summaryOf(d.run))).toHaveLength(logged.length);
    // A log that lost the approval: the summary's entry for it fills the gap.
    const lost = logged.filter((r) => r.event !== "/approve");
    const merged = mergeTraces(lost, summaryOf(d.run));
    expect(merged).toHaveLength(logged.length);
    expect(merged.find((r) => r.event === "/approve")).toMatchObject({
      actor: "bob",
      authority: { claim: "unknown" },
    });
  });
});

function summaryOf(run: RunState): StoredTraceRecord[] {
  return storedRecords(summaryRecords(run));
}
