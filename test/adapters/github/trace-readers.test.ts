import { describe, expect, it } from "vitest";
import {
  ADHOC_MARKER,
  boundedEntry,
  readAdhocComment,
  readAdhocUnverified,
  renderAdhocComment,
  type AdhocLog,
} from "../../../src/runtime/run-service/adhoc-log.js";
import {
  adhocTrace,
  issueTrace,
  refusalRecord,
  refusalTrace,
} from "../../../src/runtime/run-service/issue-trace.js";
import {
  MAX_TRACE_IN_COMMENT,
  TRACE_TABLE_ROWS,
  renderTraceComment,
} from "../../../src/runtime/run-service/trace-comment.js";
import { exportTrace } from "../../../src/core/trace/export.js";
import type { StoredTraceRecord, TraceRun } from "../../../src/core/trace/types.js";
import type { StateSeal } from "../../../src/runtime/state-codec.js";

const SEAL: StateSeal = { key: Buffer.from("k".repeat(32)), issue: 7, comment: "100" };
const ISSUE = { owner: "octo", repo: "hello", number: 7 };

const RECORD = {
  kind: "record" as const,
  event: "c-1",
  actor: "alice",
  at: "2026-03-01T10:00:00.000Z",
  key: "disk_pct",
  value: "ninety-seven",
};
const NOTE = {
  kind: "note" as const,
  event: "c-2",
  actor: "bob",
  at: "2026-03-01T10:05:00.000Z",
  text: "rotated the WAL",
};

/** A comment with an ad-hoc block whose payload is `json` as written and whose seal is made up. */
function block(json: string): string {
  const payload = Buffer.from(json).toString("base64url");
  return `text\n\n<!-- ${ADHOC_MARKER} ${payload}.${"A".repeat(43)} -->`;
}

describe("ad-hoc log entries as kept", () => {
  it("refuses what is not an entry: no object, a record without a string value", () => {
    expect(boundedEntry(null)).toBeUndefined();
    expect(boundedEntry("a note")).toBeUndefined();
    expect(boundedEntry(42)).toBeUndefined();
    expect(boundedEntry({ ...RECORD, value: 97 })).toBeUndefined();
    // The same record with a string value is kept, its time normalised.
    expect(boundedEntry({ ...RECORD, at: "2026-03-01T10:00:00Z" })).toEqual(RECORD);
  });
});

describe("reading an ad-hoc block", () => {
  it("reads a sealed log back with its seal, and refuses it under another comment's seal", () => {
    const log: AdhocLog = { entries: [RECORD, NOTE], dropped: 3 };
    const body = renderAdhocComment(log, SEAL);
    expect(readAdhocComment(body, SEAL)).toEqual(log);
    expect(readAdhocComment(body, { ...SEAL, comment: "101" })).toBe("tampered");
  });

  it("reads a block unverified, without any seal (for a trace export)", () => {
    const log: AdhocLog = { entries: [NOTE], dropped: 0, suggested: "2026-03-01T11:00:00.000Z" };
    const body = renderAdhocComment(log, SEAL);
    // Any seal will do for the unverified reader: the block's own or a made-up one.
    expect(readAdhocUnverified(body)).toEqual(log);
    const forged = body.replace(/\.([A-Za-z0-9_-]{43}) -->$/, `.${"B".repeat(43)} -->`);
    expect(forged).not.toBe(body);
    expect(readAdhocUnverified(forged)).toEqual(log);
    expect(readAdhocComment(forged, SEAL)).toBe("tampered");
  });

  it("tells a comment without a block from one whose block is malformed", () => {
    expect(readAdhocUnverified("just a comment")).toBeUndefined();
    expect(readAdhocComment("just a comment", SEAL)).toBeUndefined();
    // The marker is there but the block is cut short: tampered, not absent.
    expect(readAdhocUnverified(`<!-- ${ADHOC_MARKER} abc -->`)).toBe("tampered");
    expect(readAdhocComment(`<!-- ${ADHOC_MARKER} abc.def -->`, SEAL)).toBe("tampered");
  });

  it("refuses a payload that is not JSON or has no entries, and repairs a bad count", () => {
    expect(readAdhocUnverified(block("{not json"))).toBe("tampered");
    expect(readAdhocUnverified(block(JSON.stringify({ dropped: 2 })))).toBe("tampered");
    expect(readAdhocUnverified(block(JSON.stringify({ entries: {}, dropped: 2 })))).toBe(
      "tampered",
    );
    // A negative or non-numeric count of dropped entries reads as none.
    expect(readAdhocUnverified(block(JSON.stringify({ entries: [NOTE], dropped: -4 })))).toEqual({
      entries: [NOTE],
      dropped: 0,
    });
    expect(
      readAdhocUnverified(block(JSON.stringify({ entries: [NOTE], dropped: "many" }))),
    ).toEqual({ entries: [NOTE], dropped: 0 });
    // A fractional count is floored; bad suggestions and entries are left out.
    expect(
      readAdhocUnverified(
        block(
          JSON.stringify({
            entries: [NOTE, { kind: "record", event: "x", actor: "a", at: "never", key: "k" }],
            dropped: 2.7,
            suggestedFor: ["disk_pct", 5, "no spaces"],
          }),
        ),
      ),
    ).toEqual({ entries: [NOTE], dropped: 2, suggestedFor: ["disk_pct"] });
  });
});

describe("an issue's work by hand as a trace", () => {
  it("gives nothing for an empty log", () => {
    expect(adhocTrace({ entries: [], dropped: 0 }, ISSUE)).toEqual({ runs: [], records: [] });
    expect(issueTrace([], { entries: [], dropped: 0 }, ISSUE)).toEqual({ runs: [], records: [] });
  });

  it("keeps a record's key in its detail and span, its value only as a digest, and the count dropped", () => {
    const t = adhocTrace({ entries: [RECORD, NOTE], dropped: 5 }, ISSUE);
    expect(t.runs).toHaveLength(1);
    expect(t.runs[0]).toMatchObject({
      run_id: "adhoc-7",
      initiator: "alice",
      started_at: RECORD.at,
      updated_at: NOTE.at,
      dropped: 5,
    });
    const [rec, note] = t.records;
    expect(rec).toMatchObject({ event: "/record", detail: "recorded disk_pct", seq: 6 });
    expect(note).toMatchObject({ event: "/note", detail: "noted", seq: 7 });
    expect(rec?.outputs).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(rec?.outputs).not.toBe(note?.outputs);
    expect(rec?.span_id).not.toBe(note?.span_id);
    expect(JSON.stringify(t)).not.toContain("ninety-seven");
    // The same record with another key is another span.
    const other = adhocTrace({ entries: [{ ...RECORD, key: "volume" }], dropped: 0 }, ISSUE);
    expect(other.records[0]?.span_id).not.toBe(rec?.span_id);
    expect(other.runs[0]?.dropped).toBeUndefined();
  });
});

function record(i: number, over: Partial<StoredTraceRecord> = {}): StoredTraceRecord {
  return {
    trace_id: "0".repeat(32),
    span_id: i.toString(16).padStart(16, "0"),
    parent_span_id: "f".repeat(16),
    run_id: "20260301-1000-001",
    seq: i,
    time: new Date(Date.UTC(2026, 2, 1, 10, 0, i)).toISOString(),
    end: new Date(Date.UTC(2026, 2, 1, 10, 0, i)).toISOString(),
    duration_ms: 0,
    event: "continue",
    event_id: `e-${i}`,
    actor: "playbook-bot",
    target: "run",
    authority: { claim: "just-do-it", granted: true },
    playbook: "ship",
    depth: 0,
    outcome: "success",
    ...over,
  };
}

const RUN: TraceRun = {
  run_id: "20260301-1000-001",
  trace_id: "0".repeat(32),
  span_id: "f".repeat(16),
  playbook: "ship",
  status: "completed",
  initiator: "alice",
  started_at: "2026-03-01T10:00:00.000Z",
  updated_at: "2026-03-01T10:10:00.000Z",
};

const CLI = "npx playbook-bot trace octo/hello#7";

describe("refusals no run saw, as a trace", () => {
  const refusal = (eventId: string, at: string) =>
    refusalRecord(ISSUE, {
      eventId,
      event: "/approve",
      actor: "mallory",
      reason: "x".repeat(500),
      at,
    });

  it("keeps one record per event, bounded, with no permission claimed when none was known", () => {
    const a = refusal("d-1:0", "2026-03-01T09:00:00.000Z");
    expect(a).toMatchObject({
      run_id: "refused-7",
      event: "/approve",
      target: "issue",
      outcome: "refused",
      authority: { claim: "none", by: "mallory", granted: false },
    });
    expect(a.detail).toHaveLength(200);
    // The same event gives the same span (a store keeps it once); another event another.
    expect(refusal("d-1:0", "2026-03-01T09:00:05.000Z").span_id).toBe(a.span_id);
    expect(refusal("d-2:0", "2026-03-01T09:00:05.000Z").span_id).not.toBe(a.span_id);
    const noReason = refusalRecord(ISSUE, {
      ...{ eventId: "d-3:0", event: "/x", actor: "m" },
      reason: "",
      at: a.time,
    });
    expect(noReason.detail).toBeUndefined();
  });

  it("numbers the kept records after those dropped, in a span of the issue's trace", () => {
    const records = [
      refusal("d-1:0", "2026-03-01T09:00:00.000Z"),
      refusal("d-2:0", "2026-03-01T09:30:00.000Z"),
    ];
    expect(refusalTrace({ records: [], dropped: 0 }, ISSUE)).toEqual({ runs: [], records: [] });
    const t = refusalTrace({ records, dropped: 3 }, ISSUE);
    expect(t.records.map((r) => r.seq)).toEqual([4, 5]);
    expect(t.runs[0]).toMatchObject({
      run_id: "refused-7",
      status: "refused",
      dropped: 3,
      started_at: "2026-03-01T09:00:00.000Z",
      updated_at: "2026-03-01T09:30:00.000Z",
    });
    // The refusals share the trace of the issue's work by hand.
    const both = issueTrace([], { entries: [RECORD], dropped: 0 } as unknown as AdhocLog, ISSUE, {
      records,
      dropped: 0,
    });
    expect(new Set(both.runs.map((r) => r.trace_id)).size).toBe(1);
    expect(both.records.map((r) => r.event)).toEqual(["/approve", "/approve", "/record"]);
  });
});

describe("the /trace reply", () => {
  it("says one record and one run in the singular, and shows a refused authority", () => {
    const records = [
      record(1, { step: "go", tool: "git", authority: { claim: "read", granted: false } }),
    ];
    const body = renderTraceComment(
      [RUN],
      records,
      exportTrace(records, [RUN], "json"),
      "json",
      CLI,
    );
    expect(body).toMatch(/^\*\*Trace of this issue\*\* — 1 run, 1 record\. Export it with/);
    expect(body).toContain("read (refused)");
    expect(body).toContain("The trace as JSON");
  });

  it("has no table for a trace without records, and says how many records the log dropped", () => {
    const runs = [
      { ...RUN, dropped: 4 },
      { ...RUN, run_id: "20260301-1100-002", dropped: 3 },
    ];
    const body = renderTraceComment(runs, [], exportTrace([], runs, "otlp"), "otlp", CLI);
    expect(body).toMatch(/— 2 runs, 0 records \(7 older ones dropped by the trace log\)\./);
    expect(body).not.toContain("<summary>Records");
    expect(body).not.toContain("| time (UTC)");
    expect(body).toContain("OTLP/JSON (for a tracing back end)");
  });

  it("shows only the latest rows, and leaves an export too long for a comment to the CLI", () => {
    const records = Array.from({ length: 400 }, (_, i) =>
      record(i + 1, { detail: `step ${i} ${"x".repeat(80)}` }),
    );
    const exported = exportTrace(records, [RUN], "json");
    const size = JSON.stringify(exported, null, 1).length;
    expect(size).toBeGreaterThan(MAX_TRACE_IN_COMMENT);
    const body = renderTraceComment([RUN], records, exported, "json", CLI);
    expect(body).toContain(`The latest ${TRACE_TABLE_ROWS} records`);
    expect(body).toContain(
      `The whole trace (${size.toLocaleString("en")} characters) is too long for a comment: \`${CLI}\` exports it.`,
    );
    expect(body).not.toContain("```json");
    // The table holds the newest records only: e-400 is in it, e-1's time is not.
    const rows = body.split("\n").filter((l) => l.startsWith("| 2026-"));
    expect(rows).toHaveLength(TRACE_TABLE_ROWS);
    expect(rows[0]).toContain("2026-03-01 10:06:11");
    expect(body.length).toBeLessThan(MAX_TRACE_IN_COMMENT);
  });
});
