import { documented, documentedEnum, text } from "../../format/schema-docs.js";
import { stepKindSchema } from "../kind-schema.js";

/** The `close` step in the playbook format: what it is, its fields, its snippet. */
export const closeSchema = stepKindSchema({
  kind: "close",
  doc: {
    md: "Closes the run's issue (or another one), after an optional comment. Output: `state`.",
    yaml: "id: close\ntype: close\nreason: completed\ncomment: Fixed by the merged pull request.",
  },
  fields: {
    reason: documented(
      documentedEnum(["completed", "not_planned"], {
        completed: "Closed as done (default).",
        not_planned: "Closed as not planned.",
      }),
      "Why the issue is closed, as GitHub records it.",
    ),
    comment: text("A comment posted before closing (a template)."),
    issue: text({
      md: "The number of the issue or pull request to close (a template; default: the run's issue).",
      examples: ["42", "{{ steps.pr.outputs.number }}"],
    }),
  },
  snippet: {
    label: "close step",
    description: "Close the run's issue.",
    id: "close",
    body: {
      type: "close",
      name: "${2:Close the issue}",
      reason: "${3|completed,not_planned|}",
      comment: "${4:Why it is closed}",
    },
    order: 10,
  },
});
