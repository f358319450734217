/**
 * The playbook format v1 as JSON Schema (draft-07, the draft SchemaStore and the YAML language
 * server take without reservation). This object is the single source: the validator compiles it
 * without its annotations, `playbook-bot schema` prints it, and `schema/playbook.v1.schema.json`
 * is written from it for editors (tests keep the three in step).
 *
 * Steps are discriminated on `type` with if/then, so a wrong step yields the errors of its own
 * kind only, never the noise of every alternative. Every field says what the bot does with it
 * (see `schema-docs.ts` for how the documentation is written).
 */
import {
  docKeywords,
  documented,
  documentedEnum,
  text,
  texts,
  type Doc,
  type Json,
} from "./schema-docs.js";
import { playbookSnippets, stepSnippets } from "./schema-snippets.js";

export const API_VERSION = "playbook-bot/v1";
/** Names format v1 for as long as it lasts: a later major version gets a schema of its own. */
export const SCHEMA_ID = "https://playbook-bot.dev/schema/playbook.v1.schema.json";
/** The JSON Schema draft the schema is written in. */
export const SCHEMA_DRAFT = "http://json-schema.org/draft-07/schema#";
export const ID_PATTERN = "^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$";
export const TOOL_PATTERN = "^[a-zA-Z0-9][a-zA-Z0-9_.-]*/[a-zA-Z0-9][a-zA-Z0-9_.-]*$";
export const DURATION_PATTERN = "^([0-9]+[smhd])+$";
export const ERROR_POLICY_PATTERN =
  "^(fail|continue|ignore|retry:[1-9][0-9]?|goto:[a-zA-Z0-9][a-zA-Z0-9_-]{0,63})$";

export const STEP_KINDS = [
  "ai",
  "branch",
  "checkpoint",
  "close",
  "comment",
  "commit",
  "decide",
  "dispatch",
  "end",
  "investigate",
  "issue",
  "label",
  "parallel",
  "playbook",
  "pull_request",
  "script",
] as const;

export const PERMISSIONS = ["read", "triage", "write", "maintain", "admin"] as const;
export const AUTHORITIES = ["just-do-it", "show-me", "ask-first"] as const;
export const INPUT_TYPES = ["string", "number", "boolean", "enum", "list", "object"] as const;
/** Shells a `script` step may name. */
export const SCRIPT_SHELLS = ["bash", "sh", "powershell", "node"] as const;
export const TRANSFORMS = ["kebab-case", "snake-case", "camel-case"] as const;
/** What a `parallel` step waits for, and what a failed branch does (defaults first). */
export const JOINS = ["all", "any"] as const;
export const BRANCH_FAILURE_POLICIES = ["fail", "continue", "cancel"] as const;

/** `for_each`: items run at once (default, hard cap) and items taken from the list (default, hard cap). */
export const FOR_EACH_LIMITS = {
  max_parallel: { default: 4, cap: 20 },
  max_items: { default: 20, cap: 100 },
} as const;
/** Branches of one `parallel` step, and steps of one branch. */
export const MAX_BRANCHES = 10;
export const MAX_BRANCH_STEPS = 50;

export const ALERT_SOURCES = ["github", "alertmanager", "grafana", "generic"] as const;

type StepKind = (typeof STEP_KINDS)[number];

const ref = (name: string): Json => ({ $ref: `#/definitions/${name}` });
/** A reference with a doc of its own: what this place means, beside what the definition is. */
const refDoc = (name: string, doc: Doc | string): Json => documented(ref(name), doc);
const ids = (doc: Doc | string): Json => texts(doc, ref("id"));
const tools = (doc: Doc | string): Json => texts(doc, ref("tool"));
const flag = (doc: Doc | string): Json => documented({ type: "boolean" }, doc);
/**
 * A value of one of several types, written as `anyOf` rather than a type list, which Ajv's strict
 * mode (and so SchemaStore's check) refuses; the validator compiles it back to the type list.
 */
const typeChoice = (...types: string[]): Json => ({ anyOf: types.map((type) => ({ type })) });

/** The documented enum of permissions, for every field that names a least role. */
const PERMISSION_DOCS: Record<(typeof PERMISSIONS)[number], string> = {
  read: "Anyone who can read the repository.",
  triage: "Triage access or more: may manage issues and pull requests.",
  write: "Write access or more: may push to the repository.",
  maintain: "Maintain access or more: may manage the repository without its sensitive settings.",
  admin: "Admin access: full control of the repository.",
};
const permission = (doc: Doc | string): Json =>
  documented(documentedEnum(PERMISSIONS, PERMISSION_DOCS), doc);

const AUTHORITY_DOCS: Record<(typeof AUTHORITIES)[number], string> = {
  "just-do-it": "The step runs without asking.",
  "show-me":
    "The step runs and then reports its outputs on the issue; with `authority.ask_first_below`, an initiator below that role meets an approval first.",
  "ask-first":
    "The step waits for `/approve` from someone with maintain access other than the initiator before it runs.",
};

/** Fields every step may carry: each is a definition, documented once for every kind. */
const COMMON_STEP_FIELDS: Record<string, Json> = {
  id: ref("step_field_id"),
  type: documented(
    { type: "string" },
    "The step kind; it decides which other fields the step takes.",
  ),
  name: ref("step_field_name"),
  description: ref("step_field_description"),
  if: ref("step_field_if"),
  next: ref("next"),
  on_error: ref("on_error"),
  authority: ref("step_field_authority"),
  timeout: ref("step_field_timeout"),
  idempotency_key: ref("step_field_idempotency_key"),
  needs: ref("step_field_needs"),
  for_each: ref("step_field_for_each"),
  input_schema: ref("step_field_input_schema"),
  output_schema: ref("step_field_output_schema"),
};

/** The definitions behind COMMON_STEP_FIELDS. */
const COMMON_STEP_FIELD_DEFS: Record<string, Json> = {
  step_field_id: refDoc("id", {
    md: "The step's id, unique in the playbook (across `parallel` branches too). `next`, `goto`, `needs` and templates (`{{ steps.<id>.outputs.<name> }}`) name the step by it. In `nodes:` the key is the id.",
    examples: ["approve-plan", "open_pr"],
  }),
  step_field_name: text({
    md: "Short title of the step in the status comment, the trace and messages (default: the id). On a `branch` step, `name` is the branch's name instead.",
    examples: ["Approve the plan"],
  }),
  step_field_description: text({
    md: "What the step does and why, shown in the status comment while the step is current; an `investigate` step also shows it, rendered as a template, in its waiting message. A step with neither `name` nor `description` gets a style warning.",
  }),
  step_field_if: refDoc("expression", {
    md: "Run the step only when this expression is true; otherwise the step is skipped and the run goes on past it. Outputs of a step that may be skipped are flagged where later steps use them.",
    yaml: "if: inputs.level == 'major' and findings.failing_pods > 0",
    examples: ["inputs.level == 'major'", "findings.failing_pods > 0"],
  }),
  step_field_authority: documented(documentedEnum(AUTHORITIES, AUTHORITY_DOCS), {
    md: "How far the step may act on its own. A step without it takes `authority.default` when it changes something (`branch`, `commit`, `pull_request`, `issue`, `label`, `close`, `dispatch`, `comment`, `script`), and otherwise `just-do-it`.",
  }),
  step_field_timeout: refDoc("duration", {
    md: "How long the step may wait (for people, a merge, a workflow) before it fails with `PB-TIMEOUT`, which its `on_error` may handle. A `checkpoint` follows its `on_timeout` instead, and a `script` is stopped after this long (default 10m).",
    yaml: "timeout: 24h",
  }),
  step_field_idempotency_key: text({
    md: "Declares the step safe to run again: with it, `on_error: retry:N` also retries an `ai`, `parallel` or `script` step, which are otherwise never retried. The value is kept as written; effects are still found again by their own key (run, step, attempt, item).",
    examples: ["notes-{{ inputs.version }}"],
  }),
  step_field_needs: documented(
    { type: "array", items: ref("id"), maxItems: 50 },
    {
      md: "Steps of the same list that must be completed or skipped before this one starts. A list in which any step has `needs` runs as a graph: steps without needs start with the list, every other one once its needs are done, and the run goes on when all are. Not in `nodes:`, and not together with `next`.",
      yaml: "needs: [release-branch, notes]",
    },
  ),
  step_field_for_each: text({
    md: "A template naming a list (a list input, a list output, a finding, or JSON list text): the step runs once per item, `limits.max_parallel` at a time, over at most `limits.max_items` items (a longer list fails with `PB-FOR-EACH-INVALID`). The step's templates read `{{ item }}` (and `{{ item.field }}` of an object) and `{{ item_index }}` (from 0); each of its outputs becomes a list with one entry per item.",
    yaml: 'for_each: "{{ inputs.services }}"\nbody: "{{ item }} is number {{ item_index }}"',
    examples: ["{{ inputs.services }}", "{{ steps.list.outputs.names }}"],
  }),
  step_field_input_schema: documented(
    { type: "object" },
    {
      md: "A JSON Schema (draft 2020-12) of the data that enters the step: its fields as rendered for its effect. Data that does not fit fails the step with `PB-CONTRACT-INPUT`, naming the field.",
      yaml: "input_schema:\n  type: object\n  properties: { title: { type: string, maxLength: 80 } }",
    },
  ),
  step_field_output_schema: documented(
    { type: "object" },
    {
      md: "A JSON Schema (draft 2020-12) of what leaves the step: its outputs and findings. A result that does not fit fails the step with `PB-CONTRACT-OUTPUT`, naming the field.",
      yaml: "output_schema:\n  type: object\n  required: [text]",
    },
  ),
};

/** What each step kind is, for the `type` enum and the kind's definition. */
const STEP_KIND_DOCS: Record<StepKind, Doc> = {
  ai: {
    md: "Asks the configured AI adapter (a mock unless one is configured) to work on a prompt, with the tools listed; the answer is `outputs.text` and the findings it reports are recorded. Its tools are read-only unless `scope: write`, which needs an approval first. `on_error: retry:N` retries it only with an `idempotency_key`.",
    yaml: "id: summarise\ntype: ai\nprompt: Summarise the failing tests of {{ inputs.package }}.\nexpected_findings: [flaky_test]\nverify: non-empty",
  },
  branch: {
    md: "Creates a branch from a base (or reuses one that holds only this run's commits). Outputs: `name`, `sha`, `url`, `created`.",
    yaml: "id: branch\ntype: branch\nname: playbook/bump-{{ inputs.package }}\nif_exists: new-name",
  },
  checkpoint: {
    md: "Waits for `/approve` from enough allowed people; `/reject` fails the run or goes to `on_reject`. Outputs: `approved_by`, `note`, and the values of `response_schema`.",
    yaml: "id: approve-plan\ntype: checkpoint\nmessage: Bump {{ inputs.package }}? Reply /approve.\napprovers: { permission: maintain, count: 1 }\ntimeout: 24h\nreminder: 4h",
  },
  close: {
    md: "Closes the run's issue (or another one), after an optional comment. Output: `state`.",
    yaml: "id: close\ntype: close\nreason: completed\ncomment: Fixed by the merged pull request.",
  },
  comment: {
    md: "Posts a comment on the run's issue, on another issue or pull request, or as a reply in a review thread. Outputs: `id`, `url`.",
    yaml: "id: greet\ntype: comment\nbody: Triage started for {{ inputs.service }}.",
  },
  commit: {
    md: "Writes files in one atomic commit on an existing branch; a retry finds the commit again instead of making it twice. Outputs: `sha`, `url`, `branch`.",
    yaml: 'id: commit\ntype: commit\nbranch: "{{ steps.branch.outputs.name }}"\nmessage: "chore: bump {{ inputs.package }}"\nfiles:\n  - { path: CHANGES.md, content: "Bumped {{ inputs.package }}." }',
  },
  decide: {
    md: "Concludes from the findings with rules in order, the first that matches winning, else `fallback`. Outputs: `conclusion`, `confidence`, `root_cause`, `rule`, `alternatives`, `next_actions`, `facts`, `evidence`.",
    yaml: "id: classify\ntype: decide\nrules:\n  - { id: oom, all: [oom_killed], conclusion: memory_limit_too_low, goto: report }\nfallback: { conclusion: inconclusive }",
  },
  dispatch: {
    md: "Starts a GitHub Actions workflow with `workflow_dispatch` and, unless `wait: false`, waits for its run to end; a run that does not succeed fails the step with `PB-WORKFLOW-FAILED`. Outputs: `run_id`, `url`, `conclusion`.",
    yaml: "id: deploy\ntype: dispatch\nworkflow: deploy.yml\nref: main\ninputs: { version: '{{ inputs.version }}' }",
  },
  end: {
    md: "Ends the run, or a delegated child, with a status, a conclusion, advice and playbooks to go on with. Nothing follows it.",
    yaml: "id: done\ntype: end\nstatus: success\nconclusion: bumped\nadvice: Merge the pull request when the checks pass.",
  },
  investigate: {
    md: "Work for people or tools: suggested tool calls (made at once with `run: auto`, or on `/call <n>`), findings recorded with `/record key=value`, and prose branches chosen with `/choose`. Outputs: `results`, `chosen`, and the outputs its calls take.",
    yaml: "id: pod_state\ntype: investigate\ndescription: Look at the pods.\nsuggested_calls:\n  - { tool: k8s/list_resources, args: { kind: Pod }, run: auto }\nexpected_findings: [failing_pods]",
  },
  issue: {
    md: "Opens an issue; a hidden marker lets a retry find it instead of opening another. Outputs: `number`, `url`.",
    yaml: "id: follow-up\ntype: issue\ntitle: Follow up on {{ inputs.service }}\nlabels: [follow-up]",
  },
  label: {
    md: "Adds and removes labels on the run's issue (or another one). Output: `labels`, the labels it has afterwards.",
    yaml: "id: mark\ntype: label\nadd: [triaged]\nremove: [needs-triage]",
  },
  parallel: {
    md: "Starts its branches together and waits for its `join`; branches still running then are cancelled. Outputs: `completed`, `failed`, `cancelled` (branch names) and `first`.",
    yaml: "id: checks\ntype: parallel\njoin: all\nbranches:\n  lint: [{ id: lint, type: comment, body: Linting. }]\n  test: [{ id: test, type: comment, body: Testing. }]",
  },
  playbook: {
    md: "Runs another playbook: `delegate` runs it as a child and comes back here with its findings and outputs; `handoff` ends this run and starts the other one.",
    yaml: "id: recent\ntype: playbook\nplaybook: recent-changes\nmode: delegate\nwith: { namespace: '{{ inputs.namespace }}' }",
  },
  pull_request: {
    md: "Opens a pull request (or finds the app's open one for the head) and, with `wait: merged`, waits for its merge. Outputs: `number`, `url`, `head`, `merged`, `merge_sha`.",
    yaml: 'id: pr\ntype: pull_request\nhead: "{{ steps.branch.outputs.name }}"\ntitle: Bump {{ inputs.package }}\ncloses_issue: true\nwait: merged',
  },
  script: {
    md: "Runs a script where an operator allowed scripts (`playbook-bot run … --allow-scripts`, or the Actions runtime); the app refuses it with `PB-SCRIPT-REFUSED`. A non-zero exit fails the step with `PB-SCRIPT-FAILED`. Outputs: `exit_code`, `stdout`, `stderr` (their last 4,000 characters).",
    yaml: 'id: test\ntype: script\nshell: bash\nrun: npm test -- "$PACKAGE"\nenv: { PACKAGE: "{{ inputs.package }}" }',
  },
};

/** Fields of each step kind, beyond the common ones, and which of them are required. */
const STEP_FIELDS: Record<StepKind, { fields: Record<string, Json>; required?: string[] }> = {
  comment: {
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
  },
  end: {
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
  },
  checkpoint: {
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
  },
  investigate: {
    fields: {
      suggested_calls: texts(
        {
          md: "Tool calls for this step, numbered from 1 as `/call <n>` names them. Calls with `run: auto` are made when the step starts; the others when someone with triage access says `/call <n>`. Results become findings.",
          yaml: "suggested_calls:\n  - tool: k8s/list_resources\n    args: { kind: Pod, namespace: '{{ inputs.namespace }}' }\n    purpose: Which pods are not Ready\n    run: auto",
        },
        documented(
          {
            type: "object",
            additionalProperties: false,
            required: ["tool"],
            properties: {
              tool: refDoc("tool", "The tool to call, as `server/tool`."),
              args: documented(
                { type: "object" },
                {
                  md: "Arguments of the call; string values at any depth are templates.",
                  yaml: "args: { kind: Pod, namespace: '{{ inputs.namespace }}' }",
                },
              ),
              purpose: text("Why the call is made, shown beside it in the waiting message."),
              required: flag(
                "A failed call is recorded as the finding `step_error`; the run goes on either way.",
              ),
              outputs: documented(
                {
                  type: "object",
                  propertyNames: ref("id"),
                  additionalProperties: { type: "string" },
                },
                {
                  md: "Step outputs taken from the call's result: output name → dotted path in the result (`items.0.title`; empty for the whole result), read as `steps.<id>.outputs.<name>`.",
                  yaml: "outputs: { first_pod: items.0.metadata.name, all: '' }",
                },
              ),
              run: documented(
                documentedEnum(["suggest", "auto"], {
                  suggest:
                    "Offered to people (default): the bot makes it on `/call <n>` when its server is configured.",
                  auto: "The bot makes the call when the step starts.",
                }),
                "When the call is made (default `suggest`).",
              ),
            },
          },
          "One call: the tool, its arguments, and what to take from its result.",
        ),
      ),
      expected_findings: ids({
        md: "Finding keys the step waits for, recorded with `/record key=value` or given by its calls; without prose branches, the step is done once all are recorded.",
        yaml: "expected_findings: [failing_pods, oom_killed]",
      }),
    },
  },
  decide: {
    fields: {
      rules: texts(
        {
          md: "Rules in order: the first whose findings match wins and gives the conclusion. A finding is present when it was recorded with a value other than false, 0, empty, `no`, `false` or null.",
          yaml: "rules:\n  - id: oom_after_deploy\n    all: [oom_killed, recent_deploy]\n    conclusion: memory_regression\n    confidence: 0.85\n    goto: report",
        },
        documented(
          {
            type: "object",
            additionalProperties: false,
            required: ["id", "conclusion"],
            properties: {
              id: refDoc("id", "The rule's id, given as `outputs.rule` when it matches."),
              all: ids("Findings that must all be present."),
              any: ids("Findings of which at least one must be present."),
              none: ids("Findings that must all be absent."),
              ...conclusionFields(),
            },
          },
          "A rule: the findings it needs, and the conclusion it gives.",
        ),
      ),
      fallback: documented(
        {
          type: "object",
          additionalProperties: false,
          required: ["conclusion"],
          properties: conclusionFields(),
        },
        {
          md: "The conclusion when no rule matches (without it, `outputs.conclusion` is null).",
          yaml: "fallback: { conclusion: inconclusive, confidence: 0.4, goto: report }",
        },
      ),
      confirmed_facts: texts(
        {
          md: "Sentences reported with the conclusion: each one whose `finding` is present, and each one without a finding.",
          yaml: "confirmed_facts:\n  - { finding: failing_pods, text: At least one pod is not Ready. }",
        },
        documented(
          {
            type: "object",
            additionalProperties: false,
            required: ["text"],
            properties: {
              finding: refDoc(
                "id",
                "The finding that must be present for the sentence to be reported.",
              ),
              text: text("The sentence (a template), listed in `outputs.facts`."),
            },
          },
          "A sentence, and the finding it depends on.",
        ),
      ),
      require_evidence: flag({
        md: "Conclusions must rest on findings: validation then requires every rule to name findings under `all` or `any`. (`outputs.evidence` always lists the matched rule's findings that were present.)",
      }),
    },
    required: ["rules"],
  },
  branch: {
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
  },
  commit: {
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
        md: "In a local run: globs of working-tree files to commit as they are. On GitHub a commit takes `files` only.",
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
  },
  pull_request: {
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
  },
  issue: {
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
  },
  label: {
    fields: {
      add: texts({
        md: "Labels to add (templates); each must render to at most 50 characters on one line. A label step needs `add` or `remove`.",
        examples: [["triaged", "service:{{ inputs.service }}"]],
      }),
      remove: texts({
        md: "Labels to remove (templates).",
        examples: [["needs-triage"]],
      }),
      issue: text({
        md: "The number of the issue or pull request to label (a template; default: the run's issue).",
        examples: ["42", "{{ steps.pr.outputs.number }}"],
      }),
    },
  },
  close: {
    fields: {
      reason: documented(
        documentedEnum(["completed", "not_planned"], {
          completed: "Closed as done (default).",
          not_planned: "Closed as not planned.",
        }),
        "Why the issue is closed, as GitHub records it.",
      ),
      comment: text("A comment posted before closing (a template)."),
      issue: text({
        md: "The number of the issue or pull request to close (a template; default: the run's issue).",
        examples: ["42", "{{ steps.pr.outputs.number }}"],
      }),
    },
  },
  dispatch: {
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
  },
  ai: {
    fields: {
      prompt: text({
        md: "The prompt (a template). Give `prompt` or `prompt_file`, not both.",
        examples: ["Summarise the failing tests of {{ inputs.package }}."],
      }),
      prompt_file: text({
        md: "A Markdown prompt file, relative to the playbook file, rendered as the prompt. Give `prompt` or `prompt_file`, not both.",
        examples: ["prompts/summarise.md"],
      }),
      tools: tools({
        md: "Tools offered to the model, as `server/tool`; a read-only step may offer only tools that read (`PB-AI-TOOL-REFUSED`). The model makes at most 20 calls in one step, within `limits.max_tool_calls`.",
        yaml: "tools: [github/search_issues, k8s/get_logs]",
      }),
      scope: documented(
        documentedEnum(["read-only", "write"], {
          "read-only": "Default: the model may use only tools that read.",
          write:
            "The model may use tools that change things; the step runs only after a checkpoint has passed, or waits for an ask-first approval.",
        }),
        "What the step's tools may do.",
      ),
      expected_findings: ids({
        md: "Finding keys the model is asked to report; those it reports are recorded as findings.",
        yaml: "expected_findings: [root_cause, flaky_test]",
      }),
      expect_files: texts({
        md: "Repository paths (templates) that must be files once the model has answered, else `PB-AI-OUTPUT-MISSING`.",
        examples: [["docs/{{ inputs.name }}.md"]],
      }),
      cache: flag(
        "Answer from the host's cache (in memory, the last 200 asks) when the same ask was answered before: the same rendered prompt, tools, scope and expected findings. For steps whose answer may be reused.",
      ),
      verify: refDoc("id", {
        md: "The name of a check registered in the bot's code that must accept the answer, else `PB-VERIFY-FAILED`: `non-empty`, `json`, `findings-complete`, or one an embedding application registers. Nothing from the playbook runs as code.",
        examples: ["non-empty", "json", "findings-complete"],
      }),
    },
  },
  parallel: {
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
  },
  playbook: {
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
  },
  script: {
    fields: {
      shell: documented(
        documentedEnum(SCRIPT_SHELLS, {
          bash: "Run the text with bash.",
          sh: "Run the text with sh.",
          powershell: "Run the text with PowerShell.",
          node: "Run the text with Node.js.",
        }),
        "The interpreter that runs the script.",
      ),
      run: text({
        md: "The script's text, passed as written: it is never a template, so `{{ … }}` in it is not filled in (a warning). Values reach it as environment variables through `env`.",
        yaml: 'run: |\n  npm install "$PACKAGE@latest"\n  npm test',
      }),
      env: documented(
        {
          type: "object",
          propertyNames: { pattern: "^[A-Z_][A-Z0-9_]*$" },
          additionalProperties: typeChoice("string", "number", "boolean"),
        },
        {
          md: "Environment variables of the script, in capitals; string values are templates. This is how values reach the script.",
          yaml: "env: { PACKAGE: '{{ inputs.package }}', RETRIES: 3 }",
        },
      ),
    },
    required: ["shell", "run"],
  },
};

function conclusionFields(): Record<string, Json> {
  return {
    conclusion: text({
      md: "The conclusion, kept as written (`outputs.conclusion`).",
      examples: ["memory_regression"],
    }),
    confidence: documented(
      { type: "number", minimum: 0, maximum: 1 },
      "How sure the conclusion is, from 0 to 1 (`outputs.confidence`).",
    ),
    root_cause: text("The root cause, in prose (`outputs.root_cause`)."),
    alternatives: texts("Other explanations worth ruling out (`outputs.alternatives`)."),
    next_actions: texts("Recommended next actions (`outputs.next_actions`)."),
    goto: refDoc("id", "The step to continue with after this conclusion."),
  };
}

function stepKindDefs(): Record<string, Json> {
  const defs: Record<string, Json> = {};
  for (const kind of STEP_KINDS) {
    const spec = STEP_FIELDS[kind];
    defs[`step_${kind}`] = documented(
      {
        type: "object",
        additionalProperties: false,
        properties: {
          ...COMMON_STEP_FIELDS,
          type: documented({ const: kind }, `The step kind: \`${kind}\`.`),
          ...spec.fields,
        },
        ...(spec.required ? { required: spec.required } : {}),
      },
      STEP_KIND_DOCS[kind],
    );
  }
  return defs;
}

/** The kind-specific fields of a step kind: used for "did you mean" on unknown fields. */
export function stepFieldNames(kind: string): string[] {
  const spec = (STEP_FIELDS as Record<string, { fields: Record<string, Json> } | undefined>)[kind];
  return [...Object.keys(COMMON_STEP_FIELDS), ...Object.keys(spec?.fields ?? {})];
}

const signal = documented(
  {
    type: "object",
    additionalProperties: false,
    required: ["pattern", "weight"],
    properties: {
      pattern: text({
        md: "Text looked for, case-insensitively; an RE2 regular expression (also case-insensitive) when `regex` is true.",
        examples: ["5xx", "(gateway|upstream) (errors?|timeouts?)"],
      }),
      weight: documented(
        { type: "number" },
        "Added to the score when the pattern is found (a negative weight lowers it).",
      ),
      regex: flag("Read `pattern` as an RE2 regular expression, which runs in linear time."),
    },
  },
  {
    md: "A text signal and its weight.",
    yaml: "pattern: error rate\nweight: 1.5",
  },
);

/** How alert and issue selectors score a playbook: weighted signals, a tie-breaker, a threshold. */
const SCORING: Json = {
  signals: documented(
    {
      type: "object",
      additionalProperties: false,
      properties: {
        positive: texts("Signals that raise the score when found.", signal),
        negative: texts("Signals that lower the score when found (with negative weights).", signal),
      },
    },
    {
      md: "Weighted text signals: each one found adds its weight to the score.",
      yaml: "signals:\n  positive:\n    - { pattern: 5xx, weight: 2 }\n  negative:\n    - { pattern: test alert, weight: -3 }",
    },
  ),
  priority: documented(
    { type: "number" },
    "A tie-breaker: the higher wins between equal scores; it also adds 0.01 × priority to the score.",
  ),
  min_score: documented(
    { type: "number" },
    "The least score for this playbook to be chosen (default 0).",
  ),
};

/** The shape of a step in a list (`steps:`, a branch): a step with its id. */
const LISTED_STEP = documented(
  {
    type: "object",
    allOf: [ref("step")],
    properties: { id: refDoc("id", "The step's id, unique in the playbook.") },
    required: ["id"],
    defaultSnippets: stepSnippets({ withId: true }),
  },
  "A step of a list: an id, a `type`, and the fields of that kind.",
);

const ALERT_SOURCE_DOCS: Record<(typeof ALERT_SOURCES)[number], string> = {
  github:
    "GitHub's security alerts (code scanning, Dependabot, secret scanning) of the repository.",
  alertmanager: "Prometheus Alertmanager's webhook.",
  grafana: "Grafana alerting's webhook.",
  generic: "The generic alert format (`schema/alert.generic.v1.schema.json`).",
};

const TEST_ACTOR = documented(
  {
    type: "object",
    additionalProperties: false,
    properties: {
      by: text({
        md: "The person's login (default: a test user: `test-initiator` with write access for the initiator, `test-approver` with admin access for `approve`, `reject`, `retry` and `cancel`, `test-investigator` with triage access for `record` and `choose`).",
        examples: ["octocat"],
      }),
      permission: permission("The person's role in the repository (default: as for `by`)."),
      teams: texts({
        md: "Teams the person belongs to, for approvers named by team.",
        examples: [["my-org/release-managers"]],
      }),
      step: refDoc("id", "For `approve`: the waiting step approved (default: the first waiting)."),
      values: documented(
        { type: "object", additionalProperties: typeChoice("string", "number", "boolean") },
        {
          md: "For `approve`: the `key=value` values of the approval.",
          yaml: "values: { version: 1.2.3 }",
        },
      ),
      reason: text("For `reject`: the reason given."),
      findings: documented(
        { type: "object", additionalProperties: typeChoice("string", "number", "boolean") },
        {
          md: "For `record`: the findings recorded.",
          yaml: "findings: { failing_pods: 2, oom_killed: true }",
        },
      ),
      branch: refDoc("id", "For `choose`: the label of the branch chosen."),
    },
  },
  {
    md: "Who acts in a golden case, and with what.",
    yaml: "by: octocat\npermission: maintain",
  },
);

const TEST_EVENT = documented(
  {
    type: "object",
    minProperties: 1,
    maxProperties: 1,
    additionalProperties: false,
    properties: {
      approve: refDoc("test_actor", "`/approve`, by this person."),
      reject: refDoc("test_actor", "`/reject`, by this person."),
      record: refDoc("test_actor", "`/record` of `findings`, by this person."),
      choose: refDoc("test_actor", "`/choose` of `branch`, by this person."),
      retry: refDoc("test_actor", "`/retry` of the failed run, by this person."),
      cancel: refDoc("test_actor", "`/cancel`, by this person."),
      merge: flag("The awaited pull request is merged."),
      close_pr: flag("The awaited pull request is closed without being merged."),
      workflow: documented(
        documentedEnum(["success", "failure", "cancelled"], {
          success: "The run succeeded.",
          failure: "The run failed.",
          cancelled: "The run was cancelled.",
        }),
        "The awaited workflow run ends so.",
      ),
      fail_effect: documented(
        {
          type: "object",
          additionalProperties: false,
          required: ["step", "code"],
          properties: {
            step: refDoc("id", "The step whose effect fails."),
            code: text({
              md: "The error code it fails with (an unknown code becomes `PB-EFFECT-FAILED`).",
              examples: ["GH-RATE-LIMITED"],
            }),
            times: documented(
              { type: "integer", minimum: 1 },
              "How many of its next effects fail (default 1).",
            ),
          },
        },
        {
          md: "The next effect(s) of a step fail with this error code, wherever the event is listed.",
          yaml: "fail_effect: { step: open_pr, code: GH-RATE-LIMITED, times: 2 }",
        },
      ),
      wait: refDoc("duration", {
        md: "Time passes: timeouts and reminders due by then fire.",
        yaml: "wait: 25h",
      }),
    },
  },
  {
    md: "One event of a golden case: a command, an outside event, a failing effect, or time passing.",
    yaml: "approve: { by: octocat, values: { version: 1.2.3 } }",
  },
);

const TEST_CASE = documented(
  {
    type: "object",
    additionalProperties: false,
    required: ["name", "expect"],
    properties: {
      name: text("What the case shows, named in the test report."),
      inputs: documented(
        { type: "object", additionalProperties: typeChoice("string", "number", "boolean") },
        { md: "The run's inputs.", yaml: "inputs: { package: lodash, level: minor }" },
      ),
      initiator: refDoc(
        "test_actor",
        "Who starts the run (default: `test-initiator`, write access).",
      ),
      alert: documented(
        {
          type: "object",
          additionalProperties: false,
          properties: {
            title: text("The alert's title (`{{ alert.title }}`)."),
            summary: text("The alert's summary (`{{ alert.summary }}`; default empty)."),
            severity: text({
              md: "The alert's severity (`{{ alert.severity }}`; default `unknown`).",
              examples: ["critical", "warning"],
            }),
            status: documented(
              documentedEnum(["firing", "resolved"], {
                firing: "The alert fires (default).",
                resolved: "The alert has resolved.",
              }),
              "The alert's status (`{{ alert.status }}`).",
            ),
            source: documented(
              documentedEnum(ALERT_SOURCES, ALERT_SOURCE_DOCS),
              "Where the alert came from (`{{ alert.source }}`; default `generic`).",
            ),
            labels: documented(
              { type: "object", additionalProperties: { type: "string" } },
              {
                md: "The alert's labels (`{{ alert.labels.<name> }}`); they also fill inputs with `from: labels.<name>`.",
                yaml: "labels: { service: checkout, env: prod }",
              },
            ),
            annotations: documented(
              { type: "object", additionalProperties: { type: "string" } },
              {
                md: "The alert's annotations (`{{ alert.annotations.<name> }}`); they also fill inputs with `from: annotations.<name>`.",
                yaml: "annotations: { runbook: 'https://runbooks.example/checkout' }",
              },
            ),
          },
        },
        {
          md: "The alert that starts the run: its fields are `{{ alert.* }}`, and its labels and annotations feed inputs with `from:`.",
          yaml: "alert:\n  title: High error rate\n  severity: critical\n  labels: { service: checkout }",
        },
      ),
      events: texts(
        {
          md: "Events in order, each given when the run waits (a `fail_effect` is armed before the run reaches the step). Events left over fail the case.",
          yaml: "events:\n  - approve: {}\n  - merge: true",
        },
        ref("test_event"),
      ),
      expect: documented(
        {
          type: "object",
          additionalProperties: false,
          properties: {
            path: texts({
              md: "The steps that ran, in order (skipped ones left out; a delegated child's as `<playbook>/<step>`).",
              yaml: "path: [approve-plan, branch, commit, pr, done]",
            }),
            status: documented(
              documentedEnum(["completed", "failed", "cancelled", "waiting", "running"], {
                completed: "The run ended and did not fail.",
                failed: "The run failed (or never started, with `PB-INPUT-INVALID`).",
                cancelled: "The run was cancelled.",
                waiting: "The run waits for people or an outside event after the last event.",
                running: "The run is still running after the last event.",
              }),
              "The run's status after the last event.",
            ),
            conclusion: text({
              md: "The last `decide` step's conclusion, or else the `end` step's.",
              examples: ["memory_regression"],
            }),
            error: text({
              md: "The error code the run failed with.",
              examples: ["PB-REJECTED", "PB-INPUT-INVALID"],
            }),
            outputs: documented(
              { type: "object", additionalProperties: typeChoice("string", "number", "boolean") },
              {
                md: "The run's `outputs`, compared as text.",
                yaml: "outputs: { pr: 'https://github.test/pulls/4' }",
              },
            ),
          },
        },
        {
          md: "What the run must have done; only the fields given are checked.",
          yaml: "expect:\n  path: [approve-plan, branch]\n  status: completed",
        },
      ),
    },
  },
  {
    md: "A golden case run by `playbook-bot test`: inputs, an alert and events in, and the path, status, conclusion, error and outputs expected, with every effect simulated.",
    yaml: "name: a maintainer approves\ninputs: { package: lodash }\nevents: [{ approve: { by: octocat } }]\nexpect: { status: completed }",
  },
);

const INPUT = documented(
  {
    type: "object",
    additionalProperties: false,
    required: ["type"],
    properties: {
      type: documented(
        documentedEnum(INPUT_TYPES, {
          string: "Text.",
          number: "A number (a whole or decimal number written as text is read as one).",
          boolean: "true or false (also yes/no, on/off, 1/0).",
          enum: "One of `values`.",
          list: "Items separated by commas or line breaks; `pattern` and `transform` apply to each.",
          object: "A JSON object; templates read its fields (`{{ inputs.config.region }}`).",
        }),
        "The input's type; values are checked and converted before the run starts.",
      ),
      description: text("What the input is for; it is quoted when a required input is missing."),
      required: flag("A run does not start without a value (or a `default`)."),
      default: documented(
        { ...typeChoice("string", "number", "boolean", "object", "array") },
        {
          md: "The value when none is given. A string may name other inputs (`{{ inputs.package }}`); a list's items make a list input, an object its JSON.",
          examples: ["minor", "{{ inputs.package }}"],
        },
      ),
      pattern: text({
        md: "A regular expression (RE2, linear time) that a string (after `transform`) or each list item must match.",
        examples: ["^[a-z0-9-]+$", "^[0-9]+\\.[0-9]+\\.[0-9]+$"],
      }),
      min: documented(
        { type: "number" },
        "The least value of a number, length of a string, or count of a list's items.",
      ),
      max: documented(
        { type: "number" },
        "The greatest value of a number, length of a string, or count of a list's items.",
      ),
      values: documented(
        { type: "array", minItems: 1, items: { type: "string" } },
        { md: "The values an `enum` input may take.", yaml: "values: [patch, minor, major]" },
      ),
      transform: documented(
        documentedEnum(TRANSFORMS, {
          "kebab-case": "`Lodash Utils` becomes `lodash-utils`.",
          "snake-case": "`Lodash Utils` becomes `lodash_utils`.",
          "camel-case": "`Lodash Utils` becomes `lodashUtils`.",
        }),
        "Rewrites a string, or each list item, before it is checked.",
      ),
      from: text({
        md: "Where the value comes from when the run's arguments do not give it: `labels.<name>` or `annotations.<name>` of the alert, `issue.form.<heading>` of an issue form, or `issue.title`, `issue.body`, `issue.number`, `issue.author`. Without it, an issue form heading named like the input gives the value.",
        examples: ["labels.service", "issue.form.package name", "issue.number"],
      }),
    },
  },
  {
    md: "A typed input: checked, converted and given to templates as `{{ inputs.<name> }}`; a run starts only when every input is fine (else `PB-INPUT-INVALID`, listing every problem).",
    yaml: "type: enum\nvalues: [patch, minor, major]\ndefault: minor\ndescription: How far to bump.",
  },
);

export const PLAYBOOK_SCHEMA = {
  $schema: SCHEMA_DRAFT,
  $id: SCHEMA_ID,
  title: "Playbook Bot playbook (v1)",
  ...docKeywords({
    md: "A Playbook Bot playbook: a repeatable procedure run from GitHub issues, step by step. Validate it with `playbook-bot validate`.",
    yaml: "apiVersion: playbook-bot/v1\nid: hello\non: { command: hello }\nsteps:\n  - { id: greet, type: comment, name: Greet, body: Hello. }",
  }),
  type: "object",
  additionalProperties: false,
  required: ["apiVersion", "id"],
  defaultSnippets: playbookSnippets(),
  properties: {
    apiVersion: documented(
      { const: API_VERSION },
      { md: `The format version: \`${API_VERSION}\`.`, examples: [API_VERSION] },
    ),
    id: refDoc("id", {
      md: "The playbook's id: `/run <id>` and the label `playbook:<id>` start it, and other playbooks name it. One id per set; an id in a nearer tier replaces a lower tier's.",
      examples: ["dependency-bump", "service-triage"],
    }),
    name: text({
      md: "A human-readable name, shown in the status comment.",
      examples: ["Bump a dependency"],
    }),
    description: text("What the playbook is for."),
    owner: text({
      md: "The owning role or team (descriptive).",
      examples: ["sre", "release-manager"],
    }),
    reviewers: documented(
      {
        type: "object",
        additionalProperties: false,
        properties: {
          required: texts("Roles or people that must review changes to the playbook."),
          optional: texts("Roles or people that may review changes to the playbook."),
        },
      },
      {
        md: "Who reviews changes to the playbook (descriptive).",
        yaml: "reviewers: { required: [maintainer], optional: [security] }",
      },
    ),
    active: flag(
      "false disables this id, a lower tier's playbook of the same id included (default true).",
    ),
    tags: documented(
      {
        type: "object",
        additionalProperties: false,
        properties: {
          services: texts("Services the playbook is about."),
          errors: texts("Error signatures it handles."),
          symptoms: texts("Symptoms it investigates."),
        },
      },
      {
        md: "Tags for people and catalogues (descriptive).",
        yaml: "tags: { services: [checkout], symptoms: [unhealthy] }",
      },
    ),
    kind: documented(
      documentedEnum(["user_workflow", "system_tool"], {
        user_workflow: "Produces things for people.",
        system_tool: "Serves the system.",
      }),
      "What the playbook is (descriptive).",
    ),
    interaction_mode: texts(
      {
        md: "How the playbook talks to people; several may be given.",
        yaml: "interaction_mode: [needs_review]",
      },
      documentedEnum(["silent", "needs_review", "conversational"], {
        silent:
          "The run posts only what needs people (waits, reminders, failures); its status comment still shows every step.",
        needs_review: "Every step that changes something waits for an approval first.",
        conversational:
          "Accepted from other systems' playbooks; it changes nothing in this version.",
      }),
    ),
    requires: documented(
      {
        type: "object",
        additionalProperties: false,
        properties: {
          secrets: texts(
            {
              md: "Names of secrets the run needs (never their values): the app counts those its deployment lists in `PLAYBOOK_SECRETS`, a local run the environment's variables.",
              examples: [["NPM_TOKEN"]],
            },
            { type: "string", pattern: "^[A-Z_][A-Z0-9_]*$" },
          ),
          tools: tools({
            md: "Tools the run needs, as `server/tool`; the host must have them configured.",
            yaml: "tools: [k8s/list_resources]",
          }),
        },
      },
      {
        md: "What a run needs from its host, checked before it starts: a missing one stops it with `PB-REQUIREMENT-MISSING`, naming it.",
        yaml: "requires: { secrets: [NPM_TOKEN], tools: [k8s/get_logs] }",
      },
    ),
    on: documented(
      {
        type: "object",
        additionalProperties: false,
        properties: {
          labels: texts({
            md: "Issue labels that start the playbook when added (the label `playbook:<id>` always does).",
            examples: [["dependencies"], ["incident"]],
          }),
          command: refDoc("id", {
            md: "A name for `/run <command>`, besides `/run <id>`.",
            examples: ["bump", "triage"],
          }),
          alerts: refDoc(
            "alert_selector",
            "Which alerts start the playbook, and how well they fit.",
          ),
          issues: refDoc("issue_selector", "Which newly opened issues start the playbook."),
        },
      },
      {
        md: "What starts a run besides `/run <id>` and the label `playbook:<id>`.",
        yaml: "on:\n  labels: [dependencies]\n  command: bump",
      },
    ),
    permissions: documented(
      {
        type: "object",
        additionalProperties: false,
        properties: {
          run: permission(
            "The least role that starts a run: with `/run`, a label, or an issue its selector fits (default triage).",
          ),
          cancel: permission("The least role for `/cancel` (default triage)."),
        },
      },
      {
        md: "Who may start and cancel runs.",
        yaml: "permissions: { run: write, cancel: maintain }",
      },
    ),
    authority: documented(
      {
        type: "object",
        additionalProperties: false,
        properties: {
          default: documented(
            documentedEnum(AUTHORITIES, AUTHORITY_DOCS),
            "The authority of steps that change something and have none of their own (default just-do-it).",
          ),
          ask_first_below: permission(
            "Initiators below this role meet an ask-first approval before every `show-me` step.",
          ),
        },
      },
      {
        md: "Authority defaults for steps that change something.",
        yaml: "authority: { default: show-me, ask_first_below: write }",
      },
    ),
    inputs: documented(
      {
        type: "object",
        propertyNames: ref("id"),
        additionalProperties: ref("input"),
      },
      {
        md: "Typed inputs by name, given as `/run <id> name=value`, by the CLI, or by `from:`.",
        yaml: "inputs:\n  package: { type: string, required: true, pattern: '^[a-z0-9@/._-]+$' }\n  level: { type: enum, values: [patch, minor, major], default: minor }",
      },
    ),
    limits: documented(
      {
        type: "object",
        additionalProperties: false,
        properties: {
          max_steps: documented(
            { type: "integer", minimum: 1, maximum: 10000 },
            "Steps a run may enter (default 500), else `PB-MAX-STEPS`; required when the graph has a cycle.",
          ),
          max_depth: documented(
            { type: "integer", minimum: 1, maximum: 50 },
            "How deep delegated playbooks may nest (default 10), else `PB-MAX-DEPTH`.",
          ),
          timeout: refDoc("duration", {
            md: "How long the whole run may take, else `PB-TIMEOUT`.",
            yaml: "timeout: 7d",
          }),
          max_parallel: documented(
            { type: "integer", minimum: 1, maximum: FOR_EACH_LIMITS.max_parallel.cap },
            `Items of a \`for_each\` step run at once (default ${FOR_EACH_LIMITS.max_parallel.default}).`,
          ),
          max_items: documented(
            { type: "integer", minimum: 1, maximum: FOR_EACH_LIMITS.max_items.cap },
            `Items a \`for_each\` step takes from its list (default ${FOR_EACH_LIMITS.max_items.default}); a longer list fails the step.`,
          ),
          max_tool_calls: documented(
            { type: "integer", minimum: 1, maximum: 1000 },
            "Tool calls the bot may make in one run (default 50); a call beyond it fails with `PB-TOOL-BUDGET`.",
          ),
        },
      },
      { md: "Bounds of a run.", yaml: "limits: { max_steps: 30, timeout: 2d }" },
    ),
    steps: documented(
      {
        type: "array",
        minItems: 1,
        items: ref("listed_step"),
      },
      {
        md: "The steps, in order: each falls through to the next unless it has `next` (or, when a step has `needs`, each starts once its needs are done). A playbook has `steps` or `nodes`, not both.",
        yaml: "steps:\n  - { id: greet, type: comment, body: Hello. }\n  - { id: done, type: end, status: success }",
      },
    ),
    entrypoint: refDoc("id", {
      md: "The first node of a `nodes:` graph.",
      examples: ["pod_state"],
    }),
    nodes: documented(
      {
        type: "object",
        minProperties: 1,
        propertyNames: ref("id"),
        additionalProperties: documented(
          { allOf: [ref("step")], defaultSnippets: stepSnippets({ withId: false }) },
          "A node: a step whose id is its key.",
        ),
      },
      {
        md: "Steps by id, joined by `next` (graph mode, with `entrypoint`): nothing falls through. A playbook has `steps` or `nodes`, not both.",
        yaml: "nodes:\n  start: { type: comment, body: Hello., next: done }\n  done: { type: end }",
      },
    ),
    tests: texts(
      {
        md: "Golden cases run by `playbook-bot test`, with every effect simulated.",
        yaml: "tests:\n  - name: approved\n    events: [{ approve: {} }]\n    expect: { status: completed }",
      },
      ref("test_case"),
    ),
    outputs: documented(
      {
        type: "object",
        propertyNames: ref("id"),
        additionalProperties: { type: "string" },
      },
      {
        md: "The run's outputs, as templates rendered when it ends (a missing value fails it with `PB-OUTPUT-MISSING`); a delegated child returns them to its parent step.",
        yaml: "outputs:\n  pr: '{{ steps.pr.outputs.url }}'",
      },
    ),
  },
  definitions: {
    id: documented(
      { type: "string", pattern: ID_PATTERN },
      {
        md: "An id: letters, digits, `-` and `_`, starting with a letter or a digit, at most 64 characters.",
        examples: ["approve-plan", "pod_state"],
      },
    ),
    tool: documented(
      { type: "string", pattern: TOOL_PATTERN },
      {
        md: "A tool, as `server/tool`: the server's name in the host's tool configuration, and the tool's name.",
        examples: ["k8s/list_resources", "github/search_issues"],
      },
    ),
    duration: documented(
      { type: "string", pattern: DURATION_PATTERN },
      {
        md: "A duration: whole numbers of `s`, `m`, `h` and `d`, one after another.",
        examples: ["30s", "5m", "24h", "7d", "1h30m"],
      },
    ),
    expression: documented(
      { type: "string", minLength: 1 },
      {
        md: "An expression: comparisons (`==`, `!=`, `<`, `<=`, `>`, `>=`) of names (`inputs.x`, `steps.<id>.outputs.<name>`, `findings.<key>`, `issue.number`, …) and literals, joined by `and`, `or`, `not`. It is read, never run as code.",
        examples: ["inputs.level == 'major'", "findings.failing_pods > 0 and not inputs.dry_run"],
      },
    ),
    listed_step: LISTED_STEP,
    step_list: documented(
      {
        type: "array",
        minItems: 1,
        maxItems: MAX_BRANCH_STEPS,
        items: ref("listed_step"),
      },
      `The steps of a branch, run in order (at most ${MAX_BRANCH_STEPS}).`,
    ),
    step: documented(
      {
        type: "object",
        required: ["type"],
        properties: {
          type: documented(
            documentedEnum(
              STEP_KINDS,
              Object.fromEntries(STEP_KINDS.map((k) => [k, STEP_KIND_DOCS[k].md])) as Record<
                StepKind,
                string
              >,
            ),
            "The step kind; it decides which other fields the step takes.",
          ),
        },
        allOf: STEP_KINDS.map((kind) => ({
          if: { type: "object", properties: { type: { const: kind } }, required: ["type"] },
          then: ref(`step_${kind}`),
        })),
      },
      "A step: its `type` chooses the shape of one step kind.",
    ),
    ...COMMON_STEP_FIELD_DEFS,
    input: INPUT,
    on_error_policy: documented(
      { type: "string", pattern: ERROR_POLICY_PATTERN },
      {
        md: "`fail` (default: the run fails, or the branch or item that runs the step), `continue` (go on; the step stays failed), `ignore` (go on; the step counts as ignored), `retry:N` (up to N more attempts, 1 to 99, waiting 2s, 4s, 8s, … at most 10m between them), or `goto:<step>` (go on at that step; the failed step keeps its error).",
        examples: ["retry:3", "continue", "goto:rollback"],
      },
    ),
    on_error: documented(
      {
        if: { type: "string" },
        then: ref("on_error_policy"),
        else: documented(
          {
            type: "object",
            minProperties: 1,
            propertyNames: {
              pattern: "^(default|[A-Z][A-Z0-9]*(-[A-Z0-9]+)+|[A-Z][a-z][A-Za-z0-9]*)$",
            },
            additionalProperties: ref("on_error_policy"),
          },
          "Policies by error code (`GH-RATE-LIMITED`, `PB-TIMEOUT`, …), with `default` for the rest.",
        ),
      },
      {
        md: "What a failure of the step does: one policy, or policies by error code with a `default` (without one, `fail`).",
        yaml: "on_error:\n  GH-RATE-LIMITED: retry:5\n  PB-TIMEOUT: goto:escalate\n  default: fail",
      },
    ),
    next: documented(
      {
        if: { type: "string" },
        then: ref("id"),
        else: documented(
          {
            type: "array",
            minItems: 1,
            items: documented(
              {
                type: "object",
                additionalProperties: false,
                properties: {
                  when: text({
                    md: "An expression (see `if`) the engine evaluates; the first true `when` wins.",
                    examples: ["findings.failing_pods > 0"],
                  }),
                  condition: text({
                    md: "A question in prose that a person answers with `/choose <label>` while an `investigate` or `playbook` step waits.",
                    examples: ["any pods not Ready"],
                  }),
                  label: refDoc(
                    "id",
                    "The name `/choose` takes for this branch (default: its `goto`).",
                  ),
                  goto: refDoc("id", "The step this branch goes to."),
                  default: refDoc(
                    "id",
                    "The step taken when no `when` is true (without one, the run falls through).",
                  ),
                },
              },
              "A branch: `when` or `condition`, and the step it goes to; or the `default`.",
            ),
          },
          "Branches, all of them `when:` expressions or all `condition:` prose, with an optional `{ default: <step> }`.",
        ),
      },
      {
        md: "Where the run goes after the step: a step id, or branches, either `when:` expressions decided by the engine or `condition:` prose chosen by a person (never mixed). Without `next`, the run falls through to the following step.",
        yaml: "next:\n  - { when: findings.failing_pods > 0, goto: pod_logs }\n  - { default: recent_changes }",
      },
    ),
    test_actor: TEST_ACTOR,
    test_event: TEST_EVENT,
    test_case: TEST_CASE,
    alert_selector: documented(
      {
        type: "object",
        additionalProperties: false,
        properties: {
          sources: texts(
            "Alert sources considered (default: all).",
            documentedEnum(ALERT_SOURCES, ALERT_SOURCE_DOCS),
          ),
          match: documented(
            {
              type: "object",
              additionalProperties: { type: "string" },
            },
            {
              md: "Label matchers, all of which must hold: `value`, `!=value`, `=~regex` or `!~regex` (RE2, matching the whole value).",
              yaml: "match: { severity: '=~critical|warning', env: '!=dev' }",
            },
          ),
          context_types: texts({
            md: "Context types this playbook understands: one present among the alert's labels adds 3 to the score.",
            examples: [["service", "trace_id"]],
          }),
          ...SCORING,
          resolve: documented(
            documentedEnum(["comment", "close"], {
              comment: "Comment on the triage issue (default).",
              close: "Comment on the triage issue and close it.",
            }),
            "What happens when the alert resolves.",
          ),
        },
      },
      {
        md: "Which alerts start this playbook: sources and label matchers filter, and the score (context types, signals, priority) ranks; the best at or above its `min_score` wins, and no fit falls back to the bundled `alert-triage`.",
        yaml: "sources: [alertmanager]\nmatch: { severity: '=~critical|warning' }\ncontext_types: [service]\nsignals:\n  positive: [{ pattern: 5xx, weight: 2 }]\nmin_score: 2",
      },
    ),
    issue_selector: documented(
      {
        type: "object",
        additionalProperties: false,
        properties: {
          context_types: texts({
            md: "Context types this playbook understands: one written in the text as `<type>:` or `<type>=` adds 3 to the score.",
            examples: [["request_id"]],
          }),
          ...SCORING,
        },
      },
      {
        md: "Which newly opened issues start this playbook: their title and body are scored like an alert's text; something must match, and the best playbook at or above its `min_score` starts, if the issue's author may run it.",
        yaml: "context_types: [request_id]\nsignals:\n  positive: [{ pattern: checkout fails, weight: 2 }]\nmin_score: 2",
      },
    ),
    ...stepKindDefs(),
  },
} as const;
