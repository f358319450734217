import { describe, expect, it } from "vitest";
import { ID_PATTERN } from "../../../src/core/format/schema.js";
import { parseTemplate } from "../../../src/core/format/template.js";
import type { Step } from "../../../src/core/format/types.js";
import { draftPlaybook } from "../../../src/core/systematise/draft.js";
import type { IssueEvidence } from "../../../src/core/systematise/evidence.js";
import { incidentEvidence } from "./fixtures.js";
import { cliTest, diagnosticsOf, expectPasses, runGoldenCases } from "./helpers.js";

function draft(evidence: IssueEvidence = incidentEvidence(), id = "checkout-502") {
  const r = draftPlaybook(evidence, id);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r;
}

const stepsOf = (r: ReturnType<typeof draft>): Step[] => r.playbook.steps ?? [];

describe("draftPlaybook: an incident worked by hand", () => {
  it("decomposes the issue into steps in the order the work happened", () => {
    const r = draft();
    expect(stepsOf(r).map((s) => [s.id, s.type])).toEqual([
      ["check-error_rate", "investigate"],
      ["check-db_connections", "investigate"],
      ["approve", "checkpoint"],
      ["check-error_rate_after", "investigate"],
      ["pr-345-branch", "branch"],
      ["pr-345-commit", "commit"],
      ["pr-345", "pull_request"],
      ["done", "end"],
      ["other-path", "end"],
    ]);
    const id = new RegExp(ID_PATTERN);
    for (const s of stepsOf(r)) expect(s.id).toMatch(id);
    expect(new Set(stepsOf(r).map((s) => s.id)).size).toBe(stepsOf(r).length);
  });

  it("groups consecutive records between notes into one investigation, described by its note", () => {
    const [first, second, , after] = stepsOf(draft());
    expect(first).toMatchObject({
      expected_findings: ["error_rate", "failing_route"],
      description: "Looking at the gateway dashboard first.",
    });
    expect(second).toMatchObject({
      expected_findings: ["db_connections", "pool_exhausted"],
      description: "The database pool looks exhausted; checking connections.",
    });
    expect(after).toMatchObject({ expected_findings: ["error_rate_after"] });
    expect(after?.description).toContain("issue acme/shop#12");
  });

  it("makes the choice a prose branch answered with /choose, with a way out for other cases", () => {
    const second = stepsOf(draft())[1];
    expect(second?.next).toEqual([
      { condition: "the deploy changed the pool size", label: "rollback", goto: "approve" },
      {
        condition: "none of these: this is not the way the playbook was drafted from",
        label: "other",
        goto: "other-path",
      },
    ]);
  });

  it("makes the approvals a checkpoint for the lowest role all approvers hold, prefaced by the note before it", () => {
    const approve = stepsOf(draft())[2];
    expect(approve).toMatchObject({
      type: "checkpoint",
      message: "Rolling back 4.2 needs a maintainer's approval.",
      approvers: { permission: "maintain", count: 2 },
    });
  });

  it("falls back to write when an approver's role is unknown", () => {
    const e = incidentEvidence();
    e.adhoc = e.adhoc.map((x) =>
      x.kind === "approval" && x.by === "dave" ? { ...x, permission: undefined } : x,
    );
    expect(stepsOf(draft(e))[2]).toMatchObject({ approvers: { permission: "write", count: 2 } });
  });

  it("makes the merged pull request a branch, a commit and a pull request that waits for its merge", () => {
    const [branch, commit, pr] = stepsOf(draft()).slice(4, 7);
    expect(branch).toMatchObject({ name: "playbook/checkout-502-{{ run.id }}", from: "main" });
    expect(commit).toMatchObject({
      branch: "{{ steps.pr-345-branch.outputs.name }}",
      message: "Pin the database pool size to 50",
      files: [{ path: "changes/checkout-502/{{ run.id }}.md" }],
    });
    expect((commit as { files: { content: string }[] }).files[0]?.content).toContain(
      "- config/db.yaml",
    );
    expect(pr).toMatchObject({
      head: "{{ steps.pr-345-branch.outputs.name }}",
      base: "main",
      title: "Pin the database pool size to 50",
      closes_issue: true,
      wait: "merged",
    });
  });

  it("ends with the last note as advice, names and starts the playbook from the issue", () => {
    const r = draft();
    expect(stepsOf(r)[7]).toMatchObject({ type: "end", advice: "Error rate is back to normal." });
    expect(r.playbook.name).toBe("Checkout returns 502 after the 4.2 deploy");
    expect(r.playbook.description).toContain("Checkout returns 502 after the 4.2 deploy");
    // bug is generic, severity:high an alert's label: neither starts the playbook.
    expect(r.playbook.on).toEqual({ labels: ["checkout", "database"] });
    expect(r.summary.join("\n")).toMatch(/Labels left out.*bug, severity:high/);
  });

  it("writes golden cases that replay the way taken and the way not taken", () => {
    const r = draft();
    expect(r.playbook.tests).toEqual([
      {
        name: "replays the work of issue acme/shop#12",
        events: [
          { record: { findings: { error_rate: "12%", failing_route: "/checkout" } } },
          { record: { findings: { db_connections: 500, pool_exhausted: true } } },
          { choose: { branch: "rollback" } },
          { approve: { by: "carol", permission: "maintain" } },
          { approve: { by: "dave", permission: "maintain" } },
          { record: { findings: { error_rate_after: "0.1%" } } },
          { merge: true },
        ],
        expect: {
          path: [
            "check-error_rate",
            "check-db_connections",
            "approve",
            "check-error_rate_after",
            "pr-345-branch",
            "pr-345-commit",
            "pr-345",
            "done",
          ],
          status: "completed",
        },
      },
      {
        name: "a way not taken on the issue ends for people to go on by hand",
        events: [
          { record: { findings: { error_rate: "12%", failing_route: "/checkout" } } },
          { record: { findings: { db_connections: 500, pool_exhausted: true } } },
          { choose: { branch: "other" } },
        ],
        expect: {
          path: ["check-error_rate", "check-db_connections", "other-path"],
          status: "completed",
        },
      },
    ]);
  });

  it("validates with no diagnostic at all, and its YAML is the playbook returned", () => {
    const r = draft();
    expect(diagnosticsOf(r.yaml)).toEqual([]);
  });

  it("passes its golden cases through the CLI's test runner", async () => {
    expectPasses(await runGoldenCases(draft().playbook));
  });

  it("passes `playbook-bot test` on the file, validated beside the bundled library", async () => {
    const r = draft();
    const { code, out } = await cliTest("checkout-502.yaml", r.yaml);
    expect(out).toContain("2 cases passed, 0 failed");
    expect(code).toBe(0);
  });

  it("the golden case fails when the draft's path is not the one replayed (the check can fail)", async () => {
    const r = draft();
    const broken = structuredClone(r.playbook);
    const [main] = broken.tests ?? [];
    main?.events?.splice(2, 1); // the /choose
    const results = await runGoldenCases(broken);
    expect(results[0]?.ok).toBe(false);
  });

  it("orders runs' steps and work by hand by time", () => {
    const e: IssueEvidence = {
      issue: { number: 4, title: "Disk full on db-1", labels: [] },
      adhoc: [
        { kind: "record", key: "freed_gb", value: 40, actor: "a", at: "2026-03-01T10:30:00Z" },
      ],
      runs: [
        {
          playbook: "alert-triage",
          runId: "r1",
          status: "completed",
          path: [
            {
              step: "acknowledge",
              kind: "comment",
              status: "completed",
              at: "2026-03-01T10:00:00Z",
            },
            {
              step: "assess",
              kind: "investigate",
              status: "completed",
              findings: { user_impact: true },
              choice: "impact",
              condition: "users are affected now",
              at: "2026-03-01T10:01:00Z",
            },
            { step: "escalate", kind: "end", status: "completed", at: "2026-03-01T10:05:00Z" },
          ],
        },
      ],
      pullRequests: [],
    };
    const r = draft(e, "disk-full");
    expect(stepsOf(r).map((s) => s.id)).toEqual([
      "check-user_impact",
      "check-freed_gb",
      "done",
      "other-path",
    ]);
    expect(stepsOf(r)[0]?.description).toContain("step assess of alert-triage");
    expect(stepsOf(r)[0]?.next).toMatchObject([
      { condition: "users are affected now", label: "impact", goto: "check-freed_gb" },
      { label: "other" },
    ]);
    expect(r.summary.join("\n")).toContain("not repeated: 1 comment, 1 end");
  });

  it("a run's checkpoint becomes a checkpoint; a refused approval is left out", async () => {
    const e: IssueEvidence = {
      issue: { number: 5, title: "Rotate the API key", labels: ["secrets"] },
      adhoc: [
        { kind: "record", key: "key_age_days", value: 400, actor: "a", at: "2026-03-01T09:00:00Z" },
        {
          kind: "approval",
          by: "eve",
          decision: "reject",
          permission: "admin",
          at: "2026-03-01T09:10:00Z",
        },
      ],
      runs: [
        {
          playbook: "rotate",
          runId: "r1",
          status: "completed",
          path: [
            {
              step: "gate",
              kind: "checkpoint",
              status: "completed",
              approvals: [{ by: "frank", decision: "approve", permission: "write" }],
              at: "2026-03-01T09:20:00Z",
            },
          ],
        },
      ],
      pullRequests: [],
    };
    const r = draft(e, "rotate-key");
    expect(stepsOf(r).map((s) => [s.id, s.type])).toEqual([
      ["check-key_age_days", "investigate"],
      ["approve", "checkpoint"],
      ["done", "end"],
    ]);
    expect(stepsOf(r)[1]).toMatchObject({ approvers: { permission: "write", count: 1 } });
    expect(r.summary.join("\n")).toContain("1 approval refused on the issue is not repeated");
    expectPasses(await runGoldenCases(r.playbook));
  });

  it("every template in the draft is one the draft wrote itself", () => {
    const r = draft();
    const refs: string[] = [];
    const walk = (v: unknown): void => {
      if (typeof v === "string") {
        for (const p of parseTemplate(v).parts) if (p.kind !== "text") refs.push(p.raw);
      } else if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object") Object.values(v).forEach(walk);
    };
    walk(r.playbook.steps);
    expect(new Set(refs)).toEqual(
      new Set(["{{ run.id }}", "{{ steps.pr-345-branch.outputs.name }}"]),
    );
  });
});

describe("draftPlaybook: refusals", () => {
  it("refuses empty evidence, saying what is missing", () => {
    const r = draftPlaybook(
      {
        issue: { number: 9, title: "Nothing yet", labels: [] },
        adhoc: [],
        runs: [],
        pullRequests: [],
      },
      "nothing",
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]?.code).toBe("no-work");
    expect(r.problems[0]?.message).toMatch(/^Issue #9 shows no work to repeat/);
    for (const missing of [
      "no finding recorded (/record key=value)",
      "no choice (/choose) or approval (/approve)",
      "no run on it",
      "no merged pull request",
    ])
      expect(r.problems[0]?.message).toContain(missing);
  });

  it("refuses notes alone and an unmerged pull request, and says so", () => {
    const r = draftPlaybook(
      {
        issue: { number: 9, title: "Notes", labels: [] },
        adhoc: [{ kind: "note", text: "I looked around.", actor: "a", at: "2026-01-01T00:00:00Z" }],
        runs: [],
        pullRequests: [{ number: 3, title: "WIP", merged: false }],
      },
      "notes",
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems[0]?.message).toContain("it has 1 note, but notes only describe steps");
    expect(r.problems[0]?.message).toContain("pull requests #3 are linked but not merged");
  });

  it("refuses an id that is not an id, and evidence without an issue", () => {
    const bad = draftPlaybook(incidentEvidence(), "no spaces: allowed");
    expect(bad).toMatchObject({ ok: false, problems: [{ code: "id-invalid" }] });
    const none = draftPlaybook({} as IssueEvidence, "x");
    expect(none).toMatchObject({ ok: false, problems: [{ code: "no-evidence" }] });
  });

  it("refuses a draft that does not validate: a system playbook's id, with the library known", () => {
    const r = draftPlaybook(incidentEvidence(), "alert-triage", {
      known: [
        {
          id: "alert-triage",
          locked: true,
          playbook: {
            apiVersion: "playbook-bot/v1",
            id: "alert-triage",
            steps: [{ id: "e", type: "end" }],
          },
        },
      ],
    });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems[0]).toMatchObject({ code: "invalid" });
    expect(r.problems[0]?.message).toContain("[set-locked-id]");
  });
});
