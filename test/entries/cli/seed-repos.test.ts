import { afterEach, describe, expect, it } from "vitest";
import { cleanup } from "../../helpers/git-repo.js";
import { validatePlacement, type Placement } from "../../helpers/seed-repos.js";

afterEach(cleanup);

const PLACEMENTS: Placement[] = ["flat", "github", "own"];

describe("the runbook spec's own repository (UnCooe/debug-runbook)", () => {
  it.each(PLACEMENTS)(
    "its three runbooks load with their sidecars, validated from another folder (%s)",
    async (placement) => {
      const files = await validatePlacement("runbook", placement);
      expect(files.map((f) => f.file.split("/").pop())).toEqual([
        "cache_stale.yaml",
        "request_not_effective.yaml",
        "state_abnormal.yaml",
      ]);
      expect(files.flatMap((f) => f.errors)).toEqual([]);
    },
  );
});

describe("Catalyst's own repository (Xerilium/catalyst)", () => {
  it.each(PLACEMENTS)(
    "its Markdown playbooks are found and load in each placement (%s)",
    async (p) => {
      const files = await validatePlacement("catalyst", p);
      const markdown = files.filter((f) => f.file.endsWith(".md"));
      expect(markdown).toHaveLength(9);
      expect(markdown.flatMap((f) => f.errors)).toEqual([]);
    },
  );
});

describe("Mindscape's own repository (HansC-anafter/mindscape-ai-local-core)", () => {
  it.each(PLACEMENTS)("each spec loads once, with its SOP, in each placement (%s)", async (p) => {
    const files = await validatePlacement("mindscape", p);
    // 34 specs and 2 front-matter playbooks; an SOP (and a locale's, `.en.md`) loads with its
    // spec, and only the two SOPs without a spec load on their own (in the flat placements).
    expect(files.filter((f) => f.file.endsWith(".json"))).toHaveLength(34);
    const alone = files.filter((f) => f.file.endsWith(".md")).map((f) => f.file.split("/").pop());
    expect(alone).toEqual(
      p === "own" ? [] : ["threejs_hero_adjustment.md", "threejs_hero_landing.md"],
    );
    // Left of #16: an SOP without a spec names inputs its front matter does not declare.
    const unresolved = p === "own" ? [] : ["threejs_hero_landing.md: template-unresolved"];
    expect(
      files.flatMap((f) => f.errors.map((e) => `${f.file.split("/").pop()}: ${e.rule}`)),
    ).toEqual(unresolved);
  });
});

describe("Triagent's own repository (sourcehawk/triagent)", () => {
  // Every playbook of its `system/` folder, of its walker's testdata and of its e2e fixtures.
  const SYSTEM = [
    "bug_report_proposal",
    "capture_offer",
    "cloud_triage",
    "followup_conversation",
    "gather_incidentio_context",
    "gather_slack_context",
    "git_inspect",
    "investigation",
    "playbook_proposal",
    "pr_proposal",
    "prom_lookup",
    "strategic_log_extraction",
    "wiki_backfill_ingestion",
    "wiki_proposal",
    "wiki_recall",
  ];
  const TESTDATA = [
    "cluster_health",
    "connectivity",
    "delegate_parent",
    "delegate_target",
    "elasticsearch",
    "example_general",
    "k8s_context",
  ];
  // Its end-to-end fixtures: playbooks, and proposals (drafts kept apart from the playbooks).
  const E2E = [
    "broker_ooms",
    "capture_routing",
    "new_synthetic_playbook__synthpid01",
    "payments_latency",
    "payments_latency__abc123def456",
  ];

  it.each(PLACEMENTS)(
    "each playbook and proposal loads and validates clean in each placement (%s)",
    async (p) => {
      const files = await validatePlacement("triagent", p);
      const names = files.map((f) =>
        f.file
          .split("/")
          .pop()
          ?.replace(/\.yaml$/, ""),
      );
      expect(names.sort()).toEqual([...SYSTEM, ...TESTDATA, ...E2E].sort());
      // A proposal (a draft of a new version) has the id of the playbook it revises: it is checked
      // on its own, not counted as a second playbook of that id.
      expect(
        files.flatMap((f) => f.errors.map((e) => `${f.file}: ${e.rule}: ${e.message}`)),
      ).toEqual([]);
    },
  );
});
