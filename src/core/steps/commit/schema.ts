import { documented, text, texts } from "../../format/schema-docs.js";
import { flag } from "../../format/schema-parts.js";
import { stepKindSchema } from "../kind-schema.js";

/** The `commit` step in the playbook format: what it is, its fields, its snippet. */
export const commitSchema = stepKindSchema({
  kind: "commit",
  doc: {
    md: "Writes files in one atomic commit on an existing branch; a retry finds the commit again instead of making it twice. Outputs: `sha`, `url`, `branch`.",
    yaml: 'id: commit\ntype: commit\nbranch: "{{ steps.branch.outputs.name }}"\nmessage: "chore: bump {{ inputs.package }}"\nfiles:\n  - { path: CHANGES.md, content: "Bumped {{ inputs.package }}." }',
  },
  fields: {
    branch: text({
      md: "The branch to commit to (a template); it must exist.",
      examples: ["{{ steps.branch.outputs.name }}"],
    }),
    message: text({
      md: "The commit message (a template).",
      examples: ["chore: bump {{ inputs.package }}"],
    }),
    files: texts(
      {
        md: "Files written in the one commit. A commit needs `files` or `paths`; on GitHub, `files`.",
        yaml: "files:\n  - path: docs/{{ inputs.name }}.md\n    template: templates/page.md",
      },
      documented(
        {
          type: "object",
          additionalProperties: false,
          required: ["path"],
          properties: {
            path: text({
              md: "Path in the repository (a template): relative, normalised, never into `.git`.",
              examples: ["VERSION", "docs/{{ inputs.name }}.md"],
            }),
            content: text(
              "The file's content (a template). Give `content` or `template`, not both.",
            ),
            template: text({
              md: "A template file, relative to the playbook file, rendered as the content. Give `content` or `template`, not both.",
              examples: ["templates/page.md"],
            }),
          },
        },
        "A file: its path, and its content inline or from a template file.",
      ),
    ),
    paths: texts({
      md: "In a local run: globs of working-tree files to commit as they are, files in dot-folders such as `.github/` included (never `.git/` or the run store `.playbook-runs/`). On GitHub a commit takes `files` only.",
      examples: [["dist/**", "CHANGELOG.md"]],
    }),
    push: flag(
      "Accepted, but no host acts on it in this version: on GitHub the commit is made through the API, and a local run commits in the working repository without pushing.",
    ),
    pull: flag(
      "Accepted, but no host acts on it in this version: a commit's parent is always the branch's current head.",
    ),
  },
  required: ["branch", "message"],
  snippet: {
    label: "commit step",
    description: "Write files in one commit.",
    id: "commit",
    body: {
      type: "commit",
      name: "${2:Write the change}",
      branch: "${3:playbook/change}",
      message: "${4:Describe the change}",
      files: [{ path: "${5:CHANGES.md}", content: "${6:What changed}" }],
    },
    order: 6,
  },
});
