import type { DiagnosticInput } from "../diagnostics.js";
import type { PlaybookGraph } from "../graph.js";
import type { SourceDocument } from "../source.js";
import type { PlaybookDocument } from "../types.js";

/** What every single-file gate sees: the document with positions, its value, and its graph. */
export interface GateContext {
  doc: SourceDocument;
  playbook: PlaybookDocument;
  graph: PlaybookGraph;
  /** Whether a file exists, relative to the playbook file's folder (injected: gates do no I/O). */
  fileExists?: (relativePath: string) => boolean;
}

export type Gate = (ctx: GateContext) => DiagnosticInput[];
