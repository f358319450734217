import { documented, documentedEnum } from "../../format/schema-docs.js";
import { ref } from "../../format/schema-parts.js";
import { stepKindSchema } from "../kind-schema.js";

/** What a `parallel` step waits for, and what a failed branch does (defaults first). */
export const JOINS = ["all", "any"] as const;
export const BRANCH_FAILURE_POLICIES = ["fail", "continue", "cancel"] as const;
/** Branches of one `parallel` step. */
export const MAX_BRANCHES = 10;

/** The `parallel` step in the playbook format: what it is, its fields, its snippet. */
export const parallelSchema = stepKindSchema({
  kind: "parallel",
  doc: {
    md: "Starts its branches together and waits for its `join`; branches still running then are cancelled. Outputs: `completed`, `failed`, `cancelled` (branch names) and `first`.",
    yaml: "id: checks\ntype: parallel\njoin: all\nbranches:\n  lint: [{ id: lint, type: comment, body: Linting. }]\n  test: [{ id: test, type: comment, body: Testing. }]",
  },
  fields: {
    branches: documented(
      {
        type: "object",
        minProperties: 1,
        maxProperties: MAX_BRANCHES,
        propertyNames: ref("id"),
        additionalProperties: ref("step_list"),
      },
      {
        md: `Branches by name (at most ${MAX_BRANCHES}), each a list of steps run in order; all start together. A branch holds no \`end\` or \`playbook\` step and no \`goto\` out of it.`,
        yaml: "branches:\n  lint: [{ id: lint, type: comment, body: Linting. }]\n  notes: [{ id: notes, type: comment, body: Drafting notes. }]",
      },
    ),
    join: documented(
      {
        if: { type: "string" },
        then: documentedEnum(JOINS, {
          all: "Every branch completed (default).",
          any: "One branch completed.",
        }),
        else: documented(
          {
            type: "object",
            additionalProperties: false,
            required: ["count"],
            properties: {
              count: documented(
                { type: "integer", minimum: 1, maximum: MAX_BRANCHES },
                "How many branches must complete.",
              ),
            },
          },
          "A number of branches that must complete.",
        ),
      },
      {
        md: "When the step is done: `all` branches completed (default), `any` one, or `{ count: N }` of them; branches still running then are cancelled. A join that can no longer be met fails with `PB-JOIN-UNMET`.",
        yaml: "join: { count: 2 }",
      },
    ),
    on_branch_failure: documented(
      documentedEnum(BRANCH_FAILURE_POLICIES, {
        fail: "Default: fail the step with the branch's error and cancel the other branches.",
        continue: "Let the other branches go on; the join decides.",
        cancel: "Cancel the other branches and fail with `PB-BRANCH-FAILED`.",
      }),
      "What a failed branch does to the step.",
    ),
  },
  required: ["branches"],
  snippet: {
    label: "parallel step",
    description: "Branches that run together.",
    id: "together",
    body: {
      type: "parallel",
      name: "${2:Both at once}",
      join: "${3|all,any|}",
      branches: {
        first: [{ id: "${4:first-step}", type: "comment", body: "${5:First}" }],
        second: [{ id: "${6:second-step}", type: "comment", body: "${7:Second}" }],
      },
    },
    order: 13,
  },
  graph: { stepLists: "branches" },
});
