import { describe, expect, it } from "vitest";
import type { Step } from "../../../src/core/format/types.js";
import { draftPlaybook, triggerLabels } from "../../../src/core/systematise/draft.js";
import type { IssueEvidence } from "../../../src/core/systematise/evidence.js";
import { diagnosticsOf, expectPasses, runGoldenCases } from "./helpers.js";

const at = (m: number) => `2026-05-01T10:${String(m).padStart(2, "0")}:00Z`;

function evidence(extra: Partial<IssueEvidence> = {}): IssueEvidence {
  return {
    repo: { owner: "acme", name: "shop" },
    issue: { number: 7, title: "Disk full", labels: [] },
    adhoc: [],
    runs: [],
    pullRequests: [],
    ...extra,
  };
}

function draft(e: IssueEvidence, id = "disk-full") {
  const r = draftPlaybook(e, id);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  expect(diagnosticsOf(r.yaml).filter((d) => d.startsWith("error"))).toEqual([]);
  return r;
}

const stepsOf = (r: ReturnType<typeof draft>): Step[] => r.playbook.steps ?? [];

describe("triggerLabels: shapes", () => {
  it("takes no labels from something that is not a list", () => {
    expect(triggerLabels(undefined)).toEqual({ labels: [], skipped: [] });
    expect(triggerLabels("disk" as unknown as string[])).toEqual({ labels: [], skipped: [] });
  });
});

describe("draftPlaybook: evidence with missing or odd parts", () => {
  it("names the issue without a number or a repository, and its title from the id when it has none", () => {
    const r = draft(
      evidence({
        repo: { owner: "bad owner!", name: "x" },
        issue: { number: -3, title: undefined as unknown as string, labels: [] },
        adhoc: [{ kind: "record", key: "used", value: "99%", actor: "a", at: at(1) }],
      }),
    );
    expect(r.playbook.name).toBe("disk-full");
    expect(r.playbook.description).toBe("Repeats the work done on the issue.");
    expect(r.summary[0]).toMatch(/^Drafted disk-full from the issue: /);
  });

  it("names an issue without a usable repository by its number alone", () => {
    const r = draft(
      evidence({
        repo: undefined,
        adhoc: [{ kind: "record", key: "used", value: "99%", actor: "a", at: at(1) }],
      }),
    );
    expect(r.playbook.description).toBe("Repeats the work done on issue #7: Disk full.");
  });

  it("reads evidence whose lists are not lists as empty, and refuses it for showing no work", () => {
    const r = draftPlaybook(
      evidence({
        adhoc: null as unknown as IssueEvidence["adhoc"],
        runs: {} as unknown as IssueEvidence["runs"],
        pullRequests: "x" as unknown as IssueEvidence["pullRequests"],
      }),
      "empty",
    );
    expect(r).toMatchObject({ ok: false, problems: [{ code: "no-work" }] });
    if (r.ok) return;
    expect(r.problems[0]?.message).toMatch(/^Issue acme\/shop#7 shows no work to repeat: /);
    // Nothing more to say than what is missing: no parenthesis of reasons after it.
    expect(r.problems[0]?.message).toMatch(/no merged pull request linked to it\.$/);
  });

  it("says why it refuses: unusable keys, refused approvals", () => {
    const r = draftPlaybook(
      evidence({
        adhoc: [
          { kind: "record", key: "!!!", value: 1, actor: "a", at: at(1) },
          { kind: "approval", by: "x", decision: "reject", at: at(2) },
          { kind: "note", text: "stop", actor: "a", at: at(3) },
          { kind: "approval", by: "y", decision: "reject", at: at(4) },
        ],
      }),
      "refused",
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems[0]?.message).toContain("1 recorded key could not be used as finding keys");
    // The verb is not checked: the message says "was" whatever the count.
    expect(r.problems[0]?.message).toMatch(/; 2 approvals \w+ refused\)\.$/);
  });

  it("skips entries that are not entries, unknown kinds and votes that are not votes", () => {
    const r = draft(
      evidence({
        adhoc: [
          null as unknown as IssueEvidence["adhoc"][number],
          { kind: "mystery", text: "?" } as unknown as IssueEvidence["adhoc"][number],
          {
            kind: "approval",
            by: "x",
            decision: "maybe",
            at: at(1),
          } as unknown as IssueEvidence["adhoc"][number],
          { kind: "note", actor: "a", at: at(2) } as unknown as IssueEvidence["adhoc"][number],
          {
            kind: "record",
            key: "free",
            value: "1G",
            actor: "a",
          } as unknown as IssueEvidence["adhoc"][number],
        ],
        pullRequests: [null as unknown as IssueEvidence["pullRequests"][number]],
      }),
    );
    expect(stepsOf(r).map((s) => [s.id, s.type])).toEqual([
      ["check-free", "investigate"],
      ["done", "end"],
    ]);
    expect(stepsOf(r).some((s) => s.type === "checkpoint")).toBe(false);
  });

  it("notes one key that could not be used, with no text to show for it", () => {
    const r = draft(
      evidence({
        adhoc: [
          { kind: "record", key: "", value: 1, actor: "a", at: at(1) },
          { kind: "record", key: "free", value: "1G", actor: "a", at: at(2) },
        ],
      }),
    );
    expect(r.summary).toContain("1 recorded key could not become finding keys and was left out.");
  });

  it("lists at most five unusable keys by name but counts them all", () => {
    const bad = [1, 2, 3, 4, 5, 6].map((i) => ({
      kind: "record" as const,
      key: "%%",
      value: i,
      actor: "a",
      at: at(i),
    }));
    const r = draft(
      evidence({
        adhoc: [...bad, { kind: "record", key: "ok", value: 1, actor: "a", at: at(9) }],
      }),
    );
    const line = r.summary.find((s) => s.startsWith("6 recorded keys"));
    expect(line).toBe(
      "6 recorded keys could not become finding keys and were left out: '%%', '%%', '%%', '%%', '%%'.",
    );
  });

  it("a choice with no findings and no usable label becomes a step chosen by /choose", async () => {
    const r = draft(
      evidence({
        adhoc: [{ kind: "choice", label: "%%", actor: "a", at: at(1) }],
      }),
    );
    const [first] = stepsOf(r);
    expect(first?.id).toBe("choose-way");
    expect(first?.description).toBe("Choose how to go on, as was chosen on issue acme/shop#7.");
    expect(Array.isArray(first?.next) && first.next[0]?.label).toBe("taken");
    expectPasses(await runGoldenCases(r.playbook));
  });

  it("takes the lowest role of approvers whatever their order", () => {
    const r = draft(
      evidence({
        adhoc: [
          { kind: "approval", by: "a", decision: "approve", permission: "admin", at: at(1) },
          { kind: "approval", by: "b", decision: "approve", permission: "triage", at: at(2) },
          { kind: "approval", by: "c", decision: "approve", permission: "maintain", at: at(3) },
        ],
      }),
    );
    expect(stepsOf(r)[0]).toMatchObject({
      type: "checkpoint",
      approvers: { permission: "triage", count: 3 },
    });
  });

  it("says refused approvals are not repeated, in the plural", () => {
    const r = draft(
      evidence({
        adhoc: [
          { kind: "approval", by: "x", decision: "reject", at: at(1) },
          { kind: "record", key: "free", value: "1G", actor: "a", at: at(2) },
          { kind: "approval", by: "y", decision: "reject", at: at(3) },
        ],
      }),
    );
    expect(r.summary).toContain("2 approvals refused on the issue are not repeated.");
  });

  it("a pull request with no title is named by its number", () => {
    const r = draft(
      evidence({
        pullRequests: [
          { number: 5, merged: true } as unknown as IssueEvidence["pullRequests"][number],
        ],
      }),
    );
    const commit = stepsOf(r).find((s) => s.type === "commit");
    expect(commit).toMatchObject({ message: "The change of disk-full" });
    expect(r.summary.some((s) => s.includes("the pull request #5;"))).toBe(true);
  });
});

describe("draftPlaybook: runs with odd shapes", () => {
  const runOf = (path: unknown[], playbook?: unknown) =>
    ({
      playbook,
      runId: "r",
      status: "completed",
      path,
    }) as unknown as IssueEvidence["runs"][number];

  it("an investigation in a run with findings and no choice is one step; steps with no time keep their order", async () => {
    const r = draft(
      evidence({
        runs: [
          runOf([
            { step: "look", kind: "investigate", status: "completed", findings: { free: "1G" } },
            { step: "peek", kind: "investigate", status: "completed" },
            {
              step: "pick",
              kind: "investigate",
              status: "completed",
              findings: { used: "99%" },
              choice: "clean",
            },
          ]),
        ],
      }),
    );
    expect(stepsOf(r).map((s) => s.id)).toEqual(["check-free", "check-used", "done", "other-path"]);
    expect(stepsOf(r)[0]?.description).toContain("(step look of a playbook)");
    const pick = stepsOf(r)[1];
    expect(Array.isArray(pick?.next) && pick.next[0]).toMatchObject({
      label: "clean",
      condition: "clean, the way taken on issue acme/shop#7",
    });
    expectPasses(await runGoldenCases(r.playbook));
  });

  it("counts steps of kinds it does not repeat, with no kind as unknown; paths that are not lists are empty", () => {
    const r = draft(
      evidence({
        runs: [
          runOf({} as unknown[], "p"),
          runOf(
            [
              { step: "x", kind: "", status: "completed" },
              { step: "y", kind: "comment", status: "completed" },
              {
                step: "gate",
                kind: "checkpoint",
                status: "completed",
                approvals: [
                  { by: "m", decision: "whatever" },
                  { by: "n", decision: "approve" },
                ],
              },
            ],
            "p",
          ),
        ],
      }),
    );
    expect(stepsOf(r)[0]).toMatchObject({ type: "checkpoint", approvers: { count: 1 } });
    expect(r.summary).toContain(
      "Steps of runs that were the bot's own work are not repeated: 1 unknown, 1 comment.",
    );
  });
});
