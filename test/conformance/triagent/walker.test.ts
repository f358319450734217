/**
 * Triagent's own walker tests (sourcehawk/triagent pkg/mcp/strategies/walker_test.go, commit
 * 1ebb736) as cases here: each case's playbooks, the moves its agent makes (step_complete's goto
 * is `/choose <node>`, a finding is `/record key=value`) and the node or terminal Triagent's walker
 * reaches, run through the dialect loader and the run service (`simulate`: the GitHub App over an
 * in-memory GitHub). The playbooks are the real files of test/fixtures/seed-repos/triagent/, or,
 * where Triagent's test builds a playbook in code, the same playbook written as YAML.
 * docs/dialects/conformance-triagent.md lists the cases and where this differs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { cleanup, makeDir, write } from "../../helpers/git-repo.js";
import { SEED_REPOS } from "../../helpers/seed-repos.js";
import { validateSource } from "../../../src/core/rules/validate.js";

afterEach(cleanup);

const TESTDATA = "pkg/mcp/strategies/testdata/playbooks";
const seed = (rel: string) => readFileSync(join(SEED_REPOS, "triagent", rel), "utf8");
const testdata = (id: string) =>
  seed(`${TESTDATA}/${id === "example_general" ? "general" : "investigation"}/${id}.yaml`);
const system = (id: string) => seed(`system/${id}.yaml`);

/** A playbook as Triagent's tests build it in code: nodes of a description, a delegate, branches. */
function built(
  id: string,
  entry: string,
  nodes: Record<
    string,
    { d: string; to?: string; next?: string; advice?: string; handoff?: string }
  >,
): string {
  const lines = [
    `id: ${id}`,
    "schema_version: 1",
    "symptom: test",
    `entrypoint: ${entry}`,
    "nodes:",
  ];
  for (const [node, n] of Object.entries(nodes)) {
    lines.push(`  ${node}:`, `    description: "${n.d}"`);
    if (n.to) lines.push(`    delegate_to: ${n.to}`);
    if (n.next) lines.push("    next:", `      - condition: "always"`, `        goto: ${n.next}`);
    if (n.advice) lines.push(`    terminal_advice: "${n.advice}"`);
    if (n.handoff) lines.push(`    handoff: [${n.handoff}]`);
  }
  return `${lines.join("\n")}\n`;
}

/** The playbooks in `.github/playbooks/` of a repository, `/run` and the moves, as dana (write). */
async function walk(
  playbooks: Record<string, string>,
  commands: string[],
  code = 0,
): Promise<string> {
  const repo = makeDir("pb-triagent-conf-");
  for (const [id, text] of Object.entries(playbooks))
    write(repo, `.github/playbooks/${id}.yaml`, text);
  const events = write(
    repo,
    "events.yaml",
    [
      "issue: { title: conformance, author: dana }",
      "users: { dana: write }",
      "events:",
      ...commands.map((c) => `  - { comment: ${JSON.stringify(c)}, by: dana }`),
      "",
    ].join("\n"),
  );
  const target = /^\/run (\S+)/.exec(commands[0] ?? "")?.[1] ?? "";
  const r = await runCli(["simulate", target, "--events", events], repo);
  expect(r.code, r.out + r.err).toBe(code);
  return r.out + r.err;
}

/** The last status line the status comment shows. */
const lastStatus = (out: string) => [...out.matchAll(/\*\*Status:\*\* ([^\n]*)/g)].at(-1)?.[1];

describe("Triagent's walker tests, run here", () => {
  it("LoadPlaybooks_LocalSeedAreValid: every testdata playbook loads, its gotos resolve", () => {
    for (const id of [
      "cluster_health",
      "connectivity",
      "delegate_parent",
      "delegate_target",
      "elasticsearch",
      "example_general",
      "k8s_context",
    ]) {
      const r = validateSource(`${id}.yaml`, testdata(id));
      expect(r.dialect, id).toBe("triagent");
      expect(
        r.diagnostics.filter((d) => d.severity === "error"),
        id,
      ).toEqual([]);
      expect(r.playbook?.id).toBe(id);
    }
  });

  it("Walker_RoundTrip: cluster_id fills the call, a finding is kept, the chosen branch is taken", async () => {
    const out = await walk({ cluster_health: testdata("cluster_health") }, [
      "/run cluster_health cluster_id=abc namespace=abc-zeebe",
      "/record status_block=elasticsearch=NotReady",
      "/choose terminal_unhealthy",
    ]);
    expect(out).toContain('`triagent-k8s/get_resource` {"kind":"ZeebeCluster","name":"abc"}');
    expect(lastStatus(out)).toMatch(/^completed/);
    expect(out).toContain("Hand back to the operator with the failing subsystem named.");
  });

  it("WalkPlaybook_RejectsMissingClusterIDForInvestigationType differs: the run starts, the call unfilled", async () => {
    const out = await walk({ cluster_health: testdata("cluster_health") }, ["/run cluster_health"]);
    expect(lastStatus(out)).toMatch(/^waiting/);
    expect(out).toContain('{"kind":"ZeebeCluster","name":"\\${cluster_id}"}');
  });

  it("WalkPlaybook_AcceptsMissingClusterIDForGeneralType: a general playbook runs without one", async () => {
    const out = await walk({ example_general: testdata("example_general") }, [
      "/run example_general",
    ]);
    expect(lastStatus(out)).toMatch(/^completed/);
    expect(out).toMatch(/completed\.\n\n\s+Done\./);
  });

  it("StepComplete_RejectsUnknownNode: a goto naming no node is refused, the run waits on", async () => {
    const out = await walk({ cluster_health: testdata("cluster_health") }, [
      "/run cluster_health cluster_id=abc",
      "/choose no_such_node",
    ]);
    expect(out).toContain("👎 choose one of: terminal_unhealthy, terminal_healthy");
    expect(lastStatus(out)).toMatch(/^waiting/);
  });

  it("Walker_DelegateTo_RoundTrip: into the target, its finding kept, back to the parent's end", async () => {
    const out = await walk(
      {
        delegate_parent: testdata("delegate_parent"),
        delegate_target: testdata("delegate_target"),
      },
      [
        "/run delegate_parent",
        "/choose walk_target",
        "/record target_finding=captured-in-delegate",
        "/choose terminal_done",
        "/choose terminal_done",
      ],
    );
    expect(out).toContain("playbook **delegate_target** returned");
    expect(out).toContain("captured-in-delegate");
    expect(lastStatus(out)).toMatch(/^completed/);
  });

  it("Walker_DelegateTo_UnknownTarget: a delegate to a playbook that is not loaded fails there", async () => {
    const rogue = built("rogue_parent", "a", {
      a: { d: "delegate to ghost", to: "ghost_playbook_id", next: "b" },
      b: { d: "term", advice: "done" },
    });
    const out = await walk({ rogue_parent: rogue }, ["/run rogue_parent"]);
    expect(lastStatus(out)).toMatch(/^failed — no playbook has id 'ghost\\?_playbook\\?_id'/);
  });

  it("Walker_DelegateTo_NestedDoublePop: two returns, the leaf's finding reaches the root", async () => {
    const out = await walk(
      {
        nested_root: built("nested_root", "a", {
          a: { d: "delegate to mid", to: "nested_mid", next: "term" },
          term: { d: "root term", advice: "root done" },
        }),
        nested_mid: built("nested_mid", "b", {
          b: { d: "delegate to leaf", to: "nested_leaf", next: "term" },
          term: { d: "mid term", advice: "mid done" },
        }),
        nested_leaf: built("nested_leaf", "c", {
          c: { d: "leaf work", next: "term" },
          term: { d: "leaf term", advice: "leaf done" },
        }),
      },
      [
        "/run nested_root",
        "/record leaf_finding=deep",
        "/choose term",
        "/choose term",
        "/choose term",
      ],
    );
    expect(out).toContain("playbook **nested_leaf** returned");
    expect(out).toContain("playbook **nested_mid** returned");
    expect(out).toContain("deep");
    expect(lastStatus(out)).toMatch(/^completed/);
    expect(out).toMatch(/completed\.\n\n\s+root done/);
  });

  it("Walker_DelegateTo_CycleRejected: a delegate loop is refused (here before the first push)", async () => {
    const out = await walk(
      {
        cycle_a: built("cycle_a", "x", {
          x: { d: "delegate to b", to: "cycle_b", next: "term" },
          term: { d: "term", advice: "done" },
        }),
        cycle_b: built("cycle_b", "y", {
          y: { d: "delegate back to a", to: "cycle_a", next: "term" },
          term: { d: "term", advice: "done" },
        }),
      },
      ["/run cycle_a"],
    );
    expect(lastStatus(out)).toContain("delegation cycle: cycle_a → cycle_b → cycle_a");
    expect(lastStatus(out)).toMatch(/^failed/);
  });

  it("Walker_DelegateTo_RejectsTerminalHandoff: a delegated playbook that hands off is refused (here at load)", async () => {
    const out = await walk(
      {
        bad_target: built("bad_target", "x", {
          x: { d: "leap to handoff", next: "term" },
          term: { d: "term with handoff", advice: "go elsewhere", handoff: "some_other" },
        }),
        bad_parent: built("bad_parent", "a", {
          a: { d: "delegate to bad_target", to: "bad_target", next: "b" },
          b: { d: "term", advice: "done" },
        }),
      },
      ["/run bad_parent"],
      1,
    );
    expect(out).toContain(
      "'bad_target' has no terminal that returns: every way it ends hands off [set-delegate-terminal]",
    );
  });

  it("Walker_GatherSubflows_E2E: the real investigation walks both gather sub-flows to hypothesize", async () => {
    const ids = [
      "investigation",
      "gather_incidentio_context",
      "gather_slack_context",
      "wiki_recall",
    ];
    const out = await walk(Object.fromEntries(ids.map((id) => [id, system(id)])), [
      "/run investigation cluster_id=abc",
      "/choose walk_incidentio",
      "/choose terminal_skipped",
      // At this commit walk_incidentio leads to walk_wiki_recall (the test's own copy went on
      // to walk_slack): its sub-flow is walked too.
      "/choose walk_wiki_recall",
      "/choose keyword_search",
      "/choose terminal_done",
      "/choose walk_slack",
      "/choose terminal_skipped",
      "/choose hypothesize",
    ]);
    for (const child of ["gather_incidentio_context", "wiki_recall", "gather_slack_context"])
      expect(out).toContain(`playbook **${child}** returned`);
    expect(out).not.toContain("👎");
    expect(lastStatus(out)).toMatch(/^waiting/);
    expect(out).toContain("- [ ] **`hypothesize`** ← current");
  });
});

describe("real Triagent playbooks run to the terminal Triagent's walker reaches", () => {
  it("capture_offer: the operator declines, the walk ends at terminal_declined", async () => {
    const out = await walk({ capture_offer: system("capture_offer") }, [
      "/run capture_offer",
      "/choose terminal_declined",
    ]);
    expect(lastStatus(out)).toMatch(/^completed/);
    expect(out).toContain('Acknowledge briefly ("understood, not capturing") and stop.');
  });

  it("wiki_recall: nothing resolves, the free-text search ends at terminal_done, its advice as Markdown", async () => {
    const out = await walk({ wiki_recall: system("wiki_recall") }, [
      "/run wiki_recall",
      "/record unmapped_keywords=rebalancing",
      "/choose keyword_search",
      "/record keyword_hits=none",
      "/choose terminal_done",
    ]);
    expect(lastStatus(out)).toMatch(/^completed/);
    // Its bullet list and inline code reach the comment as Markdown.
    expect(out).toContain("- INC-1234-control-plane-oom (resolved, sev1) — overlaps on");
    expect(out).toContain("`control-plane`, `oom-kill`");
    expect(out).not.toMatch(/Hand the prior-incident[^\n]*&#xA;/);
  });
});
