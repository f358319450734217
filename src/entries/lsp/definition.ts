import type { Span } from "../../core/format/diagnostics.js";
import type { SourceDocument } from "../../core/format/source.js";
import { nodeAt } from "../../core/editor/cursor.js";
import {
  isPlaybookTarget,
  isStepTarget,
  targetId,
  valueAt,
  writtenSteps,
} from "../../core/editor/references.js";

export type DefinitionTarget =
  /** A place in the same file: a step's id, an input's name. */
  | { kind: "here"; span: Span }
  /** Another playbook, by id: the server knows where the set and the library keep it. */
  | { kind: "playbook"; id: string };

/** Where a step is defined: its `id:` value in a list, its key in `nodes:`. */
export function stepDefinition(doc: SourceDocument, id: string): Span | undefined {
  const step = writtenSteps(doc.value).find((s) => s.id === id);
  if (!step) return undefined;
  return step.keyed ? doc.span(step.path, true) : doc.span([...step.path, "id"]);
}

const NAME = /[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_][A-Za-z0-9_-]*)*/g;

/** The dotted name inside `{{ … }}` that covers `at` in a line of text, if any. */
export function templateNameAt(text: string, at: number): string | undefined {
  const open = text.lastIndexOf("{{", at);
  if (open === -1) return undefined;
  const close = text.indexOf("}}", open);
  if (close !== -1 && close < at) return undefined;
  const inner = text.slice(open + 2, close === -1 ? undefined : close);
  for (const m of inner.matchAll(NAME)) {
    const start = open + 2 + (m.index ?? 0);
    if (start <= at && at <= start + m[0].length) return m[0];
  }
  return undefined;
}

/**
 * What the value under the cursor names: a step (a `goto`, `next`, `needs`… target, or
 * `steps.<id>` in a template), an input (`inputs.<name>` in a template), or another playbook
 * (a delegate's `playbook`, a `handoff` entry).
 */
export function definitionAt(doc: SourceDocument, offset: number): DefinitionTarget | undefined {
  const node = nodeAt(doc, offset);
  if (!node || node.on !== "value") return undefined;
  const value = valueAt(doc.value, node.path);
  if (isStepTarget(doc.value, node.path)) {
    const id = targetId(node.path, value);
    const span = id === undefined ? undefined : stepDefinition(doc, id);
    return span ? { kind: "here", span } : undefined;
  }
  if (isPlaybookTarget(doc.value, node.path))
    return typeof value === "string" ? { kind: "playbook", id: value } : undefined;
  if (typeof value !== "string") return undefined;
  // Templates: read the name from the text as written (the value may be quoted or folded).
  const name = templateNameAt(doc.text.slice(node.start, node.end), offset - node.start);
  const [head, second] = name?.split(".") ?? [];
  if (head === "steps" && second) {
    const span = stepDefinition(doc, second);
    return span ? { kind: "here", span } : undefined;
  }
  const inputs = valueAt(doc.value, ["inputs"]);
  if (head === "inputs" && second && typeof inputs === "object" && inputs && second in inputs)
    return { kind: "here", span: doc.span(["inputs", second], true) };
  return undefined;
}
