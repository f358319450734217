import { describe, expect, it } from "vitest";
import { validateSource } from "../../../src/core/rules/validate.js";
import { yaml } from "../format/helpers.js";

/** The diagnostics of a document, as `code line:column message`. */
function findings(text: string): string[] {
  return validateSource("pb.yaml", text)
    .diagnostics.filter((d) => d.severity === "error")
    .map((d) => `${d.rule} ${d.line}:${d.column} ${d.message}`);
}

const GOOD = yaml`
  apiVersion: playbook-bot/v1
  id: good
  inputs:
    services: { type: list, default: "api, web" }
  steps:
    - id: checks
      type: parallel
      branches:
        lint:
          - { id: lint-a, type: comment, body: a }
          - { id: lint-b, type: comment, body: "{{ steps.lint-a.outputs.id }}" }
        docs:
          - { id: docs-a, type: comment, body: d }
          - { id: docs-b, type: comment, body: e, needs: [docs-a] }
          - { id: docs-c, type: comment, body: f }
    - id: each
      type: comment
      for_each: "{{ inputs.services }}"
      body: "{{ item }} {{ item_index }} {{ steps.lint-b.outputs.url }} {{ steps.docs-b.outputs.url }}"
    - { id: done, type: end }
`;

describe("dag rules: a playbook that uses every feature soundly", () => {
  it("has no finding", () => {
    expect(findings(GOOD)).toEqual([]);
  });
});

describe("needs-unknown", () => {
  it("reports a need outside the list, one on itself and one named twice, each where written", () => {
    const out = findings(yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: p
          type: parallel
          branches:
            a:
              - { id: a1, type: comment, body: a }
              - { id: a2, type: comment, body: a, needs: [a2, a1, a1] }
            b:
              - { id: b1, type: comment, body: b, needs: [a1] }
              - { id: b2, type: comment, body: b }
    `);
    expect(out).toEqual(
      [
        "needs-unknown 9:53 p.branches.a[1].needs[0]: step 'a2' needs itself, so it could never start",
        "needs-unknown 9:61 p.branches.a[1].needs[2]: 'a1' is named twice",
        "needs-unknown 11:53 p.branches.b[0].needs[0]: 'a1' is not in the same list as 'b1' (it is in branch 'a' of 'p'); a step needs only steps of its own list",
      ].map((s) => s.replace(/p\.branches/g, "steps[0].branches")),
    );
  });
});

describe("needs-cycle and needs-unreachable", () => {
  it("a list without a cycle passes; a cycle is reported once, what waits for it once each", () => {
    expect(
      findings(yaml`
        apiVersion: playbook-bot/v1
        id: t
        steps:
          - { id: a, type: comment, body: a }
          - { id: b, type: comment, body: b, needs: [a] }
          - { id: c, type: comment, body: c, needs: [a, b] }
      `),
    ).toEqual([]);
    const out = findings(yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - { id: a, type: comment, body: a, needs: [c] }
        - { id: b, type: comment, body: b, needs: [a] }
        - { id: c, type: comment, body: c, needs: [b] }
        - { id: d, type: comment, body: d, needs: [c] }
        - { id: e, type: comment, body: e }
    `);
    expect(out).toEqual([
      "needs-cycle 4:45 steps[0].needs: a → c → b → a need each other, so none of them can ever start",
      "needs-unreachable 7:45 steps[3].needs: step 'd' can never start: it waits for 'c', which can never complete",
    ]);
  });
});

describe("join-unmet", () => {
  it("accepts a count up to the branches, refuses one above", () => {
    const doc = (n: number) => yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: p
          type: parallel
          join: { count: ${n} }
          branches:
            a: [{ id: a1, type: comment, body: a }]
            b: [{ id: b1, type: comment, body: b }]
    `;
    expect(findings(doc(2))).toEqual([]);
    expect(findings(doc(4))).toEqual([
      "join-unmet 6:20 steps[0].join.count: 'p' waits for 4 completed branches but has 2, so it could never go on",
    ]);
  });
});

describe("goto-out-of-branch", () => {
  it("reports a goto into a branch and a next: in a needs: list; a goto within the branch passes", () => {
    const out: string[] = findings(yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - { id: start, type: comment, body: s, next: b1 }
        - id: p
          type: parallel
          branches:
            a:
              - { id: a1, type: comment, body: a, next: a3 }
              - { id: a2, type: comment, body: a }
              - { id: a3, type: comment, body: a }
            b:
              - { id: b1, type: comment, body: b }
              - { id: b2, type: comment, body: b, needs: [b1], next: b1 }
    `);
    expect(out).toContain(
      "goto-out-of-branch 4:48 steps[0].next: 'start' goes to 'b1', inside branch 'b' of 'p'",
    );
    expect(out).toContain(
      "goto-out-of-branch 14:58 steps[1].branches.b[1].next: 'b2' is in a list that runs by needs:, where steps go on by what needs them, not by next:",
    );
    expect(out.filter((l) => l.startsWith("goto-out-of-branch") && l.includes("'a1'"))).toEqual([]);
  });
});

describe("parallel-unsupported", () => {
  it("refuses an end in a needs: list, a delegation in a branch, for_each on a parallel step", () => {
    const out = findings(yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: p
          type: parallel
          for_each: "a, b"
          branches:
            a: [{ id: a1, type: playbook, playbook: other, mode: delegate }]
        - { id: z, type: comment, body: z, needs: [p] }
        - { id: stop, type: end }
    `);
    expect(out).toEqual([
      "parallel-unsupported 6:5 steps[0].for_each: a parallel step cannot have for_each: put for_each on a step inside a branch",
      "parallel-unsupported 8:27 steps[0].branches.a[0].type: a playbook step cannot run inside branch 'a' of 'p'",
      "parallel-unsupported 10:23 steps[2].type: an end step cannot run inside a needs: list",
    ]);
  });

  it("refuses needs: in a nodes graph", () => {
    const out = findings(yaml`
      apiVersion: playbook-bot/v1
      id: t
      entrypoint: a
      nodes:
        a: { type: comment, body: a, next: b }
        b: { type: end, needs: [a] }
    `);
    expect(out.filter((l) => l.startsWith("parallel-unsupported"))).toEqual([
      "parallel-unsupported 6:19 nodes.b.needs: needs: applies to steps lists; a nodes graph orders its steps with next:",
    ]);
  });
});

describe("output-unsure", () => {
  it("reports a sibling branch's output and one not among the needs; template-order stays quiet", () => {
    const out = findings(yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - id: p
          type: parallel
          branches:
            a: [{ id: a1, type: comment, body: "{{ steps.b1.outputs.id }}" }]
            b: [{ id: b1, type: comment, body: b }]
        - { id: x, type: comment, body: x }
        - { id: y, type: comment, body: "{{ steps.x.outputs.id }}", needs: [p] }
    `);
    expect(out).toEqual([
      "output-unsure 7:43 steps[0].branches.a[0].body: '{{ steps.b1.outputs.id }}' is used in step 'a1', but 'b1' runs in branch 'b' of 'p', beside branch 'a' where this step runs, so it may not have run yet",
      "output-unsure 10:36 steps[2].body: '{{ steps.x.outputs.id }}' is used in step 'y', but 'x' is not among the needs of 'y' (nor their needs), so it may not have run yet",
    ]);
  });

  it("passes outputs of a join: all, and of a step among the transitive needs", () => {
    expect(
      findings(yaml`
        apiVersion: playbook-bot/v1
        id: t
        steps:
          - { id: a, type: comment, body: a }
          - { id: b, type: comment, body: b, needs: [a] }
          - { id: c, type: comment, body: "{{ steps.a.outputs.id }}", needs: [b] }
      `),
    ).toEqual([]);
  });
});

describe("item-outside-for-each", () => {
  it("reports item in a playbook output and in a for_each template itself", () => {
    const out = findings(yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - { id: s, type: comment, for_each: "{{ item }}", body: "{{ item }}" }
      outputs:
        last: "{{ item_index }}"
    `);
    expect(out).toEqual([
      "item-outside-for-each 4:40 steps[0].for_each: '{{ item }}' has a value only in the items of a for_each step, and the list is read before any item exists",
      "item-outside-for-each 6:10 outputs.last: '{{ item_index }}' has a value only in the items of a for_each step",
    ]);
  });
});
