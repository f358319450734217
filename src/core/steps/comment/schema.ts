import { text } from "../../format/schema-docs.js";
import { stepKindSchema } from "../kind-schema.js";

/** The `comment` step in the playbook format: what it is, its fields, its snippet. */
export const commentSchema = stepKindSchema({
  kind: "comment",
  doc: {
    md: "Posts a comment on the run's issue, on another issue or pull request, or as a reply in a review thread. Outputs: `id`, `url`.",
    yaml: "id: greet\ntype: comment\nbody: Triage started for {{ inputs.service }}.",
  },
  fields: {
    body: text({
      md: "The comment, in Markdown (a template). Values from people, alerts and GitHub are made inert: no mentions, no hidden markers.",
      examples: ["Triage started for `{{ inputs.service }}` ({{ alert.severity }})."],
    }),
    issue: text({
      md: "The number of the issue or pull request of the repository to comment on (a template that must render to a positive whole number; default: the run's issue).",
      examples: ["42", "{{ steps.pr.outputs.number }}"],
    }),
    reply_to: text({
      md: "The id of a pull request review comment (a template that must render to a positive whole number): the comment answers it in its thread. Needs `issue`, the pull request the review comment belongs to.",
      yaml: "issue: '{{ inputs.pr }}'\nreply_to: '{{ inputs.review_comment }}'",
    }),
  },
  required: ["body"],
  snippet: {
    label: "comment step",
    description: "Post a comment on the run's issue.",
    id: "tell",
    body: { type: "comment", name: "${2:Tell the thread}", body: "${3:Text in Markdown}" },
    order: 1,
  },
});
