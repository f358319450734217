import { documented, documentedEnum, text, texts } from "../../format/schema-docs.js";
import { ref, refDoc, ids, flag } from "../../format/schema-parts.js";
import { stepKindSchema } from "../kind-schema.js";

/** The `investigate` step in the playbook format: what it is, its fields, its snippet. */
export const investigateSchema = stepKindSchema({
  kind: "investigate",
  doc: {
    md: "Work for people or tools: suggested tool calls (made at once with `run: auto`, or on `/call <n>`), findings recorded with `/record key=value`, and prose branches chosen with `/choose`. Outputs: `results`, `chosen`, and the outputs its calls take.",
    yaml: "id: pod_state\ntype: investigate\ndescription: Look at the pods.\nsuggested_calls:\n  - { tool: k8s/list_resources, args: { kind: Pod }, run: auto }\nexpected_findings: [failing_pods]",
  },
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
                md: "Arguments of the call; string values at any depth are templates. A value that is exactly one `{{ name }}` passes that value itself: a list stays a list (a list input too), an object or list kept as JSON text is that object or list, a number or boolean stays one.",
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
            findings: documented(
              {
                type: "array",
                maxItems: 50,
                items: {
                  type: "object",
                  additionalProperties: false,
                  required: ["finding"],
                  properties: {
                    finding: refDoc("id", "The finding the rule records."),
                    when: text(
                      "An expression over `result` (the raw result) and, with `each`, `item`: the finding is recorded when it holds.",
                    ),
                    each: text(
                      "A name in the result (`result.rows`): the rule looks at each item of that list (or each value of that mapping), and the first it fits gives the finding.",
                    ),
                    value: text(
                      "A name (`result.key`, `item.0.status`) whose value the finding takes (default `true`); when it has none, nothing is recorded.",
                    ),
                  },
                },
              },
              {
                md: "Findings read from the call's raw result, each by a rule; the first rule for a finding that fits wins, and these findings win over what the result reports itself.",
                yaml: "findings:\n  - { finding: cache_key_exists, when: result.exists }\n  - { finding: db_row_missing, each: result.rows, when: not item }\n  - { finding: cache_status, value: result.value_preview.status }",
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
  snippet: {
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
    order: 3,
  },
});
