import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { bundledPlaybooks } from "../../../src/adapters/local/library.js";
import { loadSourceText } from "../../../src/core/format/source.js";
import type { PlaybookDocument } from "../../../src/core/format/types.js";
import type { KnownPlaybook } from "../../../src/core/rules/validate.js";
import type { StepVisit, RunAdhoc, RunEvidence } from "../../../src/core/systematise/evidence.js";
import { proposeImprovement, type Improvement } from "../../../src/core/systematise/improve.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import { runCase } from "../../../src/adapters/local/playbook-tests.js";
import { diagnosticsOf } from "./helpers.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const library = (name: string): string => readFileSync(join(root, "playbooks", name), "utf8");
const SCHEMA_COMMENT = "# yaml-language-server: $schema=../schema/playbook.v1.schema.json";

let known: KnownPlaybook[] = [];
beforeAll(async () => {
  known = await bundledPlaybooks();
});

function parse(text: string): PlaybookDocument {
  const r = loadSourceText("p.yaml", text);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.document.value as PlaybookDocument;
}

function propose(text: string, runs: RunEvidence[], adhoc: RunAdhoc[] = [], id?: string) {
  const p = parse(text);
  // A playbook is improved in place: the library it is checked against is the others.
  return proposeImprovement(text, p, runs, adhoc, {
    known: known.filter((k) => k.id !== (id ?? p.id)),
  });
}

function proposed(imp: Improvement | undefined) {
  if (imp?.status !== "proposed") throw new Error(JSON.stringify(imp));
  return imp;
}

/** Every golden case of the changed playbook, through the CLI's runner, with the library. */
async function goldenProblems(playbook: PlaybookDocument): Promise<string[]> {
  const files: Record<string, string> = {};
  for (const f of ["templates/bump.md", "templates/hello.md"])
    files[f] = readFileSync(join(root, "playbooks", f), "utf8");
  const bundles = new Map<string, PlaybookBundle>(
    known.map((k) => [k.id, { playbook: k.playbook, hash: k.id, files }]),
  );
  const bundle: PlaybookBundle = { playbook, hash: "changed", files };
  bundles.set(playbook.id, bundle);
  const out: string[] = [];
  for (const tc of playbook.tests ?? []) {
    const r = await runCase(bundle, (id) => bundles.get(id), tc);
    out.push(...r.problems.map((p) => `${tc.name}: ${p}`));
  }
  return out;
}

/** Lines only in a, and lines only in b (a multiset difference: what an edit removed and added). */
function lineDiff(a: string, b: string): { removed: string[]; added: string[] } {
  const count = (t: string) => {
    const m = new Map<string, number>();
    for (const l of t.split("\n")) m.set(l, (m.get(l) ?? 0) + 1);
    return m;
  };
  const ca = count(a);
  const cb = count(b);
  const only = (x: Map<string, number>, y: Map<string, number>) =>
    [...x].flatMap(([l, n]) => Array(Math.max(0, n - (y.get(l) ?? 0))).fill(l) as string[]);
  return { removed: only(ca, cb).sort(), added: only(cb, ca).sort() };
}

const visit = (step: string, kind: string, extra: Partial<StepVisit> = {}): StepVisit => ({
  step,
  kind,
  status: "completed",
  ...extra,
});

describe("proposeImprovement (a): work by hand where the playbook has no step", () => {
  const triageRun = (n: number, day: number): RunEvidence => ({
    playbook: "alert-triage",
    runId: `t${n}`,
    issue: 100 + n,
    status: "completed",
    path: [
      visit("acknowledge", "comment", { at: `2026-01-0${day}T10:00:00Z` }),
      visit("assess", "investigate", {
        findings: { user_impact: true },
        choice: "impact",
        at: `2026-01-0${day}T10:01:00Z`,
      }),
      visit("escalate", "end", { at: `2026-01-0${day}T10:05:00Z` }),
    ],
  });
  const adhoc: RunAdhoc[] = [
    {
      runId: "t1",
      entries: [
        {
          kind: "note",
          text: "Paged the owners; rolled back the last deploy.",
          actor: "ana",
          at: "2026-01-01T11:00:00Z",
        },
        {
          kind: "record",
          key: "rolled_back",
          value: true,
          actor: "ana",
          at: "2026-01-01T11:01:00Z",
        },
      ],
    },
    {
      runId: "t2",
      entries: [
        {
          kind: "record",
          key: "rolled_back",
          value: false,
          actor: "ben",
          at: "2026-01-02T11:01:00Z",
        },
        {
          kind: "record",
          key: "owner_paged",
          value: true,
          actor: "ben",
          at: "2026-01-02T11:02:00Z",
        },
        {
          kind: "record",
          key: "user_impact",
          value: true,
          actor: "ben",
          at: "2026-01-02T11:03:00Z",
        },
      ],
    },
  ];

  it("adds an investigation where people worked after the run ended, keeping the file as written", async () => {
    const text = library("alert-triage.yaml");
    const imp = proposed(propose(text, [triageRun(1, 1), triageRun(2, 2)], adhoc));
    expect(imp.formatting).toBe("kept");
    expect(imp.changes).toEqual([
      {
        kind: "add-investigation",
        step: "check-rolled_back",
        reason:
          "people recorded rolled_back, owner_paged by hand between assess and escalate in 2 runs, work the playbook has no step for",
        tests: [
          "golden case 'impact escalates': check-rolled_back added to its path, with a /record of its findings",
        ],
      },
    ]);
    expect(imp.yaml.split("\n")[0]).toBe(SCHEMA_COMMENT);
    expect(lineDiff(text, imp.yaml)).toEqual({
      removed: [
        "      - { condition: users are affected now, label: impact, goto: escalate }",
        "    expect: { path: [acknowledge, assess, escalate], status: completed }",
      ].sort(),
      added: [
        "      - { condition: users are affected now, label: impact, goto: check-rolled_back }",
        "  - id: check-rolled_back",
        "    type: investigate",
        "    description: Paged the owners; rolled back the last deploy.",
        "    expected_findings: [rolled_back, owner_paged]",
        "    next: escalate",
        "      - record: { findings: { rolled_back: true, owner_paged: true } }",
        "    expect: { path: [acknowledge, assess, check-rolled_back, escalate], status: completed }",
      ].sort(),
    });
    expect(diagnosticsOf(imp.yaml)).toEqual([]);
    expect(await goldenProblems(imp.playbook)).toEqual([]);
  });

  it("places work by the time it was done, in a nodes: graph, and replays it last where nothing after waits", async () => {
    const text = library("storage-investigation.yaml");
    const run: RunEvidence = {
      playbook: "storage-investigation",
      runId: "s1",
      status: "completed",
      path: [
        visit("claims", "investigate", { choice: "pending", at: "2026-02-01T09:00:00Z" }),
        visit("provisioner", "investigate", {
          findings: { provisioner_error: true },
          at: "2026-02-01T09:10:00Z",
        }),
        visit("conclude", "end", { at: "2026-02-01T09:40:00Z" }),
      ],
    };
    const work: RunAdhoc = {
      runId: "s1",
      entries: [
        {
          kind: "record",
          key: "csi_driver_restarted",
          value: true,
          actor: "a",
          at: "2026-02-01T09:20:00Z",
        },
      ],
    };
    const imp = proposed(propose(text, [run], [work]));
    expect(imp.changes.map((c) => [c.kind, c.step])).toEqual([
      ["add-investigation", "check-csi_driver_restarted"],
    ]);
    const nodes = imp.playbook.nodes ?? {};
    expect(nodes.provisioner?.next).toBe("check-csi_driver_restarted");
    expect(nodes["check-csi_driver_restarted"]).toMatchObject({
      type: "investigate",
      expected_findings: ["csi_driver_restarted"],
      next: "conclude",
    });
    expect(imp.playbook.tests?.[0]?.events?.at(-1)).toEqual({
      record: { findings: { csi_driver_restarted: true } },
    });
    expect(imp.yaml.split("\n")[0]).toBe(SCHEMA_COMMENT);
    expect(await goldenProblems(imp.playbook)).toEqual([]);
  });

  it("puts work done while a run waited before the step it waited at, first when nothing before it waits", async () => {
    const text = library("hello-world.yaml");
    const waiting = (n: number): RunEvidence => ({
      playbook: "hello-world",
      runId: `h${n}`,
      status: "waiting",
      path: [{ step: "approve", kind: "checkpoint", status: "waiting" }],
    });
    const work = (n: number): RunAdhoc => ({
      runId: `h${n}`,
      entries: [
        {
          kind: "record",
          key: "greeting_wanted",
          value: "yes",
          actor: "a",
          at: "2026-02-01T09:20:00Z",
        },
      ],
    });
    const imp = proposed(propose(text, [waiting(1)], [work(1)]));
    expect(imp.playbook.steps?.[0]).toMatchObject({
      id: "check-greeting_wanted",
      expected_findings: ["greeting_wanted"],
    });
    expect(imp.playbook.steps?.[0]).not.toHaveProperty("next");
    const [first, second] = imp.playbook.tests ?? [];
    expect(first?.events?.[0]).toEqual({ record: { findings: { greeting_wanted: "yes" } } });
    expect(first?.expect.path?.[0]).toBe("check-greeting_wanted");
    expect(second?.events?.[0]).toEqual({ record: { findings: { greeting_wanted: "yes" } } });
    expect(await goldenProblems(imp.playbook)).toEqual([]);
  });

  it("does not propose a step whose golden-case replay cannot be placed without running it", () => {
    const text = library("service-triage.yaml");
    const run: RunEvidence = {
      playbook: "service-triage",
      runId: "x1",
      status: "completed",
      path: [
        visit("pod_state", "investigate", { choice: "unhealthy", at: "2026-02-01T09:00:00Z" }),
        visit("pod_logs", "investigate", { at: "2026-02-01T09:05:00Z" }),
        visit("recent_changes", "playbook", { at: "2026-02-01T09:30:00Z" }),
        visit("classify", "decide", { at: "2026-02-01T09:40:00Z" }),
        visit("report", "end", { at: "2026-02-01T09:41:00Z" }),
      ],
    };
    const imp = propose(
      text,
      [run],
      [
        {
          runId: "x1",
          entries: [
            {
              kind: "record",
              key: "heap_dump",
              value: "taken",
              actor: "a",
              at: "2026-02-01T09:10:00Z",
            },
          ],
        },
      ],
    );
    expect(imp?.status).toBe("advice");
    expect(imp && "summary" in imp ? imp.summary.join("\n") : "").toContain(
      "cannot be told without running it",
    );
  });

  it("says what it saw when people recorded only what the playbook already asks for", () => {
    const text = library("alert-triage.yaml");
    const imp = propose(
      text,
      [triageRun(1, 1)],
      [
        {
          runId: "t1",
          entries: [
            {
              kind: "record",
              key: "user_impact",
              value: false,
              actor: "a",
              at: "2026-01-01T11:00:00Z",
            },
          ],
        },
      ],
    );
    expect(imp).toEqual({
      status: "advice",
      summary: [
        "People worked by hand between assess and escalate in 1 run, recording nothing the playbook does not already ask for: no step is proposed for it.",
      ],
    });
  });

  it("keeps people's notes inert in the new step", () => {
    const text = library("alert-triage.yaml");
    const imp = proposed(
      propose(
        text,
        [triageRun(1, 1)],
        [
          {
            runId: "t1",
            entries: [
              {
                kind: "note",
                text: "{{ secrets.TOKEN }} @oncall <!-- x -->\nnext: evil",
                actor: "a",
                at: "2026-01-01T11:00:00Z",
              },
              {
                kind: "record",
                key: "key: {a}",
                value: "${x}",
                actor: "a",
                at: "2026-01-01T11:01:00Z",
              },
            ],
          },
        ],
      ),
    );
    const step = imp.playbook.steps?.find((s) => s.id === "check-key_a");
    expect(step?.description).toBe(
      "{ { secrets.TOKEN }} @\u200boncall &lt;!-- x --&gt;\nnext: evil",
    );
    expect(step).not.toHaveProperty("evil");
    expect(diagnosticsOf(imp.yaml)).toEqual([]);
  });
});

describe("proposeImprovement (b): steps every run skipped", () => {
  // hello-world with a step only some greetings need, which no run has needed.
  const text = library("hello-world.yaml").replace(
    "  - id: branch\n",
    [
      "  # Only the team's own greeting is announced.",
      "  - id: announce",
      "    type: comment",
      "    if: inputs.name == 'team'",
      "    description: Tell the thread the greeting is on its way.",
      "    body: Greeting {{ inputs.name }} shortly.",
      "  - id: branch # a branch for this run",
      "",
    ].join("\n"),
  );
  const run = (n: number, announce: StepVisit["status"] = "skipped"): RunEvidence => ({
    playbook: "hello-world",
    runId: `h${n}`,
    status: "completed",
    path: [
      visit("approve", "checkpoint"),
      { step: "announce", kind: "comment", status: announce },
      visit("branch", "branch"),
      visit("commit", "commit"),
      visit("done", "end"),
    ],
  });

  it("the text given is a valid playbook whose golden cases pass", async () => {
    expect(diagnosticsOf(text)).toEqual([]);
    expect(await goldenProblems(parse(text))).toEqual([]);
  });

  it("removes a step skipped in every completed run, and its comment, leaving the rest as written", async () => {
    const imp = proposed(propose(text, [run(1), run(2), run(3)]));
    expect(imp.changes.map((c) => [c.kind, c.step, c.reason])).toEqual([
      [
        "remove-step",
        "announce",
        "skipped in each of the 3 completed runs (its if: was never true)",
      ],
    ]);
    expect(imp.yaml).toContain("  - id: branch # a branch for this run\n");
    expect(imp.yaml.split("\n")[0]).toBe(SCHEMA_COMMENT);
    expect(lineDiff(text, imp.yaml)).toEqual({
      removed: [
        "  # Only the team's own greeting is announced.",
        "  - id: announce",
        "    type: comment",
        "    if: inputs.name == 'team'",
        "    description: Tell the thread the greeting is on its way.",
        "    body: Greeting {{ inputs.name }} shortly.",
      ].sort(),
      added: [],
    });
    expect(imp.yaml).toBe(
      library("hello-world.yaml").replace(
        "  - id: branch\n",
        "  - id: branch # a branch for this run\n",
      ),
    );
    expect(await goldenProblems(imp.playbook)).toEqual([]);
  });

  it("leaves a step alone once one run entered it, or with fewer than three runs", () => {
    expect(propose(text, [run(1), run(2), run(3, "completed")])).toBeUndefined();
    expect(propose(text, [run(1), run(2)])).toBeUndefined();
  });

  it("says so when removing a never-entered step would break references", () => {
    const text2 = library("alert-high-error-rate.yaml");
    const r = (n: number): RunEvidence => ({
      playbook: "alert-high-error-rate",
      runId: `e${n}`,
      status: "completed",
      path: ["acknowledge", "errors", "changes", "decide", "report"].map((s) => visit(s, "x")),
    });
    const imp = propose(text2, [r(1), r(2), r(3)]);
    expect(imp?.status).toBe("advice");
    const summary = imp && "summary" in imp ? imp.summary : [];
    expect(summary[0]).toBe(
      "rollback was never entered in any of the 3 completed runs; left as it is, for what removing it would affect: the rule 'deploy_regression' of decide; dispatch-rollback reads its outputs; golden cases 'a deploy regression is rolled back after approval', 'an approval without a reason is refused, a rejection reports instead', which go through it.",
    );
  });

  it("falls back to writing the file out again when it cannot be edited in place, and says so", () => {
    const anchored = text.replace(
      "  - id: announce\n    type: comment\n",
      "  - &a\n    id: announce\n    type: comment\n",
    );
    expect(diagnosticsOf(anchored)).toEqual([]);
    const imp = proposed(propose(anchored, [run(1), run(2), run(3)]));
    expect(imp.formatting).toBe("rewritten");
    expect(imp.summary.at(-1)).toContain("its comments and layout are lost");
    expect(imp.playbook.steps?.map((s) => s.id)).toEqual(["approve", "branch", "commit", "done"]);
  });
});

describe("proposeImprovement (c): approvals every run gave", () => {
  const bump = (n: number, decision: "approve" | "reject" = "approve"): RunEvidence => ({
    playbook: "dependency-bump",
    runId: `b${n}`,
    issue: 200 + n,
    status: decision === "approve" ? "completed" : "failed",
    path: [
      {
        step: "approve-plan",
        kind: "checkpoint",
        status: decision === "approve" ? "completed" : "failed",
        approvals: [{ by: n % 2 ? "carol" : "dave", decision, permission: "maintain" }],
      },
      ...(decision === "approve"
        ? ["branch", "commit", "pr", "done"].map((s) => visit(s, "x"))
        : []),
    ],
  });
  const text = library("dependency-bump.yaml").replace(
    "limits: { max_steps: 20, timeout: 7d }\n",
    "limits: { max_steps: 20, timeout: 7d } # a week at most\n",
  );

  it("drops a checkpoint approved in every one of three runs, and adjusts the golden cases", async () => {
    const imp = proposed(propose(text, [bump(1), bump(2), bump(3)]));
    expect(imp.changes).toEqual([
      {
        kind: "lower-approval",
        step: "approve-plan",
        reason:
          "approved in each of the 3 runs that reached it (by 2 people in all) and never refused: the checkpoint is dropped",
        tests: [
          "golden case 'a maintainer approves and the pull request is merged': 3 approve events removed, approve-plan taken out of its path",
          "golden case 'a rate-limited commit is retried': 1 approve event removed, approve-plan taken out of its path",
          "golden case 'a pull request closed without merging fails the run': 1 approve event removed, approve-plan taken out of its path",
          "golden case 'nobody approves within three days' removed: it shows the approval refused or never given",
        ],
      },
    ]);
    expect(imp.yaml.split("\n")[0]).toBe(SCHEMA_COMMENT);
    expect(imp.yaml).toContain("limits: { max_steps: 20, timeout: 7d } # a week at most\n");
    expect(imp.playbook.steps?.map((s) => s.id)).toEqual(["branch", "commit", "pr", "done"]);
    expect(imp.playbook.tests?.map((t) => t.name)).toEqual([
      "a maintainer approves and the pull request is merged",
      "a rate-limited commit is retried",
      "a pull request closed without merging fails the run",
      "an invalid package name never starts a run",
    ]);
    // Everything outside the checkpoint and the golden cases reads as the author wrote it.
    const from = (t: string) => t.slice(t.indexOf("  - id: branch"), t.indexOf("tests:"));
    expect(from(imp.yaml)).toBe(from(text));
    expect(diagnosticsOf(imp.yaml)).toEqual([]);
    expect(await goldenProblems(imp.playbook)).toEqual([]);
  });

  it("proposes nothing when an approval was once refused, or after fewer than three runs", () => {
    expect(propose(text, [bump(1), bump(2), bump(3), bump(4, "reject")])).toBeUndefined();
    expect(propose(text, [bump(1), bump(2)])).toBeUndefined();
  });

  it("lowers an ask-first step to show-me", async () => {
    const askFirst = [
      "apiVersion: playbook-bot/v1",
      "id: tidy",
      "description: Tidies the changelog.",
      "# The commit asks first: it writes to the repository.",
      "steps:",
      "  - id: branch",
      "    type: branch",
      "    description: A branch.",
      "    name: tidy/{{ run.id }}",
      "  - id: commit",
      "    type: commit",
      "    authority: ask-first # until we trust it",
      "    description: The tidy commit.",
      '    branch: "{{ steps.branch.outputs.name }}"',
      "    message: tidy",
      "    files: [{ path: CHANGELOG.md, content: tidy }]",
      "  - { id: done, type: end, description: Done. }",
      "tests:",
      "  - name: approved",
      "    events:",
      "      - approve: { by: maintainer, permission: maintain }",
      "    expect: { path: [branch, commit, done], status: completed }",
      "  - name: refused",
      "    events:",
      "      - reject: { by: maintainer, permission: maintain }",
      "    expect: { path: [branch, commit], status: failed, error: PB-REJECTED }",
      "",
    ].join("\n");
    expect(await goldenProblems(parse(askFirst))).toEqual([]);
    const run = (n: number): RunEvidence => ({
      playbook: "tidy",
      runId: `t${n}`,
      status: "completed",
      path: [
        visit("branch", "branch"),
        visit("commit", "commit", { approvals: [{ by: "mia", decision: "approve" }] }),
        visit("done", "end"),
      ],
    });
    const imp = proposed(propose(askFirst, [run(1), run(2), run(3)]));
    expect(imp.changes[0]?.reason).toContain("lowered from ask-first to show-me");
    expect(imp.yaml).toContain("    authority: show-me # until we trust it\n");
    expect(imp.yaml).toContain("# The commit asks first: it writes to the repository.\n");
    expect(imp.playbook.tests).toEqual([
      {
        name: "approved",
        events: [],
        expect: { path: ["branch", "commit", "done"], status: "completed" },
      },
    ]);
    expect(await goldenProblems(imp.playbook)).toEqual([]);
  });

  it("leaves an approval alone when golden cases approve other steps too, and says why", () => {
    const text2 = library("hello-world.yaml").replace(
      "    type: commit\n",
      "    type: commit\n    authority: ask-first\n",
    );
    const r = (n: number): RunEvidence => ({
      playbook: "hello-world",
      runId: `h${n}`,
      status: "completed",
      path: [
        visit("approve", "checkpoint", { approvals: [{ by: "ann", decision: "approve" }] }),
        visit("branch", "branch"),
        visit("commit", "commit", { approvals: [{ by: "ann", decision: "reject" }] }),
        visit("done", "end"),
      ],
    });
    const imp = propose(text2, [r(1), r(2), r(3)]);
    expect(imp?.status).toBe("advice");
    expect(imp && "summary" in imp ? imp.summary[0] : "").toMatch(
      /^approve was approved in each of the 3 runs .* but golden cases approve steps and the playbook asks for approval at 2 places \(approve, commit\)/,
    );
  });
});

describe("proposeImprovement: nothing to propose, and files it does not change", () => {
  it("returns nothing when the runs show nothing", () => {
    const text = library("alert-triage.yaml");
    expect(propose(text, [])).toBeUndefined();
  });

  it("refuses a playbook that does not validate, and a parsed playbook that is not the text's", () => {
    const bad = "apiVersion: playbook-bot/v1\nid: x\nsteps:\n  - { id: a, type: comit }\n";
    expect(proposeImprovement(bad, parse(bad), [], [])).toMatchObject({ status: "invalid" });
    const text = library("alert-triage.yaml");
    const other = { ...parse(text), description: "changed" };
    expect(proposeImprovement(text, other, [], [])).toMatchObject({
      status: "invalid",
      problems: ["alert-triage.yaml: the playbook given is not the one its text holds"],
    });
  });

  it("counts only runs of this playbook, and only work on those runs", () => {
    const text = library("alert-triage.yaml");
    const imp = propose(
      text,
      [{ playbook: "other", runId: "o1", status: "completed", path: [] }],
      [
        {
          runId: "o1",
          entries: [{ kind: "record", key: "k", value: 1, actor: "a", at: "2026-01-01T00:00:00Z" }],
        },
      ],
    );
    expect(imp).toEqual({
      status: "advice",
      summary: [
        "1 run of other playbooks was not counted.",
        "Work by hand after run o1 is not counted: that run is not among the runs of alert-triage given.",
      ],
    });
  });
});
