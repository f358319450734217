import type { DiagnosticInput } from "../../format/diagnostics.js";
import { formatPath, type PathSegment } from "../../format/source.js";
import type { PlaybookGraph } from "../../format/graph.js";
import type { SourceDocument } from "../../format/source.js";
import type { PlaybookDocument } from "../../format/types.js";

/** What every single-file gate sees: the document with positions, its value, and its graph. */
export interface GateContext {
  doc: SourceDocument;
  playbook: PlaybookDocument;
  graph: PlaybookGraph;
  /** Whether a file exists, relative to the playbook file's folder (injected: gates do no I/O). */
  fileExists?: (relativePath: string) => boolean;
}

export type Gate = (ctx: GateContext) => DiagnosticInput[];

/** A diagnostic at a path of the document: the message starts with the path; `key` underlines the field's name. */
export function diagnosticAt(
  doc: SourceDocument,
  rule: DiagnosticInput["rule"],
  at: PathSegment[],
  message: string,
  hint: string,
  extra: { key?: boolean; found?: string } = {},
): DiagnosticInput {
  const d: DiagnosticInput = {
    rule,
    path: formatPath(at),
    span: doc.span(at, extra.key ?? false),
    message: `${formatPath(at)}: ${message}`,
    hint,
  };
  if (extra.found !== undefined) d.found = extra.found;
  return d;
}
