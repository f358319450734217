import { describe, expect, it } from "vitest";
import { validateSource } from "../../../src/core/rules/validate.js";
import { yaml } from "../format/helpers.js";

/** The inputs `input-unused` reports in a document. */
function unused(text: string): string[] {
  return validateSource("pb.yaml", text)
    .diagnostics.filter((d) => d.rule === "input-unused")
    .map((d) => d.message.replace(/^inputs\.(\S+): .*$/, "$1"));
}

describe("input-unused", () => {
  it("counts a mention wherever the playbook makes it, and only outside the input's own declaration", () => {
    const text = yaml`
      apiVersion: playbook-bot/v1
      id: t
      inputs:
        in_template: { type: string }
        in_placeholder: { type: string }
        in_expression: { type: string }
        in_default: { type: string }
        reads_another: { type: string, default: "{{ inputs.in_default }}" }
        in_a_child_mapping: { type: string }
        mentioned_by_itself: { type: string, description: "see inputs.mentioned_by_itself" }
        never: { type: string }
      steps:
        - id: a
          type: comment
          body: "{{ inputs.in_template }} and ${"${in_placeholder}"}"
          if: inputs.in_expression == 'x'
        - id: b
          type: playbook
          playbook: other
          mode: delegate
          with: { v: "{{ inputs.in_a_child_mapping }}", w: "{{ inputs.reads_another }}" }
        - { id: e, type: end }
    `;
    expect(unused(text).sort()).toEqual(["mentioned_by_itself", "never"]);
  });

  it("has nothing to say about a playbook without inputs", () => {
    expect(
      unused(yaml`
        apiVersion: playbook-bot/v1
        id: t
        steps:
          - { id: a, type: comment, body: "{{ inputs.nothing }}" }
      `),
    ).toEqual([]);
  });
});
