/**
 * `defaultSnippets` of the playbook schema (VS Code's JSON language service and the YAML language
 * server offer them as completions): a whole new playbook, and a step of each kind. Placeholders
 * are `${n:default}` or `${n|first,second|}`, always with a value, so that a snippet taken as it
 * comes is a valid playbook or step (a test fills them in and validates the result).
 */
import type { Json } from "./schema-docs.js";

interface StepSnippet {
  label: string;
  description: string;
  /** The id placeholder's default (placeholder 1). */
  id: string;
  /** The step without its id; placeholders from 2. */
  body: Json;
}

const STEP_SNIPPETS: readonly StepSnippet[] = [
  {
    label: "comment step",
    description: "Post a comment on the run's issue.",
    id: "tell",
    body: { type: "comment", name: "${2:Tell the thread}", body: "${3:Text in Markdown}" },
  },
  {
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
  },
  {
    label: "investigate step",
    description: "Tool calls to make and findings to record.",
    id: "look",
    body: {
      type: "investigate",
      name: "${2:Look at the symptoms}",
      description: "${3:What to look at, and what to record.}",
      suggested_calls: [{ tool: "${4:server/tool}", purpose: "${5:Why the call helps}" }],
      expected_findings: ["${6:finding}"],
    },
  },
  {
    label: "decide step",
    description: "Conclude from findings with rules.",
    id: "conclude",
    body: {
      type: "decide",
      name: "${2:Conclude}",
      rules: [{ id: "${3:rule}", all: ["${4:finding}"], conclusion: "${5:cause_found}" }],
      fallback: { conclusion: "${6:inconclusive}" },
    },
  },
  {
    label: "branch step",
    description: "Create a branch.",
    id: "branch",
    body: {
      type: "branch",
      description: "${2:The branch the changes go on.}",
      name: "${3:playbook/change}",
    },
  },
  {
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
  },
  {
    label: "pull_request step",
    description: "Open a pull request.",
    id: "pr",
    body: {
      type: "pull_request",
      name: "${2:Open the pull request}",
      head: "${3:playbook/change}",
      title: "${4:Title}",
      body: "${5:What changes, and why}",
      closes_issue: true,
    },
  },
  {
    label: "issue step",
    description: "Open an issue.",
    id: "follow-up",
    body: {
      type: "issue",
      name: "${2:Open a follow-up}",
      title: "${3:Title}",
      body: "${4:What is left to do}",
    },
  },
  {
    label: "label step",
    description: "Add labels to the run's issue.",
    id: "label",
    body: { type: "label", name: "${2:Mark the issue}", add: ["${3:triaged}"] },
  },
  {
    label: "close step",
    description: "Close the run's issue.",
    id: "close",
    body: {
      type: "close",
      name: "${2:Close the issue}",
      reason: "${3|completed,not_planned|}",
      comment: "${4:Why it is closed}",
    },
  },
  {
    label: "dispatch step",
    description: "Start a workflow and wait for it.",
    id: "dispatch",
    body: {
      type: "dispatch",
      name: "${2:Run the workflow}",
      workflow: "${3:deploy.yml}",
      ref: "${4:main}",
    },
  },
  {
    label: "ai step",
    description: "Ask the AI adapter.",
    id: "ask",
    body: {
      type: "ai",
      name: "${2:Ask the model}",
      prompt: "${3:What the model should do}",
      scope: "read-only",
    },
  },
  {
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
  },
  {
    label: "playbook step",
    description: "Run another playbook.",
    id: "child",
    body: {
      type: "playbook",
      name: "${2:Run the other playbook}",
      playbook: "${3:other-playbook}",
      mode: "${4|delegate,handoff|}",
    },
  },
  {
    label: "script step",
    description: "Run a script where scripts are allowed.",
    id: "script",
    body: {
      type: "script",
      name: "${2:Run the check}",
      shell: "${3|bash,sh,powershell,node|}",
      run: "${4:./scripts/check.sh}",
      env: { TARGET: "${5:main}" },
    },
  },
  {
    label: "end step",
    description: "End the run.",
    id: "done",
    body: {
      type: "end",
      name: "${2:Done}",
      status: "${3|success,failure,neutral|}",
      conclusion: "${4:done}",
    },
  },
];

/** A step of each kind: with its id (a list's step), or without (a node, whose key is its id). */
export function stepSnippets({ withId }: { withId: boolean }): Json[] {
  return STEP_SNIPPETS.map((s) => ({
    label: s.label,
    description: s.description,
    body: withId ? { id: `\${1:${s.id}}`, ...s.body } : { ...s.body },
  }));
}

/** A whole new playbook: a list of steps, or a graph of nodes. */
export function playbookSnippets(): Json[] {
  return [
    {
      label: "new playbook (steps)",
      description: "A playbook whose steps run in order, with a golden case.",
      body: {
        apiVersion: "playbook-bot/v1",
        id: "${1:my-playbook}",
        name: "${2:What the playbook does}",
        description: "${3:Why and when to run it.}",
        on: { command: "${4:my-command}" },
        steps: [
          { id: "${5:start}", type: "comment", name: "${6:Say hello}", body: "${7:Starting.}" },
          {
            id: "${8:done}",
            type: "end",
            name: "${9:Done}",
            status: "success",
            conclusion: "${10:done}",
          },
        ],
        tests: [{ name: "${11:runs to the end}", expect: { status: "completed" } }],
      },
    },
    {
      label: "new playbook (nodes)",
      description: "A decision graph: look, conclude, report.",
      body: {
        apiVersion: "playbook-bot/v1",
        id: "${1:my-triage}",
        name: "${2:Triage something}",
        description: "${3:Why and when to run it.}",
        on: { labels: ["${4:incident}"] },
        entrypoint: "look",
        nodes: {
          look: {
            type: "investigate",
            description: "${5:What to look at, and what to record.}",
            expected_findings: ["${6:symptom}"],
            next: "conclude",
          },
          conclude: {
            type: "decide",
            description: "Conclude from the findings.",
            rules: [{ id: "found", all: ["${6:symptom}"], conclusion: "${7:cause_found}" }],
            fallback: { conclusion: "inconclusive" },
            next: "report",
          },
          report: {
            type: "end",
            description: "Report the conclusion.",
            advice: "Concluded: {{ steps.conclude.outputs.conclusion }}",
          },
        },
      },
    },
  ];
}
