import { documented, documentedEnum, text } from "../../format/schema-docs.js";
import { flag } from "../../format/schema-parts.js";
import { stepKindSchema } from "../kind-schema.js";

/** The `branch` step in the playbook format: what it is, its fields, its snippet. */
export const branchSchema = stepKindSchema({
  kind: "branch",
  doc: {
    md: "Creates a branch from a base (or reuses one that holds only this run's commits). Outputs: `name`, `sha`, `url`, `created`.",
    yaml: "id: branch\ntype: branch\nname: playbook/bump-{{ inputs.package }}\nif_exists: new-name",
  },
  fields: {
    name: text({
      md: "The branch's name (a template); it must be a safe git ref, checked as written and again once rendered (`PB-TEMPLATE-UNSAFE`).",
      examples: ["playbook/bump-{{ inputs.package }}", "release/{{ inputs.version }}"],
    }),
    from: text({
      md: "The ref to branch from (default: the default branch on GitHub, HEAD in a local run).",
      examples: ["main", "{{ inputs.base }}"],
    }),
    require_new: flag(
      "Fail when the branch already exists: the older spelling of `if_exists: fail`.",
    ),
    if_exists: documented(
      documentedEnum(["reuse", "fail", "new-name"], {
        reuse:
          "Default: take the branch only if every commit on it beyond the base was made by this run (a retry); otherwise the step fails with `GH-CONFLICT`.",
        fail: "Fail whatever the branch holds.",
        "new-name":
          "Use the first of `<name>-2`, `<name>-3`, … (up to `-10`) that is free or left by this run.",
      }),
      "What to do when the branch exists; `outputs.name` is the name used.",
    ),
  },
  required: ["name"],
  snippet: {
    label: "branch step",
    description: "Create a branch.",
    id: "branch",
    body: {
      type: "branch",
      description: "${2:The branch the changes go on.}",
      name: "${3:playbook/change}",
    },
    order: 5,
  },
  graph: { nameIsNotTitle: "a branch step's name is the branch it makes" },
});
