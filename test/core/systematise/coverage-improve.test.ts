import { describe, expect, it } from "vitest";
import { loadSourceText } from "../../../src/core/format/source.js";
import type { PlaybookDocument } from "../../../src/core/format/types.js";
import type {
  AdhocEntry,
  RunAdhoc,
  RunEvidence,
  StepVisit,
} from "../../../src/core/systematise/evidence.js";
import {
  proposeImprovement,
  type ImprovementOptions,
} from "../../../src/core/systematise/improve.js";
import { diagnosticsOf } from "./helpers.js";

const at = (m: number) => `2026-04-01T10:${String(m).padStart(2, "0")}:00Z`;
const visit = (step: string, kind: string, extra: Partial<StepVisit> = {}): StepVisit => ({
  step,
  kind,
  status: "completed",
  ...extra,
});
const approved = (step: string, kind = "checkpoint"): StepVisit =>
  visit(step, kind, { approvals: [{ by: "x", decision: "approve" }] });

function parse(text: string): PlaybookDocument {
  const r = loadSourceText("p.yaml", text);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.document.value as PlaybookDocument;
}

/** The playbook must validate as written: every refusal below is the improver's, not the validator's. */
function improve(
  text: string,
  runs: RunEvidence[],
  adhoc: RunAdhoc[] = [],
  o: ImprovementOptions = {},
) {
  expect(diagnosticsOf(text).filter((d) => d.startsWith("error"))).toEqual([]);
  return proposeImprovement(text, parse(text), runs, adhoc, o);
}

const summaryOf = (x: ReturnType<typeof improve>): string[] =>
  x && "summary" in x ? x.summary : [];

const lines = (...l: string[]) => [...l, ""].join("\n");
const head = (id: string, ...extra: string[]) => [
  "apiVersion: playbook-bot/v1",
  `id: ${id}`,
  "description: D.",
  ...extra,
];
const record = (key: string, m?: number): AdhocEntry =>
  m === undefined
    ? ({ kind: "record", key, value: 1, actor: "a" } as unknown as AdhocEntry)
    : { kind: "record", key, value: 1, actor: "a", at: at(m) };

describe("proposeImprovement: what it is given", () => {
  it("names the file playbook.yaml when the id cannot name it", () => {
    const r = proposeImprovement("x: [", { id: "%%" } as unknown as PlaybookDocument, [], []);
    expect(r?.status).toBe("invalid");
    expect(r && "problems" in r ? r.problems[0] : "").toMatch(/^playbook\.yaml:/);
  });

  it("reads runs and work by hand that are not lists as none: nothing to tell", () => {
    const text = lines(
      ...head("simple"),
      "steps:",
      "  - { id: a, type: comment, description: A., body: a }",
      "  - { id: done, type: end, description: D. }",
    );
    expect(
      improve(text, null as unknown as RunEvidence[], null as unknown as RunAdhoc[]),
    ).toBeUndefined();
  });
});

describe("proposeImprovement: steps every run skipped, kept for what names them", () => {
  it("keeps a skipped step that has a next: of its own and that the playbook's outputs read", () => {
    const text = lines(
      ...head("sk"),
      "steps:",
      "  - id: a",
      "    type: investigate",
      "    description: A.",
      "    next:",
      "      - { condition: p, label: p, goto: b }",
      "      - { condition: q, label: q, goto: c }",
      "  - { id: b, type: comment, description: B., body: hi, next: d }",
      "  - { id: c, type: comment, description: C., body: c }",
      "  - { id: d, type: end, description: D. }",
      "outputs:",
      "  url: '{{ steps.b.outputs.url }}'",
      "tests:",
      "  - name: no path",
      "    expect: { status: completed }",
    );
    const run = (n: number): RunEvidence => ({
      playbook: "sk",
      runId: `s${n}`,
      status: "completed",
      path: [
        visit("a", "investigate"),
        visit("b", "comment", { status: "skipped" }),
        visit("c", "comment"),
        visit("d", "end"),
      ],
    });
    const r = improve(text, [run(1), run(2)], [], { minRuns: 2 });
    expect(r?.status).toBe("advice");
    expect(summaryOf(r)).toEqual([
      "b was skipped in each of the 2 completed runs (its if: was never true); left as it is, for what removing it would affect: the branch 'p' of a; the playbook's outputs read it; it has a next: of its own, which the step before it would lose.",
    ]);
  });

  it("keeps a step after a parallel step, which its branches join", () => {
    const text = lines(
      ...head("joined"),
      "steps:",
      "  - id: par",
      "    type: parallel",
      "    description: P.",
      "    branches:",
      "      one:",
      "        - { id: c1, type: comment, description: C., body: c }",
      "      two:",
      "        - { id: c2, type: comment, description: C., body: c }",
      "  - { id: after, type: comment, description: A., body: a }",
      "  - { id: done, type: end, description: D. }",
    );
    const run: RunEvidence = {
      playbook: "joined",
      runId: "j",
      status: "completed",
      path: [
        visit("par", "parallel"),
        visit("c1", "comment"),
        visit("c2", "comment"),
        visit("done", "end"),
      ],
    };
    const s = summaryOf(improve(text, [run], [], { minRuns: 1 }));
    expect(s).toHaveLength(1);
    expect(s[0]).toMatch(
      /^after was never entered in any of the 1 completed runs; left as it is, for what removing it would affect: a join edge from c\d; a join edge from c\d\.$/,
    );
  });
});

describe("proposeImprovement: approvals every run gave, kept where they cannot go", () => {
  const okRun = (pb: string, after: StepVisit[], before: StepVisit[] = []): RunEvidence => ({
    playbook: pb,
    runId: "1",
    status: "completed",
    path: [...before, approved("ok"), ...after],
  });
  const kept = (why: string) =>
    `ok was approved in each of the 1 run that reached it (by 1 person in all) and never refused, so it could be lowered, but ${why} — left as it is.`;

  it("keeps a checkpoint that branches", () => {
    const text = lines(
      ...head("br"),
      "steps:",
      "  - id: ok",
      "    type: checkpoint",
      "    description: Ok.",
      "    message: Go?",
      "    next:",
      "      - { condition: yes, label: y, goto: done }",
      "      - { condition: no, label: n, goto: other }",
      "  - { id: done, type: end, description: D. }",
      "  - { id: other, type: end, description: O. }",
    );
    expect(
      summaryOf(improve(text, [okRun("br", [visit("done", "end")])], [], { minRuns: 1 })),
    ).toEqual([kept("it branches (next: is a list)")]);
  });

  it("keeps a checkpoint with a next: of its own, and one that a failed run left refused", () => {
    const text = lines(
      ...head("own"),
      "steps:",
      "  - id: a",
      "    type: investigate",
      "    description: A.",
      "    next:",
      "      - { condition: p, label: p, goto: ok }",
      "      - { condition: q, label: q, goto: mid }",
      "  - { id: ok, type: checkpoint, description: Ok., message: Go?, next: done }",
      "  - { id: mid, type: comment, description: M., body: m }",
      "  - { id: done, type: end, description: D. }",
    );
    const good = okRun("own", [visit("done", "end")], [visit("a", "investigate")]);
    const s = summaryOf(improve(text, [good], [], { minRuns: 1 }));
    expect(s).toContain(kept("it has a next: of its own, which the step before it would lose"));
    const failed: RunEvidence = {
      playbook: "own",
      runId: "f",
      status: "failed",
      path: [visit("a", "investigate"), visit("ok", "checkpoint", { status: "failed" })],
    };
    const s2 = summaryOf(improve(text, [good, failed], [], { minRuns: 1 }));
    expect(s2.some((l) => l.startsWith("ok was"))).toBe(false);
  });

  it("keeps a graph's checkpoint that ends the playbook", () => {
    const text = lines(
      ...head("ne"),
      "entrypoint: s",
      "nodes:",
      "  s: { type: comment, description: S., body: s, next: ok }",
      "  ok: { type: checkpoint, description: Ok., message: Go? }",
    );
    expect(
      summaryOf(improve(text, [okRun("ne", [], [visit("s", "comment")])], [], { minRuns: 1 })),
    ).toEqual([kept("it ends the playbook")]);
  });

  it("keeps a last step that other steps go to", () => {
    const text = lines(
      ...head("ls"),
      "steps:",
      "  - id: a",
      "    type: investigate",
      "    description: A.",
      "    next:",
      "      - { condition: p, label: p, goto: ok }",
      "      - { condition: q, label: q, goto: e }",
      "  - { id: e, type: end, description: E. }",
      "  - { id: ok, type: checkpoint, description: Ok., message: Go? }",
    );
    expect(
      summaryOf(improve(text, [okRun("ls", [], [visit("a", "investigate")])], [], { minRuns: 1 })),
    ).toEqual([kept("it is the last step")]);
  });

  const parallel = (id: string, first: string, second: string, after: string) =>
    lines(
      ...head(id),
      "steps:",
      "  - id: par",
      "    type: parallel",
      "    description: P.",
      "    branches:",
      "      one:",
      `        - ${first}`,
      "      two:",
      `        - ${second}`,
      ...(after ? [`  - ${after}`] : []),
      "  - { id: done, type: end, description: D. }",
    );

  it("keeps a checkpoint its parallel branches join, and one inside a branch", () => {
    const join = parallel(
      "ap",
      "{ id: c1, type: comment, description: C., body: c }",
      "{ id: c2, type: comment, description: C., body: c }",
      "{ id: ok, type: checkpoint, description: Ok., message: Go? }",
    );
    expect(
      summaryOf(
        improve(join, [okRun("ap", [visit("done", "end")], [visit("par", "parallel")])], [], {
          minRuns: 1,
        }),
      ),
    ).toEqual([kept("a step goes to it in a way that cannot be re-pointed")]);
    const inside = parallel(
      "ip",
      "{ id: ok, type: checkpoint, description: Ok., message: Go? }",
      "{ id: c2, type: comment, description: C., body: c }",
      "",
    );
    const s = summaryOf(
      improve(
        inside,
        [okRun("ip", [visit("c2", "comment"), visit("done", "end")], [visit("par", "parallel")])],
        [],
        {
          minRuns: 1,
        },
      ),
    );
    expect(s[0]).toMatch(/^ok was .* but it is inside a parallel branch; /);
  });

  it("keeps approvals asked for by a playbook-wide setting", () => {
    const step = (id: string, ...extra: string[]) =>
      lines(
        ...head(id, ...extra),
        "steps:",
        "  - { id: say, type: comment, description: S., body: hi, authority: show-me }",
        "  - { id: done, type: end, description: D. }",
      );
    const run = (pb: string): RunEvidence => ({
      playbook: pb,
      runId: "1",
      status: "completed",
      path: [approved("say", "comment"), visit("done", "end")],
    });
    const why =
      "say was approved in each of the 1 run that reached it (by 1 person in all) and never refused, so it could be lowered, but its approval comes from a playbook-wide setting (interaction_mode or ask_first_below) — left as it is.";
    expect(
      summaryOf(
        improve(step("below", "authority: { ask_first_below: admin }"), [run("below")], [], {
          minRuns: 1,
        }),
      ),
    ).toEqual([why]);
    expect(
      summaryOf(
        improve(step("review", "interaction_mode: [needs_review]"), [run("review")], [], {
          minRuns: 1,
        }),
      ),
    ).toEqual([why]);
  });

  const gate = (...tests: string[]) =>
    lines(
      ...head("gate"),
      "steps:",
      "  - { id: ok, type: checkpoint, description: Ok., message: Go? }",
      "  - { id: done, type: end, description: D. }",
      "tests:",
      ...tests,
    );
  const gateRun: RunEvidence = {
    playbook: "gate",
    runId: "g",
    status: "completed",
    path: [approved("ok"), visit("ok", "checkpoint"), visit("done", "end")],
  };

  it("drops a checkpoint from cases without approve events, and removes a case that waits for it", () => {
    const r = improve(
      gate(
        "  - name: approves",
        "    events: [{ approve: { by: m, permission: write } }, { record: { findings: {} } }]",
        "    expect: { path: [ok, done], status: completed }",
        "  - name: no events",
        "    expect: { path: [ok, done], status: completed }",
        "  - name: waits",
        "    events: [{ wait: 1h }]",
        "    expect: { path: [], status: waiting }",
      ),
      [gateRun],
      [],
      { minRuns: 1 },
    );
    if (r?.status !== "proposed") throw new Error(JSON.stringify(r));
    expect(r.changes[0]?.tests).toEqual([
      "golden case 'approves': 1 approve event removed, ok taken out of its path",
      "golden case 'no events': ok taken out of its path",
      "golden case 'waits' removed: it shows the approval refused or never given",
    ]);
    expect(r.playbook.tests?.map((t) => [t.name, t.events, t.expect.path])).toEqual([
      ["approves", [{ record: { findings: {} } }], ["done"]],
      ["no events", undefined, ["done"]],
    ]);
  });

  it("removes the tests: entry when every case showed the approval refused", () => {
    const r = improve(
      gate(
        "  - name: rejects",
        "    events: [{ reject: { by: m, permission: write } }]",
        "    expect: { path: [ok], status: completed }",
      ),
      [gateRun],
      [],
      { minRuns: 1 },
    );
    if (r?.status !== "proposed") throw new Error(JSON.stringify(r));
    expect(r.yaml).not.toContain("tests:");
    expect(r.playbook.tests).toBeUndefined();
    expect(r.changes[0]?.tests).toEqual([
      "golden case 'rejects' removed: it shows the approval refused or never given",
    ]);
  });
});

describe("proposeImprovement: where work by hand goes", () => {
  it("says what it did not count, placed, or found nothing new in", () => {
    const text = lines(
      ...head("line"),
      "steps:",
      "  - { id: a, type: investigate, description: A. }",
      "  - { id: b, type: investigate, description: B., expected_findings: [y] }",
      "  - { id: c, type: end, description: C. }",
      "tests:",
      "  - name: refused inputs",
      "    expect: { status: failed }",
      "  - name: no path",
      "    events: [{ record: { findings: { y: 1 } } }]",
      "    expect: { status: completed }",
    );
    const run = (
      id: string,
      path: StepVisit[],
      status: RunEvidence["status"] = "completed",
    ): RunEvidence => ({
      playbook: "line",
      runId: id,
      status,
      path,
    });
    const r = improve(
      text,
      [
        run("r1", [
          visit("a", "i", { at: at(1) }),
          visit("b", "i", { at: at(5) }),
          visit("c", "end", { at: at(6) }),
        ]),
        run("r2", [visit("b", "i", { at: at(10) })], "waiting"),
        run("r3", [visit("a", "i", { at: at(1) }), visit("c", "end", { at: at(5) })]),
        { playbook: "other", runId: "o1", status: "completed", path: [] },
        { playbook: "other", runId: "o2", status: "completed", path: [] },
      ],
      [
        null as unknown as RunAdhoc,
        { runId: "r1", entries: "x" as unknown as AdhocEntry[] },
        {
          runId: "r1",
          entries: [
            null as unknown as AdhocEntry,
            { kind: "note", actor: "a", at: at(2) } as unknown as AdhocEntry,
            { kind: "note", text: "Looked at y.", actor: "a", at: at(2) },
            record("y", 3),
          ],
        },
        { runId: "r2", entries: [record("z", 9)] },
        { runId: "r3", entries: [record("w", 3), record("w", 3)] },
      ],
      { maxFindings: 5 },
    );
    expect(r?.status).toBe("advice");
    expect(summaryOf(r)).toEqual([
      "2 runs of other playbooks were not counted.",
      "Work by hand after run undefined is not counted: that run is not among the runs of line given.",
      "People worked by hand between a and b in 1 run ('Looked at y.'), recording nothing the playbook does not already ask for: no step is proposed for it.",
      "People recorded z by hand before b, where the playbook starts in 1 run, but a step for it cannot be added: the run started at b, not where the playbook starts.",
      "People recorded w by hand between a and c in 1 run, but a step for it cannot be added: the playbook has no way from a to c (a run of another version?).",
    ]);
  });

  const chain = (...extra: string[]) =>
    lines(
      ...head("chain", ...extra),
      "steps:",
      "  - { id: say, type: comment, description: S., body: hi }",
      "  - { id: d, type: dispatch, description: D., workflow: x.yml, wait: false }",
      "  - { id: pr, type: pull_request, description: P., head: fix, title: Fix }",
      "  - { id: think, type: ai, description: T., prompt: Think., scope: read-only }",
      "  - { id: done, type: end, description: D. }",
      "tests:",
      "  - name: goes",
      "    events: []",
      "    expect: { path: [say, d, pr, think, done], status: completed }",
    );
  const chainRun: RunEvidence = {
    playbook: "chain",
    runId: "c",
    status: "completed",
    path: ["say", "d", "pr", "think", "done"].map((st, k) => visit(st, "x", { at: at(k * 2) })),
  };
  const chainWork: RunAdhoc[] = [{ runId: "c", entries: [record("seen", 7)] }];

  it("puts the /record first when no step before it can wait (a comment, a dispatch not waited for, an unmerged pull request, a read-only ai)", () => {
    const r = improve(chain(), [chainRun], chainWork);
    if (r?.status !== "proposed") throw new Error(JSON.stringify(r));
    expect(r.yaml).toContain(
      "    events: [{ record: { findings: { seen: 1 } } }]\n    expect: { path: [say, d, pr, think, check-seen, done], status: completed }\n",
    );
    expect(r.playbook.steps?.map((s) => s.id)).toEqual([
      "say",
      "d",
      "pr",
      "think",
      "check-seen",
      "done",
    ]);
  });

  it("puts the /record last when only steps before it may ask first", () => {
    const r = improve(chain("authority: { default: ask-first }"), [chainRun], chainWork);
    if (r?.status !== "proposed") throw new Error(JSON.stringify(r));
    expect(r.playbook.tests?.[0]?.events).toEqual([{ record: { findings: { seen: 1 } } }]);
  });

  it("does not propose the step where a playbook-wide setting makes every step wait", () => {
    const why =
      "People recorded seen by hand between think and done in 1 run, but the step is not proposed: golden case 'goes' passes there, and where its /record would go cannot be told without running it.";
    expect(
      summaryOf(improve(chain("interaction_mode: [needs_review]"), [chainRun], chainWork)),
    ).toEqual([why]);
    expect(
      summaryOf(improve(chain("authority: { ask_first_below: write }"), [chainRun], chainWork)),
    ).toEqual([why]);
  });

  it("does not place work after a step that also falls through elsewhere", () => {
    const text = lines(
      ...head("when"),
      "inputs:",
      "  fast: { type: boolean, default: false, description: F. }",
      "steps:",
      "  - id: a",
      "    type: investigate",
      "    description: A.",
      "    next:",
      "      - { when: inputs.fast, goto: c }",
      "  - { id: b, type: comment, description: B., body: b }",
      "  - { id: c, type: end, description: C. }",
    );
    const run: RunEvidence = {
      playbook: "when",
      runId: "w",
      status: "completed",
      path: [visit("a", "i", { at: at(1) }), visit("c", "end", { at: at(5) })],
    };
    expect(summaryOf(improve(text, [run], [{ runId: "w", entries: [record("n", 3)] }]))).toEqual([
      "People recorded n by hand between a and c in 1 run, but a step for it cannot be added: a also falls through to another step, which a step after it would take over.",
    ]);
  });

  it("does not put a first step before a case whose run does not start there", () => {
    const text = lines(
      ...head("se"),
      "steps:",
      "  - { id: a, type: investigate, description: A. }",
      "  - { id: c, type: end, description: C. }",
      "tests:",
      "  - name: bad inputs",
      "    events: [{ record: { findings: {} } }]",
      "    expect: { path: [], status: failed }",
    );
    const run: RunEvidence = {
      playbook: "se",
      runId: "s",
      status: "waiting",
      path: [visit("a", "i", { status: "waiting" })],
    };
    expect(summaryOf(improve(text, [run], [{ runId: "s", entries: [record("n")] }]))).toEqual([
      "People recorded n by hand before a, where the playbook starts in 1 run, but the step is not proposed: golden case 'bad inputs' starts a run that would now wait at check-n first.",
    ]);
  });

  it("does not propose a step a golden case passes more than once", () => {
    const text = lines(
      ...head("loop"),
      "limits: { max_steps: 20 }",
      "steps:",
      "  - { id: a, type: investigate, description: A. }",
      "  - id: b",
      "    type: investigate",
      "    description: B.",
      "    next:",
      "      - { condition: again, label: again, goto: a }",
      "      - { condition: enough, label: enough, goto: c }",
      "  - { id: c, type: end, description: C. }",
      "tests:",
      "  - name: twice",
      "    events: [{ choose: { branch: again } }, { choose: { branch: enough } }]",
      "    expect: { path: [a, b, a, b, c], status: completed }",
    );
    const run: RunEvidence = {
      playbook: "loop",
      runId: "l",
      status: "completed",
      path: [
        visit("a", "i", { at: at(1) }),
        visit("b", "i", { at: at(5) }),
        visit("c", "end", { at: at(6) }),
      ],
    };
    expect(summaryOf(improve(text, [run], [{ runId: "l", entries: [record("n", 3)] }]))).toEqual([
      "People recorded n by hand between a and b in 1 run, but the step is not proposed: golden case 'twice' passes there more than once.",
    ]);
  });

  it("does not propose a step where a golden case has no expected path", () => {
    const text = lines(
      ...head("np"),
      "steps:",
      "  - { id: a, type: comment, description: A., body: a }",
      "  - { id: c, type: end, description: C. }",
      "tests:",
      "  - name: status only",
      "    events: [{ record: { findings: {} } }]",
      "    expect: { status: completed }",
    );
    const run: RunEvidence = {
      playbook: "np",
      runId: "n",
      status: "completed",
      path: [visit("a", "comment", { at: at(1) }), visit("c", "end", { at: at(5) })],
    };
    expect(summaryOf(improve(text, [run], [{ runId: "n", entries: [record("n", 3)] }]))).toEqual([
      "People recorded n by hand between a and c in 1 run, but the step is not proposed: golden case 'status only' has no expected path to tell whether it passes there.",
    ]);
  });

  it("gives each golden case without events its own events: entry", () => {
    const text = lines(
      ...head("two"),
      "steps:",
      "  - { id: a, type: comment, description: A., body: a }",
      "  - { id: c, type: end, description: C. }",
      "tests:",
      "  - name: one",
      "    expect: { path: [a, c], status: completed }",
      "  - name: two",
      "    expect: { path: [a, c], status: completed }",
    );
    const run: RunEvidence = {
      playbook: "two",
      runId: "t",
      status: "completed",
      path: [visit("a", "comment", { at: at(1) }), visit("c", "end", { at: at(5) })],
    };
    const r = improve(text, [run], [{ runId: "t", entries: [record("n", 3)] }]);
    if (r?.status !== "proposed") throw new Error(JSON.stringify(r));
    expect(r.formatting).toBe("kept");
    for (const t of r.playbook.tests ?? [])
      expect(t).toMatchObject({
        events: [{ record: { findings: { n: 1 } } }],
        expect: { path: ["a", "check-n", "c"] },
      });
  });
});
