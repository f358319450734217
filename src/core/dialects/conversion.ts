import type { DialectCode, DialectFinding } from "../rules/syntax/dialect-conversion.js";
import { formatPath, type PathSegment, type SourceDocument } from "../format/source.js";
import { ConvertedDocument } from "./dialect.js";

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * What every dialect's conversion does: report findings at their place in the author's file (the
 * main one or a sidecar), and set v1 values located where they came from.
 */
export abstract class DialectConversion {
  readonly problems: DialectFinding[] = [];
  protected readonly b: ConvertedDocument;

  constructor(
    protected readonly doc: SourceDocument,
    /** What to do about a finding that names no more specific way out, per code. */
    private readonly hints: Record<DialectCode, string>,
  ) {
    this.b = new ConvertedDocument(doc);
  }

  /** A finding at `path` of `source` (default: the main file); `key` points at the key itself. */
  protected report(
    rule: DialectCode,
    path: PathSegment[],
    message: string,
    hint?: string,
    key = false,
    source: SourceDocument = this.doc,
  ): void {
    const span = {
      ...source.span(path, key),
      ...(source === this.doc ? {} : { file: source.file }),
    };
    // A part converted twice (a finally block on two paths) is reported once.
    if (
      this.problems.some(
        (p) =>
          p.rule === rule &&
          p.message === message &&
          p.span.line === span.line &&
          p.span.column === span.column &&
          p.span.file === span.file,
      )
    )
      return;
    this.problems.push({
      rule,
      path: formatPath(path),
      span,
      message,
      hint: hint ?? this.hints[rule],
    });
  }

  /** `to` in the v1 value is `from` in `source` (and so is everything below it). */
  protected put(
    out: Json,
    key: string,
    value: unknown,
    to: PathSegment[],
    from: PathSegment[],
    source: SourceDocument = this.doc,
  ): void {
    out[key] = value;
    this.b.locate(to, from, source, true);
  }

  /** `key` of `src` into `out` as it is and where it stands, when `keep` accepts its value. */
  protected copySame(src: Json, out: Json, key: string, keep: (v: unknown) => boolean): void {
    if (keep(src[key])) this.put(out, key, src[key], [key], [key]);
  }
}
