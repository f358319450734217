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
import { docKeywords, documented, documentedEnum, text, texts, type Json } from "./schema-docs.js";
import { flag, permission, ref, refDoc, tools, typeChoice } from "./schema-parts.js";
import { playbookSnippets, stepSnippets } from "./schema-snippets.js";
import { STEP_KIND_SCHEMAS, stepKindSchemaOf, type StepKindName } from "../steps/schemas.js";

export { PERMISSIONS } from "./schema-parts.js";

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

/** The step kinds, each the name of a folder under src/core/steps (its schema fragment is there). */
export const STEP_KINDS: readonly StepKind[] = STEP_KIND_SCHEMAS.map((s) => s.kind);

export const AUTHORITIES = ["just-do-it", "show-me", "ask-first"] as const;
export const INPUT_TYPES = ["string", "number", "boolean", "enum", "list", "object"] as const;
export const TRANSFORMS = ["kebab-case", "snake-case", "camel-case"] as const;

/** `for_each`: items run at once (default, hard cap) and items taken from the list (default, hard cap). */
export const FOR_EACH_LIMITS = {
  max_parallel: { default: 4, cap: 20 },
  max_items: { default: 20, cap: 100 },
} as const;
/** Steps of one branch of a `parallel` step. */
export const MAX_BRANCH_STEPS = 50;

export const ALERT_SOURCES = ["github", "alertmanager", "grafana", "generic"] as const;

type StepKind = StepKindName;

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

function stepKindDefs(): Record<string, Json> {
  const defs: Record<string, Json> = {};
  for (const { kind, fields, required, doc } of STEP_KIND_SCHEMAS) {
    defs[`step_${kind}`] = documented(
      {
        type: "object",
        additionalProperties: false,
        properties: {
          ...COMMON_STEP_FIELDS,
          type: documented({ const: kind }, `The step kind: \`${kind}\`.`),
          ...fields,
        },
        ...(required ? { required: [...required] } : {}),
      },
      doc,
    );
  }
  return defs;
}

/** The kind-specific fields of a step kind: used for "did you mean" on unknown fields. */
export function stepFieldNames(kind: string): string[] {
  const fields = stepKindSchemaOf(kind)?.fields ?? {};
  return [...Object.keys(COMMON_STEP_FIELDS), ...Object.keys(fields)];
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
              Object.fromEntries(STEP_KIND_SCHEMAS.map((s) => [s.kind, s.doc.md])) as Record<
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
