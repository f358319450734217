import { describe, expect, it } from "vitest";
import { renderMermaid } from "../../../src/core/format/mermaid.js";
import { playbookOf, yaml } from "./helpers.js";

const pb = playbookOf(yaml`
  apiVersion: playbook-bot/v1
  id: t
  steps:
    - id: start
      type: checkpoint
      name: Approve "the" [plan] {now} <b>|#
      message: ok?
      on_reject: end
    - id: look
      type: investigate
      expected_findings: [oom]
      next:
        - { when: "findings.oom == 'yes'", goto: decide }
        - { default: call }
    - id: decide
      type: decide
      rules:
        - { id: oom_rule, all: [oom], conclusion: c, goto: end }
      fallback: { conclusion: x, goto: call }
    - id: call
      type: playbook
      playbook: child-pb
      mode: delegate
      next:
        - { condition: "it worked", goto: end }
        - { condition: "it failed", goto: away }
    - id: away
      type: playbook
      playbook: other
      mode: handoff
    - id: end
      type: end
      name: The end of a very long name that goes on and on and on until it is cut somewhere
      handoff: [storage-investigation]
`);

describe("renderMermaid", () => {
  const chart = renderMermaid(pb);
  const lines = chart.split("\n");

  it("draws each step kind with its shape", () => {
    expect(lines[0]).toBe("flowchart TD");
    expect(lines).toContain('  s_look["look<br/>investigate"]');
    expect(lines).toContain('  s_decide{"decide"}');
    expect(lines).toContain('  s_call[["call<br/>delegate child-pb"]]');
    expect(lines).toContain('  s_away[["away<br/>handoff other"]]');
    expect(chart.endsWith("\n")).toBe(true);
  });

  it("escapes quotes, brackets and markup in labels", () => {
    expect(lines).toContain(
      '  s_start{{"Approve #34;the#34; #91;plan#93; #123;now#125; #60;b#62;#124;#35;<br/>checkpoint"}}',
    );
  });

  it("cuts long labels", () => {
    expect(lines).toContain(
      '  s_end(["The end of a very long name that goes on and on and on un..."])',
    );
  });

  it("gives a step named end a safe node id", () => {
    expect(chart).not.toMatch(/^\s+end[\s([{]/m);
    expect(lines).toContain('  s_start -->|"reject"| s_end');
  });

  it("labels edges with conditions, rules and fallbacks", () => {
    expect(lines).toContain("  s_start --> s_look");
    expect(lines).toContain(`  s_look -->|"findings.oom == 'yes'"| s_decide`);
    expect(lines).toContain('  s_look -->|"default"| s_call');
    expect(lines).toContain('  s_decide -->|"oom_rule"| s_end');
    expect(lines).toContain('  s_decide -->|"fallback"| s_call');
    expect(lines).toContain('  s_call -->|"it worked"| s_end');
  });

  it("draws handoffs to other playbooks as dotted edges", () => {
    expect(lines).toContain('  pb_s_storage_investigation>"storage-investigation"]');
    expect(lines).toContain("  s_end -.->|handoff| pb_s_storage_investigation");
    expect(lines).toContain("  s_away -.->|handoff| pb_s_other");
  });

  it("marks the current step and done steps, ignoring unknown ids", () => {
    const marked = renderMermaid(pb, { current: "look", done: ["start", "ghost"] });
    expect(marked).toContain("  class s_look current\n");
    expect(marked).toContain("  class s_start done\n");
    expect(marked).toContain("classDef current");
    expect(renderMermaid(pb, { current: "ghost" })).not.toContain("classDef current");
    expect(renderMermaid(pb, { done: [] })).not.toContain("classDef done");
  });
});

describe("renderMermaid with parallel steps, for_each and needs", () => {
  const chart = renderMermaid(
    playbookOf(yaml`
      apiVersion: playbook-bot/v1
      id: par
      steps:
        - id: checks
          type: parallel
          join: { count: 1 }
          branches:
            lint:
              - { id: lint-a, type: comment, body: a }
              - { id: lint-b, type: comment, body: b }
            docs:
              - { id: docs-a, type: comment, body: d, for_each: "x, y" }
              - { id: docs-b, type: comment, body: d, needs: [docs-a] }
        - { id: build, type: comment, body: b }
    `),
    { current: "checks", running: ["lint-b", "docs-a"] },
  );
  const lines = chart.split("\n");

  it("draws each branch as a subgraph between the fork and its join", () => {
    expect(lines).toContain('  s_checks[/"checks<br/>parallel"\\]');
    expect(lines).toContain('  subgraph s_checks__s_lint ["lint"]');
    expect(lines).toContain('    s_lint_a["lint-a<br/>comment"]');
    expect(lines).toContain('  j_checks(("join 1 of 2"))');
    expect(lines).toContain('  s_checks -->|"lint"| s_lint_a');
    expect(lines).toContain("  s_lint_b --> j_checks");
    expect(lines).toContain("  s_docs_b --> j_checks");
    expect(lines).not.toContain("  s_docs_a --> j_checks");
    // What follows the parallel step follows its join, not the fork.
    expect(lines).toContain("  j_checks --> s_build");
    expect(lines).not.toContain("  s_checks --> s_build");
    expect(lines).not.toContain("  s_lint_a --> j_checks");
  });

  it("marks a for_each step, draws needs as edges, and marks running steps", () => {
    expect(lines).toContain('    s_docs_a["docs-a<br/>comment · for each"]');
    expect(lines).toContain("  s_docs_a --> s_docs_b");
    expect(lines).toContain("  class s_lint_b,s_docs_a running");
    expect(lines).toContain("  class s_checks current");
  });

  it("draws a part around a parallel step with its join, the rest behind one node", () => {
    const part = renderMermaid(
      playbookOf(yaml`
        apiVersion: playbook-bot/v1
        id: part
        steps:
          - id: p
            type: parallel
            branches:
              a: [{ id: a1, type: comment, body: a }]
              b: [{ id: b1, type: comment, body: b }]
          - { id: after, type: comment, body: c }
      `),
      { only: new Set(["p", "a1"]), current: "a1" },
    ).split("\n");
    expect(part).toContain('  s_p -->|"a"| s_a1');
    expect(part).toContain("  s_a1 --> j_p");
    expect(part).toContain("  j_p --> more");
    expect(part).toContain("  s_p --> more");
    expect(part).toContain("  class s_a1 current");
    expect(part.some((l) => l.includes("s_b1["))).toBe(false);
  });

  it("closes a parallel step that ends the playbook with an end of its own", () => {
    const last = renderMermaid(
      playbookOf(yaml`
        apiVersion: playbook-bot/v1
        id: last
        steps:
          - id: p
            type: parallel
            branches:
              a: [{ id: a1, type: comment, body: a }]
      `),
    ).split("\n");
    expect(last).toContain("  s_a1 --> j_p");
    expect(last).toContain('  j_p --> j_p_end(["end"])');
  });
});

describe("renderMermaid with on_error goto", () => {
  it("draws the recovery path, labelled with the error code it is for", () => {
    const chart = renderMermaid(
      playbookOf(yaml`
        apiVersion: playbook-bot/v1
        id: t
        steps:
          - id: act
            type: comment
            body: hi
            on_error: { GH-CONFLICT: goto:rescue, default: goto:rescue }
          - id: fin
            type: end
          - id: rescue
            type: end
            status: failure
      `),
    );
    expect(chart).toContain('s_act -->|"on GH-CONFLICT"| s_rescue');
    expect(chart).toContain('s_act -->|"on error"| s_rescue');
  });
});

describe("renderMermaid node ids", () => {
  const chart = renderMermaid(
    playbookOf(yaml`
      apiVersion: playbook-bot/v1
      id: ids
      steps:
        - { id: a-b, type: comment, body: one }
        - { id: a_b, type: comment, body: two }
        - { id: a_b_2, type: comment, body: three }
        - { id: fin, type: end, handoff: [x-y, x_y] }
    `),
    { current: "a_b", done: ["a-b"] },
  );
  const lines = chart.split("\n");

  it("gives ids that slug alike a node each, and draws the edge between them", () => {
    expect(lines).toContain('  s_a_b["a-b<br/>comment"]');
    expect(lines).toContain('  s_a_b_2["a_b<br/>comment"]');
    expect(lines).toContain("  s_a_b --> s_a_b_2");
    // No step becomes its own successor.
    expect(chart).not.toMatch(/^\s+(\w+) --> \1$/m);
    expect(lines).toContain("  class s_a_b done");
    expect(lines).toContain("  class s_a_b_2 current");
  });

  it("numbers a step whose own name an earlier step took", () => {
    expect(lines).toContain('  s_a_b_2_2["a_b_2<br/>comment"]');
    expect(lines).toContain("  s_a_b_2 --> s_a_b_2_2");
    expect(lines).toContain("  s_a_b_2_2 --> s_fin");
    const ids = lines.flatMap((l) => /^ {2}(\w+)[[({]/.exec(l)?.[1] ?? []);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("keeps two playbooks a handoff names apart", () => {
    expect(lines).toContain('  pb_s_x_y>"x-y"]');
    expect(lines).toContain('  pb_s_x_y_2>"x_y"]');
    expect(lines).toContain("  s_fin -.->|handoff| pb_s_x_y_2");
  });

  it("names a step the same whether the whole chart or a part of it is drawn", () => {
    const doc = playbookOf(yaml`
      apiVersion: playbook-bot/v1
      id: part
      steps:
        - { id: a-b, type: comment, body: one }
        - { id: a_b, type: comment, body: two }
        - { id: c, type: end }
    `);
    const part = renderMermaid(doc, { only: new Set(["a_b", "c"]), current: "a_b" });
    expect(part).toContain('  s_a_b_2["a_b<br/>comment"]');
    expect(part).toContain("  s_a_b_2 --> s_c");
    expect(part).toContain("  class s_a_b_2 current");
    expect(part).not.toContain('s_a_b["');
  });

  it("keeps Mermaid syntax in ids and labels inert", () => {
    // Ids outside the schema's pattern reach the renderer through the library's API.
    const hostile = renderMermaid({
      apiVersion: "playbook-bot/v1",
      id: "h",
      steps: [
        {
          id: 'x"]-->end',
          type: "comment",
          name: "%%{init: {'theme':'dark'}}%% click x call alert() ```",
          body: "b",
        },
        { id: "end;style", type: "end" },
      ],
    } as unknown as Parameters<typeof renderMermaid>[0]);
    const body = hostile.split("\n").slice(1).filter(Boolean);
    for (const line of body) expect(line).toMatch(/^ {2}[A-Za-z0-9_]+( -->|\[|\(|$)/);
    expect(hostile).toContain(
      "  s_x_____end[\"#37;#37;#123;init: #123;'theme':'dark'#125;#125;#37;#37; click x call alert() #96;#96;#96;<br/>comment\"]",
    );
    expect(hostile).toContain("  s_x_____end --> s_end_style");
    expect(hostile).not.toMatch(/%%|`|\{/);
  });
});

describe("renderMermaid of a step named as its kind", () => {
  it("says the kind once, not twice", () => {
    const chart = renderMermaid(
      playbookOf(yaml`
        apiVersion: playbook-bot/v1
        id: t
        steps:
          - id: comment
            type: comment
            body: hi
          - id: note
            type: comment
            body: hi
          - id: done
            type: end
      `),
    );
    expect(chart).toContain('s_comment["comment"]');
    expect(chart).toContain('s_note["note<br/>comment"]');
  });
});
