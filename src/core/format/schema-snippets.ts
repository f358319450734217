/**
 * `defaultSnippets` of the playbook schema (VS Code's JSON language service and the YAML language
 * server offer them as completions): a whole new playbook, and a step of each kind. Placeholders
 * are `${n:default}` or `${n|first,second|}`, always with a value, so that a snippet taken as it
 * comes is a valid playbook or step (a test fills them in and validates the result).
 */
import type { Json } from "./schema-docs.js";
import { STEP_KIND_SCHEMAS } from "../steps/schemas.js";

/** The kinds' snippets, in the order editors list them. */
const STEP_SNIPPETS = STEP_KIND_SCHEMAS.map((s) => s.snippet).sort((a, b) => a.order - b.order);

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
