import { documented, text, texts, type Json } from "../../format/schema-docs.js";
import { refDoc, ids, flag } from "../../format/schema-parts.js";
import { stepKindSchema, type StepExit } from "../kind-schema.js";

/** The `decide` step in the playbook format: what it is, its fields, its snippet. */
export const decideSchema = stepKindSchema({
  kind: "decide",
  doc: {
    md: "Concludes from the findings with rules in order, the first that matches winning, else `fallback`. Outputs: `conclusion`, `confidence`, `root_cause`, `rule`, `alternatives`, `next_actions`, `facts`, `evidence`.",
    yaml: "id: classify\ntype: decide\nrules:\n  - { id: oom, all: [oom_killed], conclusion: memory_limit_too_low, goto: report }\nfallback: { conclusion: inconclusive }",
  },
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
    derive: texts(
      {
        md: "Findings the step records itself before reading its rules, in order: each is recorded (as `true`) when its expression over the findings holds, and a later one may use an earlier one.",
        yaml: "derive:\n  - finding: status_mismatch\n    when: findings.cache_status and findings.db_status and findings.cache_status != findings.db_status",
      },
      documented(
        {
          type: "object",
          additionalProperties: false,
          required: ["finding", "when"],
          properties: {
            finding: refDoc("id", "The finding recorded when the expression holds."),
            when: text("An expression over the findings (`findings.<key>`)."),
          },
        },
        "A derived finding and when it holds.",
      ),
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
  snippet: {
    label: "decide step",
    description: "Conclude from findings with rules.",
    id: "conclude",
    body: {
      type: "decide",
      name: "${2:Conclude}",
      rules: [{ id: "${3:rule}", all: ["${4:finding}"], conclusion: "${5:cause_found}" }],
      fallback: { conclusion: "${6:inconclusive}" },
    },
    order: 4,
  },
  graph: {
    exits: (step: { rules: { id: string; goto?: string }[]; fallback?: { goto?: string } }) => {
      const exits: StepExit[] = [];
      // The run goes on past the step when a rule, or the fallback, names no step to go to.
      let goesOn = false;
      step.rules.forEach((r, i) => {
        if (r.goto !== undefined)
          exits.push({ to: r.goto, kind: "rule", at: ["rules", i, "goto"], label: r.id });
        else goesOn = true;
      });
      if (step.fallback?.goto !== undefined)
        exits.push({ to: step.fallback.goto, kind: "fallback", at: ["fallback", "goto"] });
      else goesOn = true;
      return { exits, goesOn };
    },
  },
});

/** The fields of a conclusion: a rule's, and the fallback's. */
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
