import { inputDefaultTemplates, templateScan } from "../analysis/references.js";
import { diagnosticAt } from "../context.js";
import type { FileRule } from "../rule.js";

/** Templates in steps, outputs and input defaults are well formed. */
export const templateSyntax: FileRule<"template-syntax"> = {
  code: "template-syntax",
  layer: "templates",
  severity: "error",
  summary: "a template is malformed",
  requires: "one-step-form",
  check: (ctx) =>
    [...templateScan(ctx).templates, ...inputDefaultTemplates(ctx)].flatMap(({ at, problems }) =>
      problems.map((p) => diagnosticAt(ctx.doc, "template-syntax", at, p.message, p.hint)),
    ),
};
