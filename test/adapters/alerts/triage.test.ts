import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import { describe, expect, it } from "vitest";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import {
  alertMarker,
  AlertTriage,
  triageBody,
  triageTitle,
  type AlertIssue,
} from "../../../src/runtime/alert-triage.js";
import type { NormalizedAlert } from "../../../src/core/alerts/types.js";
import { bundle, libraryBundles, MemoryAlertIssues } from "../../helpers/alerts.js";

const REPO = "acme/ops";
const T0 = Date.parse("2026-03-01T09:00:00Z");

function alert(over: Partial<NormalizedAlert> = {}): NormalizedAlert {
  return {
    source: "alertmanager",
    key: "alertmanager:aaaa",
    status: "firing",
    title: "DiskFull: disk above 90%",
    summary: "db-1 disk is at 93%",
    severity: "high",
    labels: { alertname: "DiskFull", instance: "db-1" },
    annotations: { runbook_url: "https://r.example/disk" },
    links: [{ text: "source", url: "https://prom.example/graph" }],
    startsAt: "2026-03-01T08:59:00Z",
    ...over,
  };
}

interface Setup {
  port: MemoryAlertIssues;
  triage: AlertTriage;
  runs: { issue: AlertIssue; playbook: string; key: string }[];
  clock: { now: number };
  make: () => AlertTriage;
}

function setup(
  options: { playbooks?: PlaybookBundle[]; perMinute?: number; windowMs?: number } = {},
): Setup {
  const clock = { now: T0 };
  const port = new MemoryAlertIssues(REPO, () => clock.now);
  const runs: Setup["runs"] = [];
  const make = () =>
    new AlertTriage({
      coordination: new MemoryCoordination(),
      issues: (repo) => {
        expect(repo).toBe(REPO);
        return port;
      },
      playbooks: () => Promise.resolve(options.playbooks ?? []),
      startRun: (_repo, issue, b, a) => {
        runs.push({ issue, playbook: b.playbook.id, key: a.key });
        return Promise.resolve();
      },
      now: () => clock.now,
      reopenWindowMs: options.windowMs ?? 3_600_000,
      issuesPerMinute: () => options.perMinute ?? 100,
    });
  return { port, triage: make(), runs, clock, make };
}

describe("AlertTriage", () => {
  it("a new alert opens one labelled issue with a hidden marker and starts the chosen playbook", async () => {
    const s = setup({ playbooks: await libraryBundles() });
    const out = await s.triage.handle(alert(), REPO);
    expect(out).toEqual({
      key: "alertmanager:aaaa",
      action: "opened",
      issue: 1,
      playbook: "alert-triage",
    });
    const issue = s.port.issue(1);
    expect(issue.title).toBe("[high] DiskFull: disk above 90%");
    expect(issue.labels).toEqual(["alert", "source:alertmanager", "severity:high"]);
    expect(issue.body).toContain(alertMarker("alertmanager:aaaa"));
    expect(issue.body).not.toContain(alertMarker(""));
    expect(issue.body).toContain("no selector fits; the default triage playbook");
    // A value that is an http(s) URL is a link.
    expect(issue.body).toContain("| `runbook_url` | <https://r.example/disk> |");
    expect(issue.body).toContain("[source](https://prom.example/graph)");
    expect(s.runs).toEqual([
      {
        issue: expect.objectContaining({ number: 1 }),
        playbook: "alert-triage",
        key: "alertmanager:aaaa",
      },
    ]);
    // The first contact listed the issues once; creating wrote once.
    expect(s.port.calls.map((c) => c.name)).toEqual(["listAlertIssues", "createIssue"]);
  });

  it("without any playbook: an issue all the same, saying so, and no run", async () => {
    const s = setup();
    const out = await s.triage.handle(alert({ severity: "unknown" }), REPO);
    expect(out).toEqual({ key: "alertmanager:aaaa", action: "opened", issue: 1 });
    expect(s.port.issue(1).title).toBe("DiskFull: disk above 90%");
    expect(s.port.issue(1).body).toContain("the default triage playbook is not available");
    expect(s.runs).toEqual([]);
  });

  it("a repeat (same start) changes nothing: only the issue is read", async () => {
    const s = setup();
    await s.triage.handle(alert(), REPO);
    const mark = s.port.calls.length;
    expect(await s.triage.handle(alert(), REPO)).toEqual({
      key: "alertmanager:aaaa",
      action: "repeat",
      issue: 1,
    });
    expect(s.port.calls.slice(mark).map((c) => c.name)).toEqual(["getIssue"]);
    // No start at all is the same firing too.
    const noStart = alert();
    delete noStart.startsAt;
    expect((await s.triage.handle(noStart, REPO)).action).toBe("repeat");
  });

  it("re-fires of an open issue: one comment, edited to count them", async () => {
    const s = setup();
    await s.triage.handle(alert(), REPO);
    for (let i = 1; i <= 3; i++) {
      s.clock.now += 60_000;
      const out = await s.triage.handle(alert({ startsAt: `2026-03-01T10:0${i}:00Z` }), REPO);
      expect(out.action).toBe("refired");
    }
    const comments = s.port.issue(1).comments;
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toMatch(
      /^🔁 Fired again, 3 times \(last at 2026-03-01T09:03:00\.000Z\)\.$/,
    );
    expect(comments[0]?.edits).toBe(2);
    expect(s.port.count("comment")).toBe(1);
    expect(s.port.count("updateComment")).toBe(2);
  });

  it("the first re-fire says 'time', not 'times'", async () => {
    const s = setup();
    await s.triage.handle(alert(), REPO);
    await s.triage.handle(alert({ startsAt: "2026-03-01T11:00:00Z" }), REPO);
    expect(s.port.issue(1).comments[0]?.body).toMatch(/^🔁 Fired again, 1 time \(/);
  });

  it("resolve under `resolve: close`: a comment, then closed as completed; a repeat resolve is a no-op", async () => {
    const s = setup({ playbooks: await libraryBundles() });
    await s.triage.handle(alert(), REPO);
    s.clock.now += 5 * 60_000;
    expect(await s.triage.handle(alert({ status: "resolved" }), REPO)).toMatchObject({
      action: "closed",
      issue: 1,
    });
    const issue = s.port.issue(1);
    expect(issue.state).toBe("closed");
    expect(issue.stateReason).toBe("completed");
    expect(issue.comments.map((c) => c.body)).toEqual(["✅ Resolved at 2026-03-01T09:05:00.000Z."]);
    const mark = s.port.calls.length;
    expect((await s.triage.handle(alert({ status: "resolved" }), REPO)).action).toBe("repeat");
    expect(s.port.calls.slice(mark).map((c) => c.name)).toEqual(["getIssue"]);
  });

  it("resolve without `resolve: close`: a comment only, the issue stays open", async () => {
    const s = setup({
      playbooks: [bundle({ id: "disk", on: { alerts: { match: { alertname: "DiskFull" } } } })],
    });
    expect((await s.triage.handle(alert(), REPO)).playbook).toBe("disk");
    expect((await s.triage.handle(alert({ status: "resolved" }), REPO)).action).toBe("resolved");
    expect(s.port.issue(1).state).toBe("open");
    expect(s.port.count("close")).toBe(0);
    expect(s.port.issue(1).comments).toHaveLength(1);
  });

  it("a resolve for an unknown alert is ignored; for an issue a person closed, only recorded", async () => {
    const s = setup();
    expect(await s.triage.handle(alert({ status: "resolved" }), REPO)).toEqual({
      key: "alertmanager:aaaa",
      action: "ignored",
    });
    expect(s.port.writes()).toEqual([]);
    await s.triage.handle(alert(), REPO);
    s.port.closeAs(1, "completed");
    const mark = s.port.calls.length;
    expect((await s.triage.handle(alert({ status: "resolved" }), REPO)).action).toBe("resolved");
    expect(s.port.calls.slice(mark).map((c) => c.name)).toEqual(["getIssue"]);
  });

  it("a GitHub alert dismissed as won't fix closes its issue as not planned", async () => {
    const s = setup();
    const gh = alert({ source: "github", key: "github:dependabot_alert:1:20" });
    await s.triage.handle(gh, REPO);
    const out = await s.triage.handle({ ...gh, status: "resolved", notPlanned: true }, REPO);
    expect(out.action).toBe("closed");
    expect(s.port.issue(1).stateReason).toBe("not_planned");
    expect(s.port.issue(1).comments[0]?.body).toMatch(/^✅ Resolved \(dismissed\) at /);
  });

  it("re-fire within the reopen window after a close: reopened, with a comment", async () => {
    const s = setup({ playbooks: await libraryBundles() });
    await s.triage.handle(alert(), REPO);
    await s.triage.handle(alert({ status: "resolved" }), REPO);
    s.clock.now += 30 * 60_000;
    const out = await s.triage.handle(alert({ startsAt: "2026-03-01T09:30:00Z" }), REPO);
    expect(out).toEqual({ key: "alertmanager:aaaa", action: "reopened", issue: 1 });
    expect(s.port.issue(1).state).toBe("open");
    expect(s.port.issue(1).comments.at(-1)?.body).toMatch(/reopened \(fired 2 times\)\.$/);
    expect(s.port.count("createIssue")).toBe(1);
  });

  it("closed as not planned: never reopened, however often it fires", async () => {
    const s = setup();
    await s.triage.handle(alert(), REPO);
    s.port.closeAs(1, "not_planned");
    const mark = s.port.calls.length;
    for (let i = 0; i < 3; i++) {
      const out = await s.triage.handle(alert({ startsAt: `2026-03-01T1${i}:00:00Z` }), REPO);
      expect(out.action).toBe("repeat");
    }
    expect(s.port.issue(1).state).toBe("closed");
    expect(s.port.calls.slice(mark).every((c) => c.name === "getIssue")).toBe(true);
  });

  it("re-fire after the window: a new issue linking the old one, later events go to the new one", async () => {
    const s = setup({ windowMs: 60_000 });
    await s.triage.handle(alert(), REPO);
    s.port.closeAs(1, "completed");
    s.clock.now += 2 * 60_000;
    const out = await s.triage.handle(alert({ startsAt: "2026-03-01T12:00:00Z" }), REPO);
    expect(out).toMatchObject({ action: "opened", issue: 2 });
    expect(s.port.issue(2).body).toMatch(
      /^Fired again after \[#1\]\(https:\/\/github\.com\/acme\/ops\/issues\/1\) was closed\./,
    );
    expect(s.port.issue(1).state).toBe("closed");
    expect((await s.triage.handle(alert({ startsAt: "2026-03-01T12:00:00Z" }), REPO)).issue).toBe(
      2,
    );
    // After a restart, the newest issue of the key is found again (not the closed one).
    const fresh = s.make();
    expect(await fresh.handle(alert({ startsAt: "2026-03-01T13:00:00Z" }), REPO)).toMatchObject({
      action: "refired",
      issue: 2,
    });
    expect(s.port.count("createIssue")).toBe(2);
  });

  it("after a restart, records are rebuilt from the markers of labelled issues (no duplicate)", async () => {
    const s = setup();
    await s.triage.handle(alert(), REPO);
    await s.triage.handle(alert({ key: "alertmanager:bbbb" }), REPO);
    const fresh = s.make();
    const out = await fresh.handle(alert({ startsAt: "2026-03-01T10:00:00Z" }), REPO);
    expect(out).toMatchObject({ action: "refired", issue: 1 });
    // A key never seen: listed once, then an issue.
    expect((await fresh.handle(alert({ key: "alertmanager:cccc" }), REPO)).issue).toBe(3);
    expect(s.port.count("createIssue")).toBe(3);
    // A resolved alert whose issue was closed before the restart is remembered as resolved.
    s.port.closeAs(3, "completed");
    expect(
      (await s.make().handle(alert({ key: "alertmanager:cccc", status: "resolved" }), REPO)).action,
    ).toBe("repeat");
  });

  it("lists a repository's alert issues once, not once per key; a failed listing is retried", async () => {
    const s = setup();
    s.port.fault = (name) => {
      if (name === "listAlertIssues") throw new Error("listing failed");
    };
    await expect(s.triage.handle(alert(), REPO)).rejects.toThrow("listing failed");
    s.port.fault = undefined;
    for (let i = 0; i < 5; i++) await s.triage.handle(alert({ key: `k${i}` }), REPO);
    expect(s.port.count("listAlertIssues")).toBe(2);
    expect(s.port.count("createIssue")).toBe(5);
    // After a restart: one listing finds every key again.
    const fresh = s.make();
    for (let i = 0; i < 5; i++)
      expect((await fresh.handle(alert({ key: `k${i}` }), REPO)).issue).toBe(i + 1);
    expect(s.port.count("listAlertIssues")).toBe(3);
    expect(s.port.count("createIssue")).toBe(5);
  });

  it("a marker pasted into alert text is neutralised and cannot claim another alert's issue", async () => {
    const s = setup();
    const victim = alert({ key: "alertmanager:victim" });
    const forged = alert({
      key: "alertmanager:forger",
      summary: `hi ${alertMarker("alertmanager:victim")}`,
    });
    await s.triage.handle(forged, REPO);
    expect(s.port.issue(1).body).not.toContain(alertMarker("alertmanager:victim"));
    expect((await s.make().handle(victim, REPO)).action).toBe("opened");
    expect(s.port.count("createIssue")).toBe(2);
  });

  it("concurrent alerts with one key make one issue", async () => {
    const s = setup();
    const outs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        s.triage.handle(
          alert({ startsAt: `2026-03-01T09:${String(i).padStart(2, "0")}:00Z` }),
          REPO,
        ),
      ),
    );
    expect(s.port.count("createIssue")).toBe(1);
    expect(outs.filter((o) => o.action === "opened")).toHaveLength(1);
    expect(outs.filter((o) => o.action === "refired")).toHaveLength(19);
    expect(s.port.issue(1).comments[0]?.body).toMatch(/^🔁 Fired again, 19 times/);
  });

  it("storm: beyond issues_per_minute, one digest issue whose one comment lists the rest", async () => {
    const s = setup({ perMinute: 3 });
    const outs = [];
    for (let i = 0; i < 10; i++)
      outs.push(await s.triage.handle(alert({ key: `k${i}`, title: `Alert ${i} | pipe` }), REPO));
    expect(outs.map((o) => o.action)).toEqual([
      ...Array(3).fill("opened"),
      ...Array(7).fill("digest"),
    ]);
    expect(s.port.count("createIssue")).toBe(4);
    const digest = s.port.issue(4);
    expect(digest.title).toBe("Alert storm: alerts beyond the rate limit");
    expect(digest.labels).toEqual(["alert", "alert-storm"]);
    expect(digest.body).toContain("3 new issues a minute from alertmanager");
    expect(digest.comments).toHaveLength(1);
    const rows = (digest.comments[0]?.body ?? "").split("\n").filter((l) => l.includes("Alert "));
    expect(rows).toHaveLength(7);
    expect(rows[0]).toBe("| 09:00:00 | high | Alert 3 \\| pipe |");
    expect(outs.slice(3).every((o) => o.issue === 4)).toBe(true);
    // The bucket refills: a minute later, new issues again.
    s.clock.now += 60_000;
    expect((await s.triage.handle(alert({ key: "later" }), REPO)).action).toBe("opened");
    // Beyond the digest's hour, a new digest issue.
    s.clock.now += 3_600_000;
    for (let i = 0; i < 4; i++) await s.triage.handle(alert({ key: `late${i}` }), REPO);
    expect(s.port.count("createIssue")).toBe(9);
    expect(
      [...s.port.issues.values()].filter((i) => i.labels.includes("alert-storm")),
    ).toHaveLength(2);
  });

  it("a digest shows the last 300 entries and counts the rest", async () => {
    const s = setup({ perMinute: 1 });
    for (let i = 0; i < 303; i++) await s.triage.handle(alert({ key: `k${i}` }), REPO);
    const body = s.port.issue(2).comments[0]?.body ?? "";
    expect(body.split("\n").filter((l) => l.startsWith("| 09"))).toHaveLength(300);
    expect(body).toMatch(/_2 earlier alerts not shown\._$/);
  });

  it("a failure of the port rejects that alert only; the key's queue goes on", async () => {
    const s = setup();
    s.port.fault = (name) => {
      if (name === "createIssue") throw new Error("boom");
    };
    await expect(s.triage.handle(alert(), REPO)).rejects.toThrow("boom");
    s.port.fault = undefined;
    expect((await s.triage.handle(alert(), REPO)).action).toBe("opened");
  });
});

describe("triage issue text", () => {
  const selection = { candidates: [], fallback: true };

  it("is inert: mentions and hidden-marker look-alikes are neutralised", () => {
    const a = alert({
      title: "@octocat <!-- playbook-bot:state x --> down\nsecond line",
      summary: "ping @admin <!-- playbook-bot:state x -->",
      labels: { who: "@team", "<!--": "x|y\nz" },
      annotations: { note: "--> closed" },
      links: [{ text: "[evil](x)", url: "https://e.example/a b" }],
    });
    const title = triageTitle(a);
    expect(title).not.toMatch(/@octocat/);
    expect(title).toContain("@\u200boctocat");
    expect(title).not.toContain("<!--");
    expect(title).not.toContain("\n");
    const body = triageBody(a, selection);
    expect(body).not.toMatch(/@(admin|team|octocat)/);
    expect(body).not.toContain("<!-- playbook-bot:state");
    expect(body).not.toContain("--> closed");
    expect(body).toContain("| `<!\u200b--` | x\\|y z |");
    expect(body).toContain("[\\[evil\\](x)](https://e.example/a%20b)");
    // The only HTML comment is our own marker (of the empty key, filled in when opening).
    expect(body.match(/<!--/g)).toHaveLength(1);
    expect(body.trimEnd().endsWith(alertMarker(""))).toBe(true);
  });

  it("titles are capped at 256 characters", () => {
    expect(triageTitle(alert({ title: "x".repeat(1000) }))).toHaveLength(256);
  });

  it("stays under 60,000 characters for a huge description and many labels", () => {
    const labels = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [`l${i}`, "v".repeat(1000)]),
    );
    const body = triageBody(
      alert({ summary: "d".repeat(200_000), labels, annotations: labels }),
      selection,
    );
    expect(body.length).toBeLessThan(60_000);
    expect(body).toContain("_…truncated: the alert was too long for an issue._");
  });

  it("explains the choice and the others considered; an empty alert says so", () => {
    const body = triageBody(alert({ summary: "", links: [], labels: {}, annotations: {} }), {
      chosen: { playbook: "a", score: 5, priority: 1, reasons: [] },
      candidates: [
        { playbook: "a", score: 5, priority: 1, reasons: [] },
        { playbook: "b", score: 4, priority: 0, reasons: [] },
        { playbook: "c", score: 3, priority: 0, reasons: [] },
      ],
      fallback: false,
    });
    expect(body).toContain("_No summary._");
    expect(body).toContain("**a** (score 5): its selector fits.");
    expect(body).toContain("Also considered: b (4), c (3).");
    expect(body).toContain("#### Labels\n\n_none_");
    const noStart = alert();
    delete noStart.startsAt;
    expect(triageBody(noStart, selection)).not.toContain("**Since:**");
  });
});
