/**
 * The playbook format v1 as JSON Schema (draft 2020-12). This object is the single source: the
 * validator compiles it, `playbook-bot schema` prints it, and `schema/playbook.v1.schema.json`
 * is written from it for editors (a test keeps the two identical).
 *
 * Steps are discriminated on `type` with if/then, so a wrong step yields the errors of its own
 * kind only, never the noise of every alternative.
 */
export const API_VERSION = "playbook-bot/v1";
export const SCHEMA_ID = "https://playbook-bot.dev/schema/playbook.v1.schema.json";
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

type Json = Record<string, unknown>;

const str = (description: string): Json => ({ type: "string", description });
const list = (items: Json, description: string): Json => ({ type: "array", items, description });
const strings = (description: string): Json => list({ type: "string" }, description);
const ids = (description: string): Json => list({ $ref: "#/$defs/id" }, description);

/** Fields every step may carry. */
const COMMON_STEP_FIELDS: Record<string, Json> = {
  id: { $ref: "#/$defs/id", description: "Unique step id; `goto` targets and templates use it." },
  type: { type: "string", description: "The step kind." },
  name: str("Short title shown in the status checklist."),
  description: str("What this step does; the instructions shown while it is current."),
  if: {
    $ref: "#/$defs/expression",
    description: "Run the step only when this expression is true; otherwise continue past it.",
  },
  next: { $ref: "#/$defs/next" },
  on_error: { $ref: "#/$defs/on_error" },
  authority: {
    enum: [...AUTHORITIES],
    description: "just-do-it runs; show-me runs and reports; ask-first waits for approval first.",
  },
  timeout: { $ref: "#/$defs/duration", description: "How long the step may take or wait." },
  idempotency_key: str(
    "Template for the key that finds this step's effect instead of repeating it.",
  ),
  needs: {
    type: "array",
    items: { $ref: "#/$defs/id" },
    maxItems: 50,
    description:
      "Steps of the same list that must be completed or skipped before this one starts; a list in which any step has needs: runs as a graph, each step as soon as its needs are met.",
  },
  for_each: str(
    "Template naming a list (a list input, a finding, an output list): the step runs once per item, several at once (limits.max_parallel), with {{ item }} and {{ item_index }}; its outputs are lists.",
  ),
  input_schema: {
    type: "object",
    description:
      "JSON Schema (draft 2020-12) of the data that enters the step (its rendered fields); a mismatch fails the step with PB-CONTRACT-INPUT.",
  },
  output_schema: {
    type: "object",
    description:
      "JSON Schema (draft 2020-12) of the step's outputs and findings; a mismatch fails the step with PB-CONTRACT-OUTPUT.",
  },
};

/** Fields of each step kind, beyond the common ones, and which of them are required. */
const STEP_FIELDS: Record<
  (typeof STEP_KINDS)[number],
  { fields: Record<string, Json>; required?: string[] }
> = {
  comment: {
    fields: {
      body: str("Markdown comment posted on the issue (templates allowed)."),
      issue: str("Issue or pull request number to comment on (default: the run's issue)."),
      reply_to: str(
        "A pull request review comment's id: the comment answers it in its thread (needs `issue`: the pull request).",
      ),
    },
    required: ["body"],
  },
  end: {
    fields: {
      advice: str("Closing advice for the people on the issue."),
      conclusion: str("Short machine-readable conclusion."),
      status: { enum: ["success", "failure", "neutral"], description: "Run status at this end." },
      handoff: ids("Playbooks offered or started when the run ends here."),
    },
  },
  checkpoint: {
    fields: {
      message: str("What is asked of the approvers."),
      approvers: {
        type: "object",
        additionalProperties: false,
        properties: {
          permission: {
            enum: [...PERMISSIONS],
            description: "Least repository role that may approve.",
          },
          users: strings("Users who may approve."),
          teams: strings("Teams (org/team-slug or team-slug) whose members may approve."),
          count: {
            type: "integer",
            minimum: 1,
            maximum: 10,
            description: "Distinct approvals needed.",
          },
          allow_initiator: {
            type: "boolean",
            description: "Whether the person who started the run may approve (default false).",
          },
        },
      },
      response_schema: {
        type: "object",
        description: "JSON Schema for values carried by /approve k=v (an object schema).",
      },
      on_reject: {
        $ref: "#/$defs/id",
        description: "Step to go to on /reject (default: fail the run).",
      },
      reminder: { $ref: "#/$defs/duration", description: "Remind the approvers after this long." },
      on_timeout: str("`fail`, `cancel`, or the id of the step to go to when the timeout passes."),
    },
    required: ["message"],
  },
  investigate: {
    fields: {
      suggested_calls: list(
        {
          type: "object",
          additionalProperties: false,
          required: ["tool"],
          properties: {
            tool: { $ref: "#/$defs/tool" },
            args: { type: "object", description: "Arguments for the call." },
            purpose: str("Why the call is made, shown with it."),
            required: {
              type: "boolean",
              description:
                "A failed call is recorded as a step_error finding (the run goes on either way).",
            },
            outputs: {
              type: "object",
              propertyNames: { $ref: "#/$defs/id" },
              additionalProperties: { type: "string" },
              description:
                "Outputs of the step taken from the call's result: name → dotted path in the result (`items.0.title`; empty for the whole result), read as steps.<id>.outputs.<name>.",
            },
            run: {
              enum: ["suggest", "auto"],
              description:
                "`suggest` (default): offered to people, run on /call <n> when its server is configured; `auto`: the bot runs it when the step starts.",
            },
          },
        },
        "Concrete tool calls to make, as server/tool.",
      ),
      expected_findings: ids("Finding keys recorded with /record key=value."),
    },
  },
  decide: {
    fields: {
      rules: list(
        {
          type: "object",
          additionalProperties: false,
          required: ["id", "conclusion"],
          properties: {
            id: { $ref: "#/$defs/id" },
            all: ids("Findings that must all be present."),
            any: ids("Findings of which at least one must be present."),
            none: ids("Findings that must all be absent."),
            ...conclusionFields(),
          },
        },
        "Rules in order; the first that matches wins.",
      ),
      fallback: {
        type: "object",
        additionalProperties: false,
        required: ["conclusion"],
        properties: conclusionFields(),
        description: "Conclusion when no rule matches.",
      },
      confirmed_facts: list(
        {
          type: "object",
          additionalProperties: false,
          required: ["text"],
          properties: { finding: { $ref: "#/$defs/id" }, text: { type: "string" } },
        },
        "Sentences reported for each finding that was present (always, for one without a finding).",
      ),
      require_evidence: {
        type: "boolean",
        description:
          "A conclusion must rest on findings: every rule names findings under all or any, and the conclusion lists the findings it used.",
      },
    },
    required: ["rules"],
  },
  branch: {
    fields: {
      name: str("Branch name (templates allowed); checked as a safe git ref."),
      from: str("Base ref (default: the repository's default branch)."),
      require_new: {
        type: "boolean",
        description: "Fail if the branch already exists (the older spelling of `if_exists: fail`).",
      },
      if_exists: {
        enum: ["reuse", "fail", "new-name"],
        description:
          "When the branch exists. `reuse` (default): only if every commit on it beyond the base was made by this run (a retry), otherwise the step fails with GH-CONFLICT; `fail`: always fail; `new-name`: use the first of <name>-2, <name>-3, … (up to -10) that is free or left by this run. `outputs.name` is the name used.",
      },
    },
    required: ["name"],
  },
  commit: {
    fields: {
      branch: str("Branch to commit to."),
      message: str("Commit message."),
      files: list(
        {
          type: "object",
          additionalProperties: false,
          required: ["path"],
          properties: {
            path: str("Repository-relative path to write."),
            content: str("File content (templates allowed)."),
            template: str("Template file, relative to the playbook file."),
          },
        },
        "Files written in one atomic commit.",
      ),
      paths: strings("Locally: globs of working-tree files to commit."),
      push: { type: "boolean", description: "Locally: push after committing (default true)." },
      pull: { type: "boolean", description: "Locally: pull before committing (default true)." },
    },
    required: ["branch", "message"],
  },
  pull_request: {
    fields: {
      head: str("Branch with the changes."),
      base: str("Branch to merge into (default: the default branch)."),
      title: str("Pull request title."),
      body: str("Pull request body."),
      draft: { type: "boolean" },
      labels: strings("Labels to add."),
      reviewers: strings("Users asked to review."),
      team_reviewers: strings("Teams asked to review."),
      wait: { enum: ["merged"], description: "Wait until the pull request is merged." },
      closes_issue: {
        type: "boolean",
        description:
          "End the body with `Closes #<n>` for the run's issue, when the run has one (GitHub closes it on the merge).",
      },
    },
    required: ["head", "title"],
  },
  issue: {
    fields: {
      title: str("Issue title."),
      body: str("Issue body."),
      labels: strings("Labels to add."),
      assignees: strings("Users to assign."),
    },
    required: ["title"],
  },
  label: {
    fields: {
      add: strings("Labels to add to the issue."),
      remove: strings("Labels to remove from the issue."),
      issue: str("Issue or pull request number (default: the run's issue)."),
    },
  },
  close: {
    fields: {
      reason: { enum: ["completed", "not_planned"] },
      comment: str("Comment posted before closing."),
      issue: str("Issue or pull request number (default: the run's issue)."),
    },
  },
  dispatch: {
    fields: {
      workflow: str("Workflow file name (e.g. deploy.yml) or id."),
      ref: str("Git ref to run on (default: the default branch)."),
      inputs: {
        type: "object",
        additionalProperties: { type: ["string", "number", "boolean"] },
        description: "workflow_dispatch inputs.",
      },
      wait: {
        type: "boolean",
        description: "Wait for the workflow run's conclusion (default true).",
      },
      correlation_input: {
        $ref: "#/$defs/id",
        description:
          "Workflow input the bot sets to this dispatch's key; put it in the workflow's run-name so the bot knows its run where GitHub returns no run id.",
      },
    },
    required: ["workflow"],
  },
  ai: {
    fields: {
      prompt: str("Prompt text (templates allowed)."),
      prompt_file: str("Markdown prompt file, relative to the playbook file."),
      tools: list({ $ref: "#/$defs/tool" }, "Tools offered to the model, as server/tool."),
      scope: {
        enum: ["read-only", "write"],
        description: "Tool scope; write needs an approving checkpoint before the step.",
      },
      expected_findings: ids("Finding keys the model is asked to report."),
      expect_files: strings("Files that must exist after the step."),
      cache: {
        type: "boolean",
        description:
          "Reuse the result of an earlier run of this step with the same prompt and inputs (for idempotent steps only).",
      },
      verify: {
        $ref: "#/$defs/id",
        description:
          "Name of a check registered in the bot's code that must pass on the step's result (never code from the playbook).",
      },
    },
  },
  parallel: {
    fields: {
      branches: {
        type: "object",
        minProperties: 1,
        maxProperties: MAX_BRANCHES,
        propertyNames: { $ref: "#/$defs/id" },
        additionalProperties: { $ref: "#/$defs/step_list" },
        description:
          "Branches by name, each a list of steps run in order; all branches start together.",
      },
      join: {
        description:
          "When the step is done: `all` branches completed (default), `any` one, or `{ count: N }` of them; the rest are cancelled.",
        if: { type: "string" },
        then: { enum: [...JOINS] },
        else: {
          type: "object",
          additionalProperties: false,
          required: ["count"],
          properties: { count: { type: "integer", minimum: 1, maximum: MAX_BRANCHES } },
        },
      },
      on_branch_failure: {
        enum: [...BRANCH_FAILURE_POLICIES],
        description:
          "A failed branch: `fail` (default) fails the step with the branch's error and cancels the others; `continue` waits for the join and reports it; `cancel` cancels the others and fails with PB-BRANCH-FAILED.",
      },
    },
    required: ["branches"],
  },
  playbook: {
    fields: {
      playbook: { $ref: "#/$defs/id", description: "Id of the playbook to run." },
      mode: {
        enum: ["delegate", "handoff"],
        description: "delegate runs it and resumes here; handoff ends this run and starts it.",
      },
      with: {
        type: "object",
        additionalProperties: { type: ["string", "number", "boolean"] },
        description: "Inputs of the child playbook, mapped explicitly.",
      },
    },
    required: ["playbook", "mode"],
  },
  script: {
    fields: {
      shell: { enum: [...SCRIPT_SHELLS], description: "Interpreter that runs the script." },
      run: str("The script text. Never templated: values reach it as environment variables."),
      env: {
        type: "object",
        propertyNames: { pattern: "^[A-Z_][A-Z0-9_]*$" },
        additionalProperties: { type: ["string", "number", "boolean"] },
        description: "Environment variables (templates allowed): how values reach the script.",
      },
    },
    required: ["shell", "run"],
  },
};

function conclusionFields(): Record<string, Json> {
  return {
    conclusion: str("Machine-readable conclusion."),
    confidence: { type: "number", minimum: 0, maximum: 1 },
    root_cause: str("Root cause, in prose."),
    alternatives: strings("Alternative hypotheses."),
    next_actions: strings("Recommended next actions."),
    goto: { $ref: "#/$defs/id", description: "Step to continue with." },
  };
}

function stepKindDefs(): Record<string, Json> {
  const defs: Record<string, Json> = {};
  for (const kind of STEP_KINDS) {
    const spec = STEP_FIELDS[kind];
    defs[`step_${kind}`] = {
      type: "object",
      additionalProperties: false,
      properties: { ...COMMON_STEP_FIELDS, type: { const: kind }, ...spec.fields },
      ...(spec.required ? { required: spec.required } : {}),
    };
  }
  return defs;
}

/** The kind-specific fields of a step kind: used for "did you mean" on unknown fields. */
export function stepFieldNames(kind: string): string[] {
  const spec = (STEP_FIELDS as Record<string, { fields: Record<string, Json> } | undefined>)[kind];
  return [...Object.keys(COMMON_STEP_FIELDS), ...Object.keys(spec?.fields ?? {})];
}

const signal: Json = {
  type: "object",
  additionalProperties: false,
  required: ["pattern", "weight"],
  properties: {
    pattern: str(
      "Text to look for (case-insensitive), or a regular expression when regex is true.",
    ),
    weight: { type: "number" },
    regex: { type: "boolean", description: "Treat pattern as a regular expression (RE2 syntax)." },
  },
};

/** How alert and issue selectors score a playbook: weighted signals, a tie-breaker, a threshold. */
const SCORING: Json = {
  signals: {
    type: "object",
    additionalProperties: false,
    properties: {
      positive: list(signal, "Signals that raise the score."),
      negative: list(signal, "Signals that lower the score."),
    },
  },
  priority: { type: "number", description: "Tie-breaker; higher wins." },
  min_score: { type: "number", description: "Least score for this playbook to be chosen." },
};

export const PLAYBOOK_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: SCHEMA_ID,
  title: "Playbook Bot playbook (v1)",
  description: "A repeatable procedure run from GitHub issues, step by step.",
  type: "object",
  additionalProperties: false,
  required: ["apiVersion", "id"],
  properties: {
    apiVersion: { const: API_VERSION, description: "Format version." },
    id: { $ref: "#/$defs/id", description: "Playbook id, used by labels and /run." },
    name: str("Human-readable name."),
    description: str("What the playbook is for."),
    owner: str("Owning role or team."),
    reviewers: {
      type: "object",
      additionalProperties: false,
      properties: {
        required: strings("Roles or people that must review changes."),
        optional: strings("Roles or people that may review changes."),
      },
    },
    active: {
      type: "boolean",
      description: "false disables this id (also one from a lower tier).",
    },
    tags: {
      type: "object",
      additionalProperties: false,
      properties: {
        services: strings("Services this playbook is about."),
        errors: strings("Error signatures it handles."),
        symptoms: strings("Symptoms it investigates."),
      },
    },
    kind: {
      enum: ["user_workflow", "system_tool"],
      description: "Produces things for people, or serves the system.",
    },
    interaction_mode: list(
      { enum: ["silent", "needs_review", "conversational"] },
      "How the playbook talks to people.",
    ),
    requires: {
      type: "object",
      additionalProperties: false,
      description: "What a run needs from its environment.",
      properties: {
        secrets: list(
          { type: "string", pattern: "^[A-Z_][A-Z0-9_]*$" },
          "Secret names (never values).",
        ),
        tools: list({ $ref: "#/$defs/tool" }, "Tools, as server/tool."),
      },
    },
    on: {
      type: "object",
      additionalProperties: false,
      description: "What starts a run.",
      properties: {
        labels: strings("Issue labels that start the playbook (playbook:<id> always does)."),
        command: { $ref: "#/$defs/id", description: "Name for /run <command>." },
        alerts: { $ref: "#/$defs/alert_selector" },
        issues: { $ref: "#/$defs/issue_selector" },
      },
    },
    permissions: {
      type: "object",
      additionalProperties: false,
      description: "Who may start and cancel runs.",
      properties: {
        run: {
          enum: [...PERMISSIONS],
          description: "Least role for /run and labels (default triage).",
        },
        cancel: { enum: [...PERMISSIONS], description: "Least role for /cancel (default triage)." },
      },
    },
    authority: {
      type: "object",
      additionalProperties: false,
      description: "Authority defaults for side-effecting steps.",
      properties: {
        default: { enum: [...AUTHORITIES] },
        ask_first_below: {
          enum: [...PERMISSIONS],
          description: "Initiators below this role meet an approval before every show-me step.",
        },
      },
    },
    inputs: {
      type: "object",
      description: "Typed inputs, by name.",
      propertyNames: { $ref: "#/$defs/id" },
      additionalProperties: { $ref: "#/$defs/input" },
    },
    limits: {
      type: "object",
      additionalProperties: false,
      properties: {
        max_steps: { type: "integer", minimum: 1, maximum: 10000 },
        max_depth: { type: "integer", minimum: 1, maximum: 50 },
        timeout: { $ref: "#/$defs/duration" },
        max_parallel: {
          type: "integer",
          minimum: 1,
          maximum: FOR_EACH_LIMITS.max_parallel.cap,
          description: `Items of a for_each step run at once (default ${FOR_EACH_LIMITS.max_parallel.default}).`,
        },
        max_items: {
          type: "integer",
          minimum: 1,
          maximum: FOR_EACH_LIMITS.max_items.cap,
          description: `Items a for_each step takes from its list (default ${FOR_EACH_LIMITS.max_items.default}); a longer list fails the step.`,
        },
        max_tool_calls: {
          type: "integer",
          minimum: 1,
          maximum: 1000,
          description:
            "Tool calls the bot may make in one run; a call beyond it fails with PB-TOOL-BUDGET.",
        },
      },
    },
    steps: {
      type: "array",
      minItems: 1,
      description:
        "Steps in order; each falls through to the next unless it has next (or, when a step has needs:, each starts once its needs are met).",
      items: {
        type: "object",
        $ref: "#/$defs/step",
        properties: { id: { $ref: "#/$defs/id" } },
        required: ["id"],
      },
    },
    entrypoint: { $ref: "#/$defs/id", description: "First node of a nodes: graph." },
    nodes: {
      type: "object",
      minProperties: 1,
      description: "Steps by id, joined by next branches (graph mode).",
      propertyNames: { $ref: "#/$defs/id" },
      additionalProperties: { $ref: "#/$defs/step" },
    },
    tests: {
      type: "array",
      description:
        "Golden cases run by `playbook-bot test`: inputs and events, and the expected path and result.",
      items: { $ref: "#/$defs/test_case" },
    },
    outputs: {
      type: "object",
      description: "Run outputs, as templates.",
      propertyNames: { $ref: "#/$defs/id" },
      additionalProperties: { type: "string" },
    },
  },
  $defs: {
    id: { type: "string", pattern: ID_PATTERN },
    step_list: {
      type: "array",
      minItems: 1,
      maxItems: MAX_BRANCH_STEPS,
      items: {
        type: "object",
        $ref: "#/$defs/step",
        properties: { id: { $ref: "#/$defs/id" } },
        required: ["id"],
      },
    },
    tool: { type: "string", pattern: TOOL_PATTERN },
    duration: { type: "string", pattern: DURATION_PATTERN },
    expression: { type: "string", minLength: 1 },
    input: {
      type: "object",
      additionalProperties: false,
      required: ["type"],
      properties: {
        type: { enum: [...INPUT_TYPES] },
        description: { type: "string" },
        required: { type: "boolean" },
        default: { type: ["string", "number", "boolean", "object", "array"] },
        pattern: str("Regular expression (RE2 syntax) a string must match."),
        min: { type: "number", description: "Least value (numbers) or length (strings)." },
        max: { type: "number", description: "Greatest value (numbers) or length (strings)." },
        values: {
          type: "array",
          minItems: 1,
          items: { type: "string" },
          description: "Enum values.",
        },
        transform: { enum: [...TRANSFORMS] },
        from: str(
          "Where the value comes from: labels.<name>, annotations.<name>, issue.form.<heading>.",
        ),
      },
    },
    on_error_policy: {
      type: "string",
      pattern: ERROR_POLICY_PATTERN,
      description: "fail, continue, ignore, retry:N or goto:<step> (go on at that step).",
    },
    on_error: {
      description: "A policy, or policies keyed by error code with a default.",
      if: { type: "string" },
      then: { $ref: "#/$defs/on_error_policy" },
      else: {
        type: "object",
        minProperties: 1,
        propertyNames: {
          pattern: "^(default|[A-Z][A-Z0-9]*(-[A-Z0-9]+)+|[A-Z][a-z][A-Za-z0-9]*)$",
        },
        additionalProperties: { $ref: "#/$defs/on_error_policy" },
      },
    },
    next: {
      description: "A step id, or branches: `when:` expressions or `condition:` prose (not mixed).",
      if: { type: "string" },
      then: { $ref: "#/$defs/id" },
      else: {
        type: "array",
        minItems: 1,
        items: {
          type: "object",
          additionalProperties: false,
          properties: {
            when: { type: "string", description: "Expression evaluated by the engine." },
            condition: { type: "string", description: "Prose answered with /choose <label>." },
            label: { $ref: "#/$defs/id", description: "Name for /choose (default: the goto)." },
            goto: { $ref: "#/$defs/id" },
            default: { $ref: "#/$defs/id", description: "Step taken when no branch applies." },
          },
        },
      },
    },
    test_actor: {
      type: "object",
      additionalProperties: false,
      properties: {
        by: str("Login of the person (default: a test user with the permission)."),
        permission: { enum: [...PERMISSIONS] },
        teams: strings("Teams the person belongs to."),
        step: { $ref: "#/$defs/id", description: "/approve: the step named." },
        values: { type: "object", additionalProperties: { type: ["string", "number", "boolean"] } },
        reason: str("/reject: the reason."),
        findings: {
          type: "object",
          additionalProperties: { type: ["string", "number", "boolean"] },
        },
        branch: { $ref: "#/$defs/id", description: "/choose: the branch label." },
      },
    },
    test_event: {
      type: "object",
      minProperties: 1,
      maxProperties: 1,
      additionalProperties: false,
      description: "One event: a command, an outside event, a failing effect or time passing.",
      properties: {
        approve: { $ref: "#/$defs/test_actor" },
        reject: { $ref: "#/$defs/test_actor" },
        record: { $ref: "#/$defs/test_actor" },
        choose: { $ref: "#/$defs/test_actor" },
        retry: { $ref: "#/$defs/test_actor" },
        cancel: { $ref: "#/$defs/test_actor" },
        merge: { type: "boolean", description: "The awaited pull request is merged." },
        close_pr: { type: "boolean", description: "The awaited pull request is closed unmerged." },
        workflow: {
          enum: ["success", "failure", "cancelled"],
          description: "The awaited workflow run ends.",
        },
        fail_effect: {
          type: "object",
          additionalProperties: false,
          required: ["step", "code"],
          properties: {
            step: { $ref: "#/$defs/id" },
            code: { type: "string" },
            times: { type: "integer", minimum: 1 },
          },
          description: "The next effect(s) of this step fail with this error code.",
        },
        wait: {
          $ref: "#/$defs/duration",
          description: "Time passes (timeouts and reminders fire).",
        },
      },
    },
    test_case: {
      type: "object",
      additionalProperties: false,
      required: ["name", "expect"],
      properties: {
        name: str("What the case shows."),
        inputs: { type: "object", additionalProperties: { type: ["string", "number", "boolean"] } },
        initiator: { $ref: "#/$defs/test_actor" },
        alert: {
          type: "object",
          additionalProperties: false,
          description:
            "The alert that starts the run: its fields are {{ alert.* }}, its labels feed inputs with from: labels.<name>.",
          properties: {
            title: { type: "string" },
            summary: { type: "string" },
            severity: { type: "string" },
            status: { enum: ["firing", "resolved"] },
            source: { enum: [...ALERT_SOURCES] },
            labels: { type: "object", additionalProperties: { type: "string" } },
            annotations: { type: "object", additionalProperties: { type: "string" } },
          },
        },
        events: { type: "array", items: { $ref: "#/$defs/test_event" } },
        expect: {
          type: "object",
          additionalProperties: false,
          properties: {
            path: list(
              { type: "string" },
              "Steps entered, in order (a delegated child's as <playbook>/<step>).",
            ),
            status: { enum: ["completed", "failed", "cancelled", "waiting", "running"] },
            conclusion: str("The last decide conclusion, or the end's conclusion."),
            error: str("The error code the run failed with."),
            outputs: {
              type: "object",
              additionalProperties: { type: ["string", "number", "boolean"] },
            },
          },
        },
      },
    },
    alert_selector: {
      type: "object",
      additionalProperties: false,
      description: "Which alerts start this playbook, and how well they fit.",
      properties: {
        sources: list({ enum: [...ALERT_SOURCES] }, "Alert sources considered."),
        match: {
          type: "object",
          additionalProperties: { type: "string" },
          description: "Label matchers: value, !=value, =~regex or !~regex.",
        },
        context_types: strings("Context types (e.g. service, trace_id) this playbook understands."),
        ...SCORING,
        resolve: {
          enum: ["comment", "close"],
          description:
            "When the alert resolves: comment on the triage issue (default), or comment and close it.",
        },
      },
    },
    issue_selector: {
      type: "object",
      additionalProperties: false,
      description:
        "Which newly opened issues start this playbook: their title and body are scored like an alert's text; the best playbook above its min_score starts.",
      properties: {
        context_types: strings("Context types (e.g. request_id) this playbook understands."),
        ...SCORING,
      },
    },
    step: {
      type: "object",
      required: ["type"],
      properties: { type: { enum: [...STEP_KINDS] } },
      allOf: STEP_KINDS.map((kind) => ({
        if: { type: "object", properties: { type: { const: kind } }, required: ["type"] },
        then: { $ref: `#/$defs/step_${kind}` },
      })),
    },
    ...stepKindDefs(),
  },
} as const;
