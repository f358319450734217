import { documented, documentedEnum, text, texts } from "../../format/schema-docs.js";
import { refDoc, ids, tools, flag } from "../../format/schema-parts.js";
import { stepKindSchema } from "../kind-schema.js";

/** The `ai` step in the playbook format: what it is, its fields, its snippet. */
export const aiSchema = stepKindSchema({
  kind: "ai",
  doc: {
    md: "Asks the configured AI adapter (a mock unless one is configured) to work on a prompt, with the tools listed; the answer is `outputs.text` and the findings it reports are recorded. Its tools are read-only unless `scope: write`, which needs an approval first. `on_error: retry:N` retries it only with an `idempotency_key`.",
    yaml: "id: summarise\ntype: ai\nprompt: Summarise the failing tests of {{ inputs.package }}.\nexpected_findings: [flaky_test]\nverify: non-empty",
  },
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
  snippet: {
    label: "ai step",
    description: "Ask the AI adapter.",
    id: "ask",
    body: {
      type: "ai",
      name: "${2:Ask the model}",
      prompt: "${3:What the model should do}",
      scope: "read-only",
    },
    order: 12,
  },
});
