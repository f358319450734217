import { documented, documentedEnum } from "../../format/schema-docs.js";
import { refDoc, typeChoice } from "../../format/schema-parts.js";
import { stepKindSchema } from "../kind-schema.js";

/** The `playbook` step in the playbook format: what it is, its fields, its snippet. */
export const playbookSchema = stepKindSchema({
  kind: "playbook",
  doc: {
    md: "Runs another playbook: `delegate` runs it as a child and comes back here with its findings and outputs; `handoff` ends this run and starts the other one.",
    yaml: "id: recent\ntype: playbook\nplaybook: recent-changes\nmode: delegate\nwith: { namespace: '{{ inputs.namespace }}' }",
  },
  fields: {
    playbook: refDoc("id", {
      md: "The id of the playbook to run: one of the same set, or of the bundled library.",
      examples: ["recent-changes"],
    }),
    mode: documented(
      documentedEnum(["delegate", "handoff"], {
        delegate:
          "Run the playbook as a child of this run (at most `limits.max_depth` deep); its findings come back here and its outputs and conclusion become this step's outputs. In `nodes:` the step needs `next`.",
        handoff: "End this run and start the playbook as a new run; nothing may follow the step.",
      }),
      "How the playbook runs.",
    ),
    with: documented(
      {
        type: "object",
        additionalProperties: typeChoice("string", "number", "boolean"),
      },
      {
        md: "Inputs of the playbook, mapped explicitly (string values are templates); validation checks them against the child's inputs.",
        yaml: "with: { namespace: '{{ inputs.namespace }}', dry_run: true }",
      },
    ),
  },
  required: ["playbook", "mode"],
  snippet: {
    label: "playbook step",
    description: "Run another playbook.",
    id: "child",
    body: {
      type: "playbook",
      name: "${2:Run the other playbook}",
      playbook: "${3:other-playbook}",
      mode: "${4|delegate,handoff|}",
    },
    order: 14,
  },
  graph: {
    terminal: (step: { mode?: unknown }) => step.mode === "handoff",
    terminalNext: {
      message: "a handoff ends this run, so it cannot have next",
      hint: "remove next, or use mode: delegate to come back here",
    },
  },
});
