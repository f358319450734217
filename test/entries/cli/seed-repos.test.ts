import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { ROOT, cleanup, makeDir } from "../../helpers/git-repo.js";
import { place, validatePlacement, type Placement } from "../../helpers/seed-repos.js";

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
      // update-pull-request.md is read with update-pull-request.yaml, the one Catalyst runs.
      expect(markdown).toHaveLength(8);
      expect(markdown.flatMap((f) => f.errors)).toEqual([]);
    },
  );

  it.each(PLACEMENTS)(
    "every file its own engine accepts loads without an error; its invalid fixture does not (%s)",
    async (p) => {
      const files = await validatePlacement("catalyst", p);
      expect(files).toHaveLength(14);
      const failing = files.filter((f) => f.errors.length > 0).map((f) => f.file.split("/").pop());
      expect(failing).toEqual(["invalid-schema.yaml"]);
    },
  );
});

describe("Mindscape's own repository (HansC-anafter/mindscape-ai-local-core)", () => {
  it.each(PLACEMENTS)("each spec loads once, with its SOP, in each placement (%s)", async (p) => {
    const files = await validatePlacement("mindscape", p);
    // 35 specs and 2 front-matter playbooks; an SOP (and a locale's, `.en.md`) loads with its
    // spec, and the two SOPs without a spec load on their own, as Mindscape's registry loads
    // every SOP of i18n/playbooks/<locale>/.
    expect(files.filter((f) => f.file.endsWith(".json"))).toHaveLength(35);
    const alone = files.filter((f) => f.file.endsWith(".md")).map((f) => f.file.split("/").pop());
    expect(alone).toEqual(["threejs_hero_adjustment.md", "threejs_hero_landing.md"]);
    // Their `{{execution_id}}` is prose for the model, not a template (it was four errors).
    expect(files.flatMap((f) => f.errors)).toEqual([]);
  });
});

describe("Mindscape's SOPs are found from the spec, whatever the working folder", () => {
  const SPEC = "backend/playbooks/specs/grant_scout.json";
  const SOP = "backend/i18n/playbooks/en/grant_scout.md";

  /** The files `validate` of one spec names in its findings, from `cwd`. */
  async function namedFiles(file: string, cwd: string): Promise<string[]> {
    const r = await runCli(["validate", "-f", "json", "--no-library", file], cwd);
    const report = JSON.parse(r.out) as {
      files: { diagnostics: { file?: string; message: string }[] }[];
    };
    const diagnostics = report.files.flatMap((f) => f.diagnostics);
    expect(diagnostics.map((d) => d.message).join("\n")).not.toContain("no SOP");
    return [...new Set(diagnostics.map((d) => (d.file ?? "").split("/").slice(-2).join("/")))];
  }

  it.each([
    ["the spec's own folder", "backend/playbooks/specs", "grant_scout.json"],
    ["the backend folder", "backend", "playbooks/specs/grant_scout.json"],
    ["another folder", undefined, undefined],
  ])("from %s, the spec is read with its SOP's front matter", async (_, at, file) => {
    const { repo } = place("mindscape", "own");
    const cwd = at === undefined ? makeDir("pb-elsewhere-") : join(repo, at);
    const files = await namedFiles(file ?? join(repo, SPEC), cwd);
    expect(files).toContain(SOP.split("/").slice(-2).join("/"));
  });

  it("a run from the spec's own folder takes its SOP too: the silent playbook makes one comment", async () => {
    const { repo } = place("mindscape", "own");
    const events = join(
      ROOT,
      "test/fixtures/dialect-simulations/mindscape-pdf-ocr-and-index.events.yaml",
    );
    const r = await runCli(
      ["simulate", "pdf_ocr_and_index.json", "--events", events],
      join(repo, "backend/playbooks/specs"),
    );
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toContain("**Status:** completed");
    // interaction_mode: silent, from the SOP: the status comment is the bot's only comment.
    expect(r.out.match(/💬 @playbook-bot\[bot\]/g)).toHaveLength(1);
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
