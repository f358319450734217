import { documented, text, texts } from "../../format/schema-docs.js";
import { refDoc, flag, permission } from "../../format/schema-parts.js";
import { stepKindSchema, type StepExit } from "../kind-schema.js";

/** The `checkpoint` step in the playbook format: what it is, its fields, its snippet. */
export const checkpointSchema = stepKindSchema({
  kind: "checkpoint",
  doc: {
    md: "Waits for `/approve` from enough allowed people; `/reject` fails the run or goes to `on_reject`. Outputs: `approved_by`, `note`, and the values of `response_schema`.",
    yaml: "id: approve-plan\ntype: checkpoint\nmessage: Bump {{ inputs.package }}? Reply /approve.\napprovers: { permission: maintain, count: 1 }\ntimeout: 24h\nreminder: 4h",
  },
  fields: {
    message: text({
      md: "What is asked of the approvers (a template), shown as text in which only code spans and bold marks stay Markdown.",
      examples: ["Bump `{{ inputs.package }}` to the next {{ inputs.level }} version?"],
    }),
    approvers: documented(
      {
        type: "object",
        additionalProperties: false,
        properties: {
          permission: permission(
            "The least repository role that may approve. Without users, teams or a permission, approving needs write access.",
          ),
          users: texts({
            md: "Logins of people who may approve, whatever their role; they are mentioned in the request.",
            examples: [["octocat"]],
          }),
          teams: texts({
            md: "Teams whose members may approve, as `org/team-slug` or `team-slug`.",
            examples: [["my-org/release-managers"]],
          }),
          count: documented(
            { type: "integer", minimum: 1, maximum: 10 },
            "How many different people must approve (default 1); each person's last vote counts.",
          ),
          allow_initiator: flag(
            "Whether the person who started the run may approve it (default false).",
          ),
        },
      },
      {
        md: "Who may approve: people named in `users`, members of `teams`, or anyone with `permission`; any one of these is enough. Bots never approve.",
        yaml: "approvers:\n  permission: maintain\n  teams: [my-org/release-managers]\n  count: 2",
      },
    ),
    response_schema: documented(
      { type: "object" },
      {
        md: "A JSON Schema (draft 2020-12, `type: object`) of the values an approval carries as `/approve key=value`; values that do not fit refuse the approval, and those that do become the step's outputs.",
        yaml: "response_schema:\n  type: object\n  properties: { version: { type: string, pattern: '^[0-9.]+$' } }\n  required: [version]",
      },
    ),
    on_reject: refDoc("id", {
      md: "The step to go to on `/reject` (default: the run fails with `PB-REJECTED`).",
      examples: ["replan"],
    }),
    reminder: refDoc("duration", {
      md: "Remind the approvers once after this long. Needs a `timeout`.",
      yaml: "reminder: 4h\ntimeout: 24h",
    }),
    on_timeout: text({
      md: "What happens when `timeout` passes without approval: `fail` (default, `PB-TIMEOUT`), `cancel` the run, or the id of a step to go to. Needs a `timeout`.",
      examples: ["fail", "cancel", "escalate"],
    }),
  },
  required: ["message"],
  snippet: {
    label: "checkpoint step",
    description: "Wait for an approval.",
    id: "approve",
    body: {
      type: "checkpoint",
      name: "${2:Approve the plan}",
      message: "${3:Go ahead? Reply /approve or /reject.}",
      approvers: { permission: "${4|maintain,write,admin,triage,read|}", count: 1 },
      timeout: "${5:24h}",
    },
    order: 2,
  },
  graph: {
    exits: (step: { on_reject?: string; on_timeout?: string }) => {
      const exits: StepExit[] = [{ to: step.on_reject, kind: "reject", at: ["on_reject"] }];
      // `fail` and `cancel` end the run; any other value is a step to go to.
      if (step.on_timeout && step.on_timeout !== "fail" && step.on_timeout !== "cancel")
        exits.push({ to: step.on_timeout, kind: "timeout", at: ["on_timeout"] });
      return { exits, goesOn: true };
    },
  },
});
