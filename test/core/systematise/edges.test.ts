import { describe, expect, it } from "vitest";
import { loadSourceText } from "../../../src/core/format/source.js";
import type { PlaybookDocument } from "../../../src/core/format/types.js";
import { draftPlaybook } from "../../../src/core/systematise/draft.js";
import type {
  IssueEvidence,
  RunAdhoc,
  RunEvidence,
  StepVisit,
} from "../../../src/core/systematise/evidence.js";
import { proposeImprovement } from "../../../src/core/systematise/improve.js";
import { diagnosticsOf, expectPasses, runGoldenCases } from "./helpers.js";

const at = (m: number) => `2026-04-01T10:${String(m).padStart(2, "0")}:00Z`;
const visit = (step: string, kind: string, extra: Partial<StepVisit> = {}): StepVisit => ({
  step,
  kind,
  status: "completed",
  ...extra,
});

function parse(text: string): PlaybookDocument {
  const r = loadSourceText("p.yaml", text);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.document.value as PlaybookDocument;
}

const improve = (text: string, runs: RunEvidence[], adhoc: RunAdhoc[] = []) =>
  proposeImprovement(text, parse(text), runs, adhoc);

const summaryOf = (x: ReturnType<typeof improve>): string =>
  x && "summary" in x ? x.summary.join("\n") : "";

describe("draftPlaybook: more shapes of work", () => {
  it("two merged pull requests get branches of their own; an unmerged one is left out and said so", async () => {
    const e: IssueEvidence = {
      issue: { number: 3, title: "Two fixes", labels: [] },
      adhoc: [{ kind: "record", key: "broken", value: true, actor: "a", at: at(0) }],
      runs: [],
      pullRequests: [
        { number: 10, title: "First fix", merged: true, at: at(5) },
        { number: 0, title: "", merged: true, at: at(6) },
        { number: 12, title: "Abandoned", merged: false },
      ],
    };
    const r = draftPlaybook(e, "two-fixes");
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.playbook.steps?.map((s) => s.id)).toEqual([
      "check-broken",
      "pr-10-branch",
      "pr-10-commit",
      "pr-10",
      "pr-3-branch",
      "pr-3-commit",
      "pr-3",
      "done",
    ]);
    const names = r.playbook.steps
      ?.filter((s) => s.type === "branch")
      .map((s) => (s as { name: string }).name);
    expect(names).toEqual([
      "playbook/two-fixes-10-{{ run.id }}",
      "playbook/two-fixes-3-{{ run.id }}",
    ]);
    expect(r.playbook.steps?.[6]).toMatchObject({ title: "The change of two-fixes" });
    expect(r.summary.join("\n")).toContain(
      "Pull requests linked but not merged are left out: #12.",
    );
    expectPasses(await runGoldenCases(r.playbook));
  });

  it("bounds the draft: steps, findings a step, entries read", () => {
    const many = Array.from({ length: 30 }, (_, i) => ({
      kind: "record" as const,
      key: `k${i}`,
      value: i,
      actor: "a",
      at: at(0),
    }));
    const notes = Array.from({ length: 10 }, (_, i) => [
      { kind: "note" as const, text: `step ${i}`, actor: "a", at: at(i + 1) },
      { kind: "record" as const, key: `n${i}`, value: i, actor: "a", at: at(i + 1) },
    ]).flat();
    const r = draftPlaybook(
      {
        issue: { number: 1, title: "Big", labels: [] },
        adhoc: [...many, ...notes],
        runs: [],
        pullRequests: [],
      },
      "big",
      { limits: { maxSteps: 5, maxFindingsPerStep: 10, maxEntries: 40 } },
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.playbook.steps).toHaveLength(5);
    expect(
      (r.playbook.steps?.[0] as { expected_findings: string[] }).expected_findings,
    ).toHaveLength(10);
    const summary = r.summary.join("\n");
    expect(summary).toContain("20 findings beyond 10 a step left out.");
    expect(summary).toContain("later pieces of work left out: a draft has at most 5 steps.");
    expect(summary).toContain("Only the first 40 entries of the issue were read.");
  });

  it("a prose choice of a delegating step in a run becomes a choice; engine-decided branches do not", () => {
    const r = draftPlaybook(
      {
        repo: { owner: "acme", name: "bad name!" },
        issue: { number: 8, title: "Choice", labels: ["Team-A", "team-a", "p1"] },
        adhoc: [],
        runs: [
          {
            playbook: "parent",
            runId: "r",
            status: "completed",
            path: [
              visit("ask", "playbook", {
                choice: "deeper",
                condition: "the child found something",
                at: at(1),
              }),
              visit("route", "decide", { choice: "fast", at: at(2) }),
              visit("child/look", "investigate", { findings: { hidden: 1 }, at: at(1) }),
              visit("skipped-one", "investigate", { status: "skipped", findings: { no: 1 } }),
            ],
          },
        ],
        pullRequests: [],
      },
      "choice",
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.playbook.steps?.[0]).toMatchObject({
      id: "choose-deeper",
      next: [{ condition: "the child found something", label: "deeper" }, { label: "other" }],
    });
    expect(r.playbook.steps?.[0]?.description).toContain("issue #8");
    expect(r.playbook.on).toEqual({ labels: ["Team-A"] });
    expect(r.summary.join("\n")).toContain("not repeated: 1 decide");
  });

  it("a choice labelled other keeps its way out distinct", () => {
    const r = draftPlaybook(
      {
        issue: { number: 2, title: "", labels: [] },
        adhoc: [{ kind: "choice", label: "other", actor: "a", at: at(1) }],
        runs: [],
        pullRequests: [],
      },
      "labels",
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.playbook.name).toBe("labels");
    expect(r.playbook.steps?.[0]?.next).toMatchObject([
      { label: "other", condition: "other, the way taken on issue #2" },
      { label: "something-else" },
    ]);
    expect(diagnosticsOf(r.yaml)).toEqual([]);
  });

  it("a person's last vote counts: approve after reject is an approval", () => {
    const r = draftPlaybook(
      {
        issue: { number: 2, title: "Votes", labels: [] },
        adhoc: [
          { kind: "approval", by: "kim", decision: "reject", permission: "write", at: at(1) },
          { kind: "approval", by: "kim", decision: "approve", permission: "write", at: at(2) },
        ],
        runs: [],
        pullRequests: [],
      },
      "votes",
    );
    expect(r.ok && r.playbook.steps?.[0]).toMatchObject({
      type: "checkpoint",
      approvers: { permission: "write", count: 1 },
    });
  });
});

describe("proposeImprovement: more shapes of playbooks", () => {
  const gated = [
    "apiVersion: playbook-bot/v1",
    "id: gated",
    "description: A gate, then work, in a graph.",
    "entrypoint: gate # start here",
    "nodes:",
    "  gate:",
    "    type: checkpoint",
    "    description: Approve.",
    "    message: Go?",
    "    next: work",
    "  work:",
    "    type: investigate",
    "    description: Look.",
    "    expected_findings: [seen]",
    "tests:",
    "  - name: goes",
    "    events: [{ approve: { by: m, permission: write } }, { record: { findings: { seen: 1 } } }]",
    "    expect: { path: [gate, work], status: completed }",
    "",
  ].join("\n");
  const gatedRun = (n: number): RunEvidence => ({
    playbook: "gated",
    runId: `g${n}`,
    status: "completed",
    path: [
      visit("gate", "checkpoint", { approvals: [{ by: "m", decision: "approve" }] }),
      visit("work", "investigate"),
    ],
  });

  it("drops a graph's entry checkpoint: the entrypoint moves to what followed it", async () => {
    expect(diagnosticsOf(gated).filter((d) => d.startsWith("error"))).toEqual([]);
    expectPasses(await runGoldenCases(parse(gated)));
    const imp = improve(gated, [gatedRun(1), gatedRun(2), gatedRun(3)]);
    if (imp?.status !== "proposed") throw new Error(JSON.stringify(imp));
    expect(imp.yaml).toContain("entrypoint: work # start here\n");
    expect(Object.keys(imp.playbook.nodes ?? {})).toEqual(["work"]);
    expect(imp.playbook.tests?.[0]).toMatchObject({
      events: [{ record: { findings: { seen: 1 } } }],
      expect: { path: ["work"] },
    });
    expectPasses(await runGoldenCases(imp.playbook));
  });

  it("adds work after a graph's last step by giving it a next", async () => {
    const imp = improve(
      gated,
      [gatedRun(1)],
      [
        {
          runId: "g1",
          entries: [{ kind: "record", key: "fixed", value: "yes", actor: "a", at: at(9) }],
        },
      ],
    );
    if (imp?.status !== "proposed") throw new Error(JSON.stringify(imp));
    expect(imp.playbook.nodes?.work?.next).toBe("check-fixed");
    expect(imp.playbook.nodes?.["check-fixed"]).toMatchObject({ expected_findings: ["fixed"] });
    expect(imp.playbook.tests?.[0]?.expect.path).toEqual(["gate", "work", "check-fixed"]);
    expectPasses(await runGoldenCases(imp.playbook));
  });

  it("puts work done while a graph waited at its entry first, moving the entrypoint", async () => {
    const waiting: RunEvidence = {
      playbook: "gated",
      runId: "w",
      status: "waiting",
      path: [{ step: "gate", kind: "checkpoint", status: "waiting" }],
    };
    const imp = improve(
      gated,
      [waiting],
      [
        {
          runId: "w",
          entries: [{ kind: "record", key: "ticket", value: "OPS-1", actor: "a", at: at(1) }],
        },
      ],
    );
    if (imp?.status !== "proposed") throw new Error(JSON.stringify(imp));
    expect(imp.yaml).toContain("entrypoint: check-ticket # start here\n");
    expect(imp.playbook.nodes?.["check-ticket"]).toMatchObject({ next: "gate" });
    expect(imp.playbook.tests?.[0]?.events?.[0]).toEqual({
      record: { findings: { ticket: "OPS-1" } },
    });
    expectPasses(await runGoldenCases(imp.playbook));
  });

  it("gives a golden case without events the /record it needs", async () => {
    const text = [
      "apiVersion: playbook-bot/v1",
      "id: quiet",
      "description: Says and ends.",
      "steps:",
      "  - { id: say, type: comment, description: Say., body: hello }",
      "  - { id: done, type: end, description: Done. }",
      "tests:",
      "  - name: ends",
      "    expect: { path: [say, done], status: completed }",
      "",
    ].join("\n");
    const run: RunEvidence = {
      playbook: "quiet",
      runId: "q",
      status: "completed",
      path: [visit("say", "comment"), visit("done", "end")],
    };
    const imp = improve(
      text,
      [run],
      [
        {
          runId: "q",
          entries: [{ kind: "record", key: "answered", value: true, actor: "a", at: at(1) }],
        },
      ],
    );
    if (imp?.status !== "proposed") throw new Error(JSON.stringify(imp));
    expect(imp.playbook.tests?.[0]).toEqual({
      name: "ends",
      events: [{ record: { findings: { answered: true } } }],
      expect: { path: ["say", "check-answered", "done"], status: "completed" },
    });
    expect(imp.yaml).toContain(
      "  - name: ends\n    events:\n      - record: { findings: { answered: true } }\n",
    );
    expectPasses(await runGoldenCases(imp.playbook));
  });

  it("does not propose a change that would not validate, and says so", () => {
    const text = [
      "apiVersion: playbook-bot/v1",
      "id: refusable",
      "description: A refusal has its own end.",
      "steps:",
      "  - { id: ok, type: checkpoint, description: Approve., message: Go?, on_reject: refused }",
      "  - { id: done, type: end, description: Done. }",
      "  - { id: refused, type: end, status: neutral, description: Refused. }",
      "",
    ].join("\n");
    const run = (n: number): RunEvidence => ({
      playbook: "refusable",
      runId: `r${n}`,
      status: "completed",
      path: [
        visit("ok", "checkpoint", { approvals: [{ by: "x", decision: "approve" }] }),
        visit("done", "end"),
      ],
    });
    const imp = improve(text, [run(1), run(2), run(3)]);
    expect(imp?.status).toBe("advice");
    expect(summaryOf(imp)).toMatch(
      /^Not proposed: lower-approval ok \(.*\) — the playbook would not validate: .*'refused' can never be reached/,
    );
  });

  it("lowers a step that asks first by the playbook's default with an authority of its own", () => {
    const text = [
      "apiVersion: playbook-bot/v1",
      "id: tidy",
      "description: Tidy.",
      "authority: { default: ask-first }",
      "steps:",
      "  - id: label",
      "    type: label",
      "    description: Label it.",
      "    add: [tidy]",
      "  - { id: done, type: end, description: Done. }",
      "",
    ].join("\n");
    const run = (n: number): RunEvidence => ({
      playbook: "tidy",
      runId: `t${n}`,
      status: "completed",
      path: [
        visit("label", "label", { approvals: [{ by: "x", decision: "approve" }] }),
        visit("done", "end"),
      ],
    });
    const imp = improve(text, [run(1), run(2), run(3)]);
    if (imp?.status !== "proposed") throw new Error(JSON.stringify(imp));
    expect(imp.yaml).toContain("    type: label\n    authority: show-me\n");
  });

  it("keeps a checkpoint whose outputs are read, and says why", () => {
    const text = [
      "apiVersion: playbook-bot/v1",
      "id: reads",
      "description: Reads the approval.",
      "steps:",
      "  - { id: ok, type: checkpoint, description: Approve., message: Go? }",
      "  - { id: say, type: comment, description: Say., body: 'Approved by {{ steps.ok.outputs.approved_by }}' }",
      "",
    ].join("\n");
    const run = (n: number): RunEvidence => ({
      playbook: "reads",
      runId: `r${n}`,
      status: "completed",
      path: [
        visit("ok", "checkpoint", { approvals: [{ by: "x", decision: "approve" }] }),
        visit("say", "comment"),
      ],
    });
    const imp = improve(text, [run(1), run(2), run(3)]);
    expect(imp?.status).toBe("advice");
    expect(summaryOf(imp)).toContain("but say reads its outputs — left as it is.");
  });

  it("says where work by hand cannot be placed: no step entered, a run stopped midway, a needs: list", () => {
    const text = [
      "apiVersion: playbook-bot/v1",
      "id: line",
      "description: A line of steps.",
      "steps:",
      "  - { id: a, type: investigate, description: A., expected_findings: [x] }",
      "  - { id: b, type: investigate, description: B., expected_findings: [y] }",
      "  - { id: c, type: end, description: C. }",
      "",
    ].join("\n");
    const runs: RunEvidence[] = [
      { playbook: "line", runId: "empty", status: "completed", path: [] },
      { playbook: "line", runId: "mid", status: "cancelled", path: [visit("a", "investigate")] },
    ];
    const work = (runId: string): RunAdhoc => ({
      runId,
      entries: [{ kind: "record", key: "z", value: 1, actor: "a", at: at(1) }],
    });
    const imp = improve(text, runs, [work("empty"), work("mid")]);
    const s = summaryOf(imp);
    expect(s).toContain("run empty entered no step of the playbook");
    expect(s).toContain("run mid stopped at a, which does not end the playbook");

    const dag = text
      .replace("  - { id: b, type: investigate,", "  - { id: b, needs: [a], type: investigate,")
      .replace(
        "  - { id: c, type: end, description: C. }",
        "  - { id: c, needs: [b], type: comment, description: C., body: c }",
      );
    expect(diagnosticsOf(dag).filter((d) => d.startsWith("error"))).toEqual([]);
    const failed: RunEvidence = {
      playbook: "line",
      runId: "f",
      status: "failed",
      path: [visit("a", "investigate"), visit("b", "investigate", { status: "failed" })],
    };
    expect(summaryOf(improve(dag, [failed], [work("f")]))).toContain(
      "a step for it cannot be added: the steps run by needs:",
    );
  });

  it("places work before the step a failed run stopped at, re-pointing a goto", () => {
    const text = [
      "apiVersion: playbook-bot/v1",
      "id: jump",
      "description: Jumps.",
      "steps:",
      "  - { id: a, type: investigate, description: A., expected_findings: [x], next: c }",
      "  - { id: b, type: end, description: B. }",
      "  - { id: c, type: investigate, description: C., expected_findings: [y], next: b }",
      "",
    ].join("\n");
    const run: RunEvidence = {
      playbook: "jump",
      runId: "f",
      status: "failed",
      path: [visit("a", "investigate"), visit("c", "investigate", { status: "failed" })],
    };
    const imp = improve(
      text,
      [run],
      [
        {
          runId: "f",
          entries: [
            { kind: "note", text: "Checked the logs.", actor: "a", at: at(1) },
            { kind: "record", key: "logs", value: "clean", actor: "a", at: at(1) },
          ],
        },
      ],
    );
    if (imp?.status !== "proposed") throw new Error(JSON.stringify(imp));
    expect(imp.playbook.steps?.map((s) => [s.id, s.next])).toEqual([
      ["a", "check-logs"],
      ["check-logs", "c"],
      ["b", undefined],
      ["c", "b"],
    ]);
    expect(imp.playbook.steps?.[1]?.description).toBe("Checked the logs.");
    expect(imp.yaml).toContain(
      "  - { id: a, type: investigate, description: A., expected_findings: [x], next: check-logs }\n",
    );
  });

  it("refuses a file in another system's dialect", () => {
    const triagent = [
      "id: t",
      "type: investigation",
      "symptom: s",
      "description: d",
      "entrypoint: a",
      "nodes:",
      "  a:",
      "    description: look",
      "    terminal_advice: done",
      "",
    ].join("\n");
    const r = proposeImprovement(triagent, parse(triagent), [], [], { file: "t.yaml" });
    expect(r?.status).toBe("invalid");
  });
});
