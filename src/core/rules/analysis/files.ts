import type { PathSegment } from "../../format/source.js";
import { memoised, type DocumentContext } from "../context.js";
import { filesOfStep } from "../../steps/registry.js";

/** A file a step reads, written relative to the playbook file. */
export interface FileReference {
  rel: string;
  at: PathSegment[];
}

/** Whether a file reference is absolute (it must be relative to the playbook file). */
export function isAbsoluteReference(rel: string): boolean {
  return rel.startsWith("/") || /^[A-Za-z]:/.test(rel);
}

/** The files steps read (a commit's templates, an ai step's prompt_file), in step order. */
export const fileReferences = memoised((ctx: DocumentContext): FileReference[] => {
  const out: FileReference[] = [];
  for (const { step, path } of ctx.graph.steps)
    for (const { rel, at } of filesOfStep(step)) out.push({ rel, at: [...path, ...at] });
  return out;
});
