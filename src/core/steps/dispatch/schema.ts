import { documented, text } from "../../format/schema-docs.js";
import { refDoc, flag, typeChoice } from "../../format/schema-parts.js";
import { stepKindSchema } from "../kind-schema.js";

/** The `dispatch` step in the playbook format: what it is, its fields, its snippet. */
export const dispatchSchema = stepKindSchema({
  kind: "dispatch",
  doc: {
    md: "Starts a GitHub Actions workflow with `workflow_dispatch` and, unless `wait: false`, waits for its run to end; a run that does not succeed fails the step with `PB-WORKFLOW-FAILED`. Outputs: `run_id`, `url`, `conclusion`.",
    yaml: "id: deploy\ntype: dispatch\nworkflow: deploy.yml\nref: main\ninputs: { version: '{{ inputs.version }}' }",
  },
  fields: {
    workflow: text({
      md: "The workflow to start: its file name under `.github/workflows/`, or its numeric id (a template).",
      examples: ["deploy.yml", "1234567"],
    }),
    ref: text({
      md: "The branch the workflow runs on (default: the default branch).",
      examples: ["main", "{{ steps.branch.outputs.name }}"],
    }),
    inputs: documented(
      {
        type: "object",
        additionalProperties: typeChoice("string", "number", "boolean"),
      },
      {
        md: "The workflow's `workflow_dispatch` inputs; string values are templates.",
        yaml: "inputs: { version: '{{ inputs.version }}', dry_run: false }",
      },
    ),
    wait: flag(
      "Wait for the workflow run's conclusion (default true); `false` makes the step done once the dispatch is accepted.",
    ),
    correlation_input: refDoc("id", {
      md: "A workflow input the bot sets to this dispatch's key. Put it in the workflow's `run-name` so that the bot knows its run where GitHub returns no run id.",
      yaml: "correlation_input: playbook_run\n# in the workflow: run-name: deploy ${{ inputs.playbook_run }}",
    }),
  },
  required: ["workflow"],
  snippet: {
    label: "dispatch step",
    description: "Start a workflow and wait for it.",
    id: "dispatch",
    body: {
      type: "dispatch",
      name: "${2:Run the workflow}",
      workflow: "${3:deploy.yml}",
      ref: "${4:main}",
    },
    order: 11,
  },
});
