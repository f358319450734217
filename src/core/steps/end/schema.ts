import { documented, documentedEnum, text } from "../../format/schema-docs.js";
import { ids } from "../../format/schema-parts.js";
import { stepKindSchema } from "../kind-schema.js";

/** The `end` step in the playbook format: what it is, its fields, its snippet. */
export const endSchema = stepKindSchema({
  kind: "end",
  doc: {
    md: "Ends the run, or a delegated child, with a status, a conclusion, advice and playbooks to go on with. Nothing follows it.",
    yaml: "id: done\ntype: end\nstatus: success\nconclusion: bumped\nadvice: Merge the pull request when the checks pass.",
  },
  fields: {
    advice: text({
      md: "Closing advice for the people on the issue (a template), shown in the run's last message.",
      examples: ["{{ steps.classify.outputs.conclusion }}: roll back the last deploy."],
    }),
    conclusion: text({
      md: "A short conclusion, kept as written: golden cases compare it, and a delegated child returns it to its parent step as `outputs.conclusion`.",
      examples: ["memory_regression", "bumped"],
    }),
    status: documented(
      documentedEnum(["success", "failure", "neutral"], {
        success: "The run completed and succeeded (default).",
        failure: "The run ends as failed.",
        neutral: "The run completed without a verdict, e.g. to hand off.",
      }),
      "How the run ends here (default `success`).",
    ),
    handoff: ids({
      md: "Playbooks to go on with: one is started when the run ends here; several are offered as `/run` commands. In a delegated child, they are suggested to the parent instead.",
      yaml: "handoff: [storage-investigation]",
    }),
  },
  snippet: {
    label: "end step",
    description: "End the run.",
    id: "done",
    body: {
      type: "end",
      name: "${2:Done}",
      status: "${3|success,failure,neutral|}",
      conclusion: "${4:done}",
    },
    order: 16,
  },
  graph: {
    terminal: () => true,
    terminalNext: {
      message: "an end step ends the run and cannot have next",
      hint: "remove next, or use another step kind",
    },
  },
});
