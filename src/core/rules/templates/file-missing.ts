import { fileReferences, isAbsoluteReference } from "../analysis/files.js";
import { diagnosticAt } from "../context.js";
import type { FileRule } from "../rule.js";

/** The files steps read exist next to the playbook (checked only where the caller can tell). */
export const fileMissing: FileRule<"file-missing"> = {
  code: "file-missing",
  layer: "templates",
  severity: "error",
  summary: "a file a step refers to does not exist",
  check(ctx) {
    const exists = ctx.fileExists;
    if (!exists) return [];
    return fileReferences(ctx).flatMap(({ rel, at }) =>
      isAbsoluteReference(rel) || exists(rel)
        ? []
        : [
            diagnosticAt(
              ctx.doc,
              "file-missing",
              at,
              `file '${rel}' does not exist (looked relative to the playbook file)`,
              "create the file, or fix the path",
            ),
          ],
    );
  },
};
