import { documented, documentedEnum, text, texts } from "../../format/schema-docs.js";
import { flag } from "../../format/schema-parts.js";
import { stepKindSchema } from "../kind-schema.js";

/** The `pull_request` step in the playbook format: what it is, its fields, its snippet. */
export const pullRequestSchema = stepKindSchema({
  kind: "pull_request",
  doc: {
    md: "Opens a pull request (or finds the app's open one for the head) and, with `wait: merged`, waits for its merge. Outputs: `number`, `url`, `head`, `merged`, `merge_sha`.",
    yaml: 'id: pr\ntype: pull_request\nhead: "{{ steps.branch.outputs.name }}"\ntitle: Bump {{ inputs.package }}\ncloses_issue: true\nwait: merged',
  },
  fields: {
    head: text({
      md: "The branch with the changes (a template).",
      examples: ["{{ steps.branch.outputs.name }}"],
    }),
    base: text({
      md: "The branch to merge into (default: the default branch).",
      examples: ["main"],
    }),
    title: text("The pull request's title (a template)."),
    body: text("The pull request's body, in Markdown (a template)."),
    draft: flag("Open the pull request as a draft (default false)."),
    labels: texts({
      md: "Labels to add (templates); each must render to at most 50 characters on one line.",
      examples: [["dependencies"]],
    }),
    reviewers: texts({
      md: "Logins of people asked to review (templates).",
      examples: [["octocat"]],
    }),
    team_reviewers: texts({
      md: "Slugs of teams asked to review (templates).",
      examples: [["release-managers"]],
    }),
    wait: documented(
      documentedEnum(["merged"], {
        merged:
          "Wait until the pull request is merged (`outputs.merged`, `outputs.merge_sha`); closing it unmerged fails the step with `PB-PR-CLOSED`.",
      }),
      "What to wait for after opening (default: nothing, the step is done once it is open).",
    ),
    closes_issue: flag(
      "End the body with `Closes #<n>` for the run's issue, when the run has one, so that GitHub closes it on the merge (a local run without `--issue` has none).",
    ),
  },
  required: ["head", "title"],
  snippet: {
    label: "pull_request step",
    description: "Open a pull request.",
    id: "pr",
    body: {
      type: "pull_request",
      name: "${2:Open the pull request}",
      head: "${3:playbook/change}",
      title: "${4:Title}",
      body: "${5:What changes, and why}",
      closes_issue: true,
    },
    order: 7,
  },
});
