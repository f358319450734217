import type { PathSegment } from "../format/source.js";

/**
 * Where a playbook names its own steps and other playbooks, read from the document's value as it
 * is (before or without the schema passing), so that editing features work on a file that is
 * still being written.
 */

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A step as written: its id, where it is, and whether the id is a `nodes:` key. */
export interface WrittenStep {
  id: string;
  path: PathSegment[];
  value: Record<string, unknown>;
  /** In `nodes:` a step's id is its key; in a list, its `id:` field. */
  keyed: boolean;
}

/** Every step of a document: its `steps:` list or `nodes:` map, and the branches of `parallel` steps. */
export function writtenSteps(document: unknown): WrittenStep[] {
  const out: WrittenStep[] = [];
  const visit = (value: unknown, path: PathSegment[], keyedId?: string): void => {
    if (!isMap(value)) return;
    const id = keyedId ?? (typeof value.id === "string" ? value.id : undefined);
    if (id !== undefined) out.push({ id, path, value, keyed: keyedId !== undefined });
    if (isMap(value.branches))
      for (const [name, list] of Object.entries(value.branches))
        if (Array.isArray(list)) list.forEach((s, i) => visit(s, [...path, "branches", name, i]));
  };
  if (!isMap(document)) return out;
  if (Array.isArray(document.steps)) document.steps.forEach((s, i) => visit(s, ["steps", i]));
  if (isMap(document.nodes))
    for (const [key, node] of Object.entries(document.nodes)) visit(node, ["nodes", key], key);
  return out;
}

/** The value at a path of a document, or undefined. */
export function valueAt(document: unknown, path: readonly PathSegment[]): unknown {
  let at = document;
  for (const seg of path) {
    if (typeof seg === "number") at = Array.isArray(at) ? at[seg] : undefined;
    else at = isMap(at) ? at[seg] : undefined;
    if (at === undefined) return undefined;
  }
  return at;
}

/** A step a path is inside (the innermost, for a branch of a `parallel` step), if any. */
export function enclosingStep(
  document: unknown,
  path: readonly PathSegment[],
): { path: PathSegment[]; rest: PathSegment[]; value: Record<string, unknown> } | undefined {
  const listed = path[0] === "steps" && typeof path[1] === "number";
  const keyed = path[0] === "nodes" && typeof path[1] === "string";
  if (!listed && !keyed) return undefined;
  let n = 2;
  while (
    path[n] === "branches" &&
    typeof path[n + 1] === "string" &&
    typeof path[n + 2] === "number"
  )
    n += 3;
  const value = valueAt(document, path.slice(0, n));
  return { path: path.slice(0, n), rest: path.slice(n), value: isMap(value) ? value : {} };
}

/** Fields of a step that name another step of the playbook: [field path inside the step]. */
const STEP_TARGET_FIELDS: readonly (readonly (string | "#")[])[] = [
  ["next"],
  ["next", "#", "goto"],
  ["next", "#", "default"],
  ["on_reject"],
  ["on_timeout"],
  ["rules", "#", "goto"],
  ["fallback", "goto"],
  ["needs", "#"],
  ["on_error"],
  ["on_error", "*"],
];

function matchesField(rest: readonly PathSegment[], field: readonly string[]): boolean {
  return (
    rest.length === field.length &&
    field.every((f, i) =>
      f === "#"
        ? typeof rest[i] === "number"
        : f === "*"
          ? typeof rest[i] === "string"
          : rest[i] === f,
    )
  );
}

/** `on_error` names a step as `goto:<id>`; other policies name none. */
export const ERROR_GOTO = "goto:";

/**
 * Whether a place of a document names a step of the playbook: a `next`/`goto`/`default` target,
 * `on_reject`, `on_timeout`, a rule's or fallback's `goto`, `needs`, `on_error: goto:<id>`, or
 * the `entrypoint` of a `nodes:` graph.
 */
export function isStepTarget(document: unknown, path: readonly PathSegment[]): boolean {
  if (path.length === 1 && path[0] === "entrypoint") return true;
  const step = enclosingStep(document, path);
  if (!step) return false;
  return STEP_TARGET_FIELDS.some((f) => matchesField(step.rest, f));
}

/** The step id a target value names (`goto:<id>` in `on_error`), or undefined. */
export function targetId(path: readonly PathSegment[], value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const inErrorPolicy =
    path[path.length - 1] === "on_error" || path[path.length - 2] === "on_error";
  if (inErrorPolicy)
    return value.startsWith(ERROR_GOTO) ? value.slice(ERROR_GOTO.length) : undefined;
  return value;
}

/** Whether a place names another playbook: a `playbook` step's `playbook`, or an entry of `handoff`. */
export function isPlaybookTarget(document: unknown, path: readonly PathSegment[]): boolean {
  const step = enclosingStep(document, path);
  if (!step) return false;
  return matchesField(step.rest, ["playbook"]) || matchesField(step.rest, ["handoff", "#"]);
}
