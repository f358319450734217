import { text, texts } from "../../format/schema-docs.js";
import { stepKindSchema } from "../kind-schema.js";

/** The `issue` step in the playbook format: what it is, its fields, its snippet. */
export const issueSchema = stepKindSchema({
  kind: "issue",
  doc: {
    md: "Opens an issue; a hidden marker lets a retry find it instead of opening another. Outputs: `number`, `url`.",
    yaml: "id: follow-up\ntype: issue\ntitle: Follow up on {{ inputs.service }}\nlabels: [follow-up]",
  },
  fields: {
    title: text({
      md: "The issue's title (a template).",
      examples: ["Follow up on {{ inputs.service }}"],
    }),
    body: text("The issue's body, in Markdown (a template)."),
    labels: texts({
      md: "Labels to add (templates); each must render to at most 50 characters on one line.",
      examples: [["follow-up"]],
    }),
    assignees: texts({ md: "Logins of people to assign (templates).", examples: [["octocat"]] }),
  },
  required: ["title"],
  snippet: {
    label: "issue step",
    description: "Open an issue.",
    id: "follow-up",
    body: {
      type: "issue",
      name: "${2:Open a follow-up}",
      title: "${3:Title}",
      body: "${4:What is left to do}",
    },
    order: 8,
  },
});
