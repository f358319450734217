import type { Finding, RulePass } from "../rule.js";

export type DialectCode = "dialect-unmapped" | "dialect-invalid" | "dialect-drift";
/** What a dialect's loader reports, at its place in the author's file. */
export type DialectFinding = Finding<DialectCode>;

/**
 * What converting a file of another system's dialect found (see src/core/dialects/): each
 * finding is placed where it stands in the author's file, by the dialect's loader.
 */
export const dialectConversion: RulePass<DialectCode, readonly DialectFinding[]> = {
  rules: [
    {
      code: "dialect-unmapped",
      layer: "syntax",
      severity: "error",
      summary: "a field of another system's playbook has no equivalent here",
      guidance:
        "remove the field, or rewrite the playbook in the v1 format (`playbook-bot import <file>` writes what converts)",
    },
    {
      code: "dialect-invalid",
      layer: "syntax",
      severity: "error",
      summary: "another system's playbook breaks a rule of that system's own validator",
    },
    {
      code: "dialect-drift",
      layer: "syntax",
      severity: "warning",
      summary:
        "another system's playbook departs from that system's own documentation, and is read as its engine reads it",
    },
  ],
  check: (found) => [...found],
};
