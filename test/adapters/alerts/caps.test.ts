import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import { describe, expect, it } from "vitest";
import { ALERT_CAPS, capAlertData } from "../../../src/core/alerts/caps.js";
import { IssueController } from "../../../src/runtime/run-service/controller.js";
import { readStatusComment } from "../../../src/runtime/run-service/status-comment.js";
import { MemoryGitHub } from "../../../src/adapters/memory/github.js";
import { repositoryStateKey } from "../../../src/runtime/state-codec.js";
import type { NormalizedAlert } from "../../../src/core/alerts/types.js";
import { bundle } from "../../helpers/alerts.js";

/** Alertmanager lets a sender attach any number of labels: about 90 KB of them here. */
function hugeLabels(): Record<string, string> {
  const labels: Record<string, string> = { alertname: "DiskFull", service: "db" };
  for (let i = 0; i < 300; i++) labels[`label_${String(i).padStart(3, "0")}`] = "v".repeat(300);
  return labels;
}

describe("capAlertData", () => {
  it("keeps a bounded, stable part and says what was cut", () => {
    const labels = hugeLabels();
    expect(JSON.stringify(labels).length).toBeGreaterThan(90_000);
    const capped = capAlertData(labels, { summary: "s".repeat(5000) });
    expect(Object.keys(capped.labels).length).toBeLessThanOrEqual(ALERT_CAPS.entries);
    const size = Object.entries(capped.labels).reduce((n, [k, v]) => n + k.length + v.length, 0);
    expect(size).toBeLessThanOrEqual(ALERT_CAPS.totalLength);
    expect(capped.labels.alertname).toBe("DiskFull");
    expect(capped.annotations.summary).toHaveLength(ALERT_CAPS.valueLength);
    const kept = Object.keys(capped.labels).length;
    expect(capped.cut).toMatch(
      new RegExp(`^${302 - kept} labels left out, [0-9]+ values shortened \\(at most 64 of each`),
    );
    expect(capAlertData(labels, {})).toEqual(capAlertData({ ...labels }, {}));
  });

  it("cuts nothing from an ordinary alert", () => {
    expect(capAlertData({ a: "1" }, { b: "2" })).toEqual({
      labels: { a: "1" },
      annotations: { b: "2" },
    });
  });
});

describe("an alert with 90 KB of labels", () => {
  it("starts its playbook with a status comment within GitHub's limit, saying what was cut", async () => {
    let now = Date.parse("2026-04-01T10:00:00Z");
    const gh = new MemoryGitHub("app[bot]", () => new Date((now += 1000)));
    const issue = gh.openIssue("[high] DiskFull", "", "app[bot]");
    const triage = bundle({
      id: "triage",
      inputs: { service: { type: "string", from: "labels.service" } },
      steps: [
        { id: "look", type: "comment", body: "Look at {{ inputs.service }}" },
        { id: "end", type: "end" },
      ],
    } as never);
    const key = repositoryStateKey("s", 0, 0);
    const controller = new IssueController({
      memory: new MemoryCoordination(),
      port: gh,
      catalog: { get: (id) => (id === "triage" ? triage : undefined), all: () => [triage] },
      stateKey: key,
      clock: () => new Date(now),
      issue: { number: issue.number, title: issue.title, url: "u", author: "app[bot]" },
      repo: { owner: "o", name: "r", default_branch: "main" },
      inProcess: true,
    });
    const alert: NormalizedAlert = {
      source: "alertmanager",
      key: "alertmanager:abc",
      status: "firing",
      title: "DiskFull",
      summary: "",
      severity: "high",
      labels: hugeLabels(),
      annotations: {},
      links: [],
    };
    expect(await controller.startForAlert(triage, alert, "alert:1")).toEqual({
      outcome: "accepted",
    });
    const [run] = await controller.runs();
    expect(run?.run.error).toBeUndefined();
    expect(run?.run.status).toBe("completed");
    expect(run?.run.stack[0]?.inputs.service).toBe("db");
    expect(String(run?.run.context.alert?.cut)).toMatch(/^[0-9]+ labels left out/);
    const body = (await gh.comment(issue.number, run?.commentId ?? ""))?.body ?? "";
    expect(body.length).toBeLessThan(65_536);
    expect(
      readStatusComment(body, { key, issue: issue.number, comment: run?.commentId ?? "" }).ok,
    ).toBe(true);
  });
});
