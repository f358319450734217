import type { OtlpTrace, TraceDocument, TraceFormat } from "../../core/trace/export.js";
import type { StoredTraceRecord, TraceRun } from "../../core/trace/types.js";
import {
  code,
  codeBlock,
  details,
  paragraph,
  renderMarkdown,
  strong,
  table,
  untrusted,
  type BlockLike,
} from "../../core/markdown/index.js";

/** Records shown in the table, the newest. */
export const TRACE_TABLE_ROWS = 30;
/** The longest export written into a comment; a longer one is left to the CLI. */
export const MAX_TRACE_IN_COMMENT = 45_000;

/**
 * The reply to `/trace`: what the trace holds, its latest records as a table, and the export
 * itself in a collapsed block when it fits a comment (else the command that exports it). Every
 * text in it came from people or playbooks and is shown inert.
 */
export function renderTraceComment(
  runs: readonly TraceRun[],
  records: readonly StoredTraceRecord[],
  exported: TraceDocument | OtlpTrace,
  format: TraceFormat,
  cli: string,
): string {
  const dropped = runs.reduce((n, r) => n + (r.dropped ?? 0), 0);
  const rows = records
    .slice(-TRACE_TABLE_ROWS)
    .map((r) => [
      r.time.slice(0, 19).replace("T", " "),
      untrusted(r.actor),
      untrusted(r.event),
      r.step === undefined ? "" : untrusted(r.step),
      r.tool === undefined ? "" : untrusted(r.tool),
      untrusted(`${r.authority.claim}${r.authority.granted ? "" : " (refused)"}`),
      r.outcome,
    ]);
  const text = JSON.stringify(exported, null, 1);
  const body: BlockLike[] = [
    paragraph(
      strong("Trace of this issue"),
      ` — ${runs.length} run${runs.length === 1 ? "" : "s"}, ${records.length} record${
        records.length === 1 ? "" : "s"
      }${dropped > 0 ? ` (${dropped} older ones dropped by the trace log)` : ""}. `,
      "Export it with ",
      code(cli),
      ".",
    ),
  ];
  if (rows.length > 0)
    body.push(
      details(
        records.length > TRACE_TABLE_ROWS ? `The latest ${TRACE_TABLE_ROWS} records` : "Records",
        table(["time (UTC)", "who", "event", "step", "tool", "authority", "outcome"], rows),
      ),
    );
  body.push(
    text.length <= MAX_TRACE_IN_COMMENT
      ? details(
          format === "otlp" ? "OTLP/JSON (for a tracing back end)" : "The trace as JSON",
          codeBlock(text, "json"),
        )
      : paragraph(
          `The whole trace (${text.length.toLocaleString("en")} characters) is too long for a comment: `,
          code(cli),
          " exports it.",
        ),
  );
  return renderMarkdown(...body);
}
