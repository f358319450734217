import type { PlaybookGraph } from "../format/graph.js";
import { formatPath, type PathSegment, type SourceDocument } from "../format/source.js";
import type { PlaybookDocument } from "../format/types.js";
import type { DiagnosticInput } from "../format/diagnostics.js";

/** A diagnostic of one rule: its code is one the rule declares (the compiler checks it). */
export type Finding<Code extends string> = Omit<DiagnosticInput, "rule"> & { rule: Code };

/** One playbook that passed the schema: the document with positions, its value, and its graph. */
export interface DocumentContext extends Memo {
  readonly doc: SourceDocument;
  readonly playbook: PlaybookDocument;
  readonly graph: PlaybookGraph;
}

/** What every single-file rule sees. */
export interface RuleContext extends DocumentContext {
  /** Whether a file exists, relative to the playbook file's folder (injected: rules do no I/O). */
  readonly fileExists?: (relativePath: string) => boolean;
  /**
   * Whether the graph layer found no error. Computed once, on first use, by running the graph
   * layer's error rules; those rules must not ask.
   */
  readonly graphSound: () => boolean;
}

/**
 * Where a context keeps the analyses computed for it. Without one (a context built by hand for a
 * single call) an analysis is computed at each call.
 */
export interface Memo {
  readonly analyses?: Map<unknown, unknown>;
}

/**
 * An analysis several rules share (reachability, template references…), computed once per
 * context and kept on it: it lives as long as the context, one document's validation.
 */
export function memoised<Context extends Memo, T>(
  compute: (ctx: Context) => T,
): (ctx: Context) => T {
  return (ctx) => {
    const analyses = ctx.analyses;
    if (!analyses) return compute(ctx);
    if (analyses.has(compute)) return analyses.get(compute) as T;
    const value = compute(ctx);
    analyses.set(compute, value);
    return value;
  };
}

/** A finding at a path of the document: the message starts with the path; `key` underlines the field's name. */
export function diagnosticAt<Code extends string>(
  doc: SourceDocument,
  rule: Code,
  at: readonly PathSegment[],
  message: string,
  hint: string,
  extra: { key?: boolean; found?: string } = {},
): Finding<Code> {
  const d: Finding<Code> = {
    rule,
    path: formatPath(at),
    span: doc.span(at, extra.key ?? false),
    message: `${formatPath(at)}: ${message}`,
    hint,
  };
  if (extra.found !== undefined) d.found = extra.found;
  return d;
}

/** Where a finding is: its path as people read it and its span (`key` underlines the field's name). */
export function locate(
  doc: SourceDocument,
  at: readonly PathSegment[],
  key = false,
): { path: string; span: Finding<string>["span"] } {
  return { path: formatPath(at), span: doc.span(at, key) };
}
