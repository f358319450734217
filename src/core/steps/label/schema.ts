import { text, texts } from "../../format/schema-docs.js";
import { stepKindSchema } from "../kind-schema.js";

/** The `label` step in the playbook format: what it is, its fields, its snippet. */
export const labelSchema = stepKindSchema({
  kind: "label",
  doc: {
    md: "Adds and removes labels on the run's issue (or another one). Output: `labels`, the labels it has afterwards.",
    yaml: "id: mark\ntype: label\nadd: [triaged]\nremove: [needs-triage]",
  },
  fields: {
    add: texts({
      md: "Labels to add (templates); each must render to at most 50 characters on one line. A label step needs `add` or `remove`.",
      examples: [["triaged", "service:{{ inputs.service }}"]],
    }),
    remove: texts({
      md: "Labels to remove (templates).",
      examples: [["needs-triage"]],
    }),
    issue: text({
      md: "The number of the issue or pull request to label (a template; default: the run's issue).",
      examples: ["42", "{{ steps.pr.outputs.number }}"],
    }),
  },
  snippet: {
    label: "label step",
    description: "Add labels to the run's issue.",
    id: "label",
    body: { type: "label", name: "${2:Mark the issue}", add: ["${3:triaged}"] },
    order: 9,
  },
});
