import type { Doc, Json } from "../format/schema-docs.js";
import type { PathSegment } from "../format/source.js";

/**
 * A step of the kind as editors offer it (`defaultSnippets`). Placeholders are `${n:default}` or
 * `${n|first,second|}`, always with a value, so that the snippet taken as it comes is valid.
 */
export interface StepSnippet {
  label: string;
  description: string;
  /** The id placeholder's default (placeholder 1). */
  id: string;
  /** The step without its id; placeholders from 2. */
  body: Json;
  /** Where the snippet comes in the editor's list of step snippets (lower first). */
  order: number;
}

/** The ways out of a step that its own fields write, beside `next`, `on_error` and falling through. */
export type StepExitKind = "rule" | "fallback" | "reject" | "timeout";

/** One way out of a step, to the step `to` (undefined: none written). */
export interface StepExit {
  to: string | undefined;
  kind: StepExitKind;
  /** Where it is written, from the step. */
  at: PathSegment[];
  label?: string;
}

/**
 * How a kind's fields shape the playbook's graph. The hooks read the step as written, before or
 * without validation, so they are typed by the fields they read, not by the step's type (which
 * is built from the schema that is built from this fragment).
 */
export interface StepGraphShape<F extends object> {
  /**
   * Why the step's `name` is not its title, when it is not (a branch step's is the branch it
   * makes): the step is then called by its id.
   */
  readonly nameIsNotTitle?: string;
  /** The field that holds lists of steps by name, run inside the step (a parallel's branches). */
  readonly stepLists?: string;
  /** Whether nothing follows the step in its playbook. */
  terminal?(step: F): boolean;
  /** What a `next` written on such a step is told (the handoff-not-terminal rule). */
  readonly terminalNext?: { message: string; hint: string };
  /**
   * The exits the step's fields write, and whether the run may also go on by `next` or falling
   * through (false: every way on is one of these exits).
   */
  exits?(step: F): { exits: StepExit[]; goesOn: boolean };
}

/**
 * What the format knows of a step kind, kept in the kind's folder (`<kind>/schema.ts`) and listed
 * once in `../schemas.ts`: its schema fragment (what it is, its fields, which are required), its
 * editor snippet, and how its fields shape the graph. Data only: it imports no executor, so the
 * format (`src/core/format/`) builds its schema and graph from it without an import circle.
 */
export interface StepKindSchema<K extends string = string, F extends object = object> {
  readonly kind: K;
  /** What the kind is, for the `type` enum and the kind's definition. */
  readonly doc: Doc;
  /** Its fields beyond the common ones. */
  readonly fields: Record<string, Json>;
  readonly required?: readonly string[];
  readonly snippet: StepSnippet;
  readonly graph?: StepGraphShape<F>;
}

/** A kind's fragment, its name kept as a literal (the format's `StepKind` is made of them). */
export function stepKindSchema<const K extends string, F extends object = object>(
  schema: StepKindSchema<K, F>,
): StepKindSchema<K, F> {
  return schema;
}
