import type { RuleCode } from "../rules/catalogue.js";
import type { DialectFinding } from "../rules/syntax/dialect-conversion.js";
import {
  SourceDocument,
  pointerOf,
  type LoadResult,
  type NodeLocation,
  type PathSegment,
  type SourceLimits,
} from "../format/source.js";

/**
 * Dialects: the playbook files of the systems the format grew from (Triagent, the runbook spec,
 * Mindscape, Catalyst, Cortex), loaded as their authors wrote them. A dialect recognises its
 * files, parses them (and their sidecars), and converts them into a v1 playbook whose every value
 * keeps the position it had in the original file — so the same gates run, and every diagnostic
 * points at the author's own line and column. What cannot be converted is reported where it
 * stands; nothing is dropped silently.
 */

export type DialectId = "triagent" | "runbook" | "mindscape" | "catalyst" | "cortex";

/** Files next to the one being loaded (sidecars, a paired markdown file), read by the caller. */
export interface Siblings {
  /** The text of a file named relative to the loaded file's folder, or undefined when absent. */
  read(relativePath: string): string | undefined;
}

export const NO_SIBLINGS: Siblings = { read: () => undefined };

export interface DialectLoad {
  /** The v1 playbook, located in the original file(s). */
  document: SourceDocument;
  /**
   * What the conversion found: fields it cannot map (errors), drifts from the system's own
   * documentation it accepted (warnings) — each at its place in the original file.
   */
  problems: DialectFinding[];
}

export interface Dialect {
  readonly id: DialectId;
  /** How people name the system. */
  readonly title: string;
  /**
   * Whether a file is this dialect's, from its name and text, without parsing it fully (cheap).
   * Files with `apiVersion: playbook-bot/v1` are never a dialect's.
   */
  recognise(file: string, text: string): boolean;
  /**
   * Whether a file is only part of another one of this dialect (a sidecar, a paired file): it is
   * loaded with its main file, never on its own. `siblings` are the files beside it, when known.
   */
  isPart?(file: string, siblings: Siblings): boolean;
  /**
   * Whether a file is this system's draft of a playbook (Triagent's proposals): it is validated on
   * its own but is no playbook of the set (its id is the playbook's it revises) and never runs.
   */
  isDraft?(file: string, text: string): boolean;
  /**
   * Rules whose errors are only warnings on this dialect's files, because its system treats the
   * problem as soft (Triagent offers a playbook that is not installed rather than refusing).
   */
  readonly softRules?: readonly RuleCode[];
  /** Rules that say nothing true of this dialect's files, left out of their reports. */
  readonly quietRules?: readonly RuleCode[];
  /** Parse and convert; a file that does not parse is refused with positions (`ok: false`). */
  load(file: string, text: string, siblings: Siblings, limits: SourceLimits): DialectResult;
}

export type DialectResult =
  ({ ok: true } & DialectLoad) | { ok: false; failure: Extract<LoadResult, { ok: false }> };

/**
 * Builds the converted playbook's document: values are set at their v1 paths and located where
 * they came from in the original document(s); a value without a place of its own is shown at its
 * nearest located ancestor.
 */
export class ConvertedDocument {
  private readonly locations = new Map<string, NodeLocation>();

  constructor(readonly original: SourceDocument) {
    this.locate([], [], original);
  }

  /**
   * The v1 value at `to` stands where `from` is in `source` (default: the original document);
   * with `deep`, so do the values below it, path for path (a mapping copied as it is).
   */
  locate(
    to: readonly PathSegment[],
    from: readonly PathSegment[],
    source: SourceDocument = this.original,
    deep = false,
  ): void {
    const base = pointerOf(to);
    for (const [rest, loc] of source.locationsUnder(from)) {
      if (rest !== "" && !deep) continue;
      this.locations.set(base + rest, loc);
    }
  }

  /** The document of the converted value: the original text, the new value, the kept places. */
  build(value: unknown): SourceDocument {
    const locations = new Map<string, NodeLocation>();
    for (const [pointer, loc] of this.locations) {
      const { in: where, ...ranges } = loc;
      locations.set(pointer, where === undefined || where === this.original ? ranges : loc);
    }
    return new SourceDocument(this.original.file, this.original.text, value, locations);
  }
}
