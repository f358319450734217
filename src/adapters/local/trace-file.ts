import { dirname } from "node:path";
import { checkStoredRecord, checkStoredRecords } from "../../core/trace/types.js";
import type { StoredTraceRecord } from "../../core/trace/types.js";
import type { TraceLog, TraceRead } from "../../runtime/ports.js";
import { refusedAsStateError, traceFileNextTo, type FileRunStore } from "./file-store.js";
import { readConfined } from "./safe-files.js";
import { appendLinesInside } from "./safe-writes.js";

/** A trace file read at most: spans are bounded per run, far below this. */
const MAX_TRACE_FILE_BYTES = 64 * 1024 * 1024;

/** What a trace file held: its records, and the lines that were not records (passed over). */
export interface TraceFileRead extends TraceRead {
  invalid: number;
}

/**
 * A JSONL trace file, one record a line. A line that is not a record (a write cut short by a
 * crash, an edit) is counted and passed over; a span is read once.
 */
export function readTraceFile(file: string): TraceFileRead {
  // Read as data beside its run's state: a link, a device or pipe is no trace (one invalid entry).
  const read = readConfined(file, { root: dirname(file), maxBytes: MAX_TRACE_FILE_BYTES });
  if (!read.ok)
    return { records: [], dropped: 0, invalid: read.refusal.rule === "missing" ? 0 : 1 };
  const records: unknown[] = [];
  let invalid = 0;
  for (const line of read.bytes.toString("utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      const r = checkStoredRecord(JSON.parse(line));
      if (r) records.push(r);
      else invalid++;
    } catch {
      invalid++;
    }
  }
  return { records: checkStoredRecords(records), dropped: 0, invalid };
}

/**
 * The CLI's trace log: `run-<id>.trace.jsonl` beside the run's state file (it moves to the
 * history folder with it). Spans already in the file are not written again.
 */
export class FileTraceLog implements TraceLog {
  private readonly spans = new Map<string, Set<string>>();

  constructor(private readonly store: FileRunStore) {}

  append(runId: string, records: readonly StoredTraceRecord[]): void {
    const file = this.store.traceFileOf(runId);
    let spans = this.spans.get(runId);
    if (!spans) {
      spans = new Set(readTraceFile(file).records.map((r) => r.span_id));
      this.spans.set(runId, spans);
    }
    const known = spans;
    const fresh = checkStoredRecords(records).filter((r) => !known.has(r.span_id));
    if (fresh.length === 0) return;
    const text = fresh.map((r) => JSON.stringify(r)).join("\n") + "\n";
    // A line a crash cut short stays a line of its own; no link on the way is written through.
    refusedAsStateError(() => appendLinesInside(file, text, this.store.root));
    for (const r of fresh) known.add(r.span_id);
  }

  read(runId: string): TraceFileRead {
    const state = this.store.locate(runId);
    return readTraceFile(state ? traceFileNextTo(state) : this.store.traceFileOf(runId));
  }
}
