import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import nock from "nock";
import { ProbotOctokit } from "probot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AlertTriage } from "../../../src/runtime/alert-triage.js";
import { OctokitAlertIssues } from "../../../src/adapters/github/alert-issues.js";
import type { Octokit } from "../../../src/adapters/github/octokit-port.js";
import { alertmanagerPayload, serve, testConfig } from "../../helpers/alerts.js";

const API = "https://api.github.com";

function octokit(): Octokit {
  return new ProbotOctokit({
    auth: { token: "test" },
    retry: { enabled: false },
    throttle: { enabled: false },
  }) as unknown as Octokit;
}

const rest = (n: number, extra: Record<string, unknown> = {}) => ({
  number: n,
  html_url: `https://github.com/acme/ops/issues/${n}`,
  title: `Issue ${n}`,
  body: `body ${n}`,
  state: "open",
  user: { login: "playbook-bot[bot]", type: "Bot" },
  performed_via_github_app: { id: 7 },
  ...extra,
});

const APP = { appId: 7, botLogin: "playbook-bot[bot]" };

beforeEach(() => {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
});
afterEach(() => {
  nock.cleanAll();
  nock.enableNetConnect();
});

describe("OctokitAlertIssues", () => {
  it("lists by label, open and closed, every page, without pull requests (never search)", async () => {
    const page1 = nock(API)
      .get("/repos/acme/ops/issues")
      .query({ labels: "alert", state: "all", per_page: "100" })
      .reply(200, [rest(3), rest(2, { pull_request: {} })], {
        link: `<${API}/repos/acme/ops/issues?labels=alert&state=all&per_page=100&page=2>; rel="next"`,
      });
    const page2 = nock(API)
      .get("/repos/acme/ops/issues")
      .query({ labels: "alert", state: "all", per_page: "100", page: "2" })
      .reply(200, [
        // Another's issues carrying the label (and maybe a marker) are not triage issues.
        rest(5, { user: { login: "tom", type: "User" }, performed_via_github_app: null }),
        rest(4, {
          user: { login: "other[bot]", type: "Bot" },
          performed_via_github_app: { id: 8 },
        }),
        rest(1, {
          body: null,
          state: "closed",
          state_reason: "not_planned",
          closed_at: "2026-03-01T00:00:00Z",
        }),
      ]);
    const list = await new OctokitAlertIssues(octokit(), "acme", "ops", APP).listAlertIssues();
    expect(list).toEqual([
      {
        number: 3,
        url: "https://github.com/acme/ops/issues/3",
        title: "Issue 3",
        body: "body 3",
        state: "open",
        stateReason: null,
        closedAt: null,
      },
      {
        number: 1,
        url: "https://github.com/acme/ops/issues/1",
        title: "Issue 1",
        body: "",
        state: "closed",
        stateReason: "not_planned",
        closedAt: "2026-03-01T00:00:00Z",
      },
    ]);
    expect(page1.isDone() && page2.isDone()).toBe(true);
  });

  it("gets, creates, comments, edits, reopens and closes with a reason", async () => {
    const bodies: unknown[] = [];
    const scope = nock(API)
      .get("/repos/acme/ops/issues/7")
      .reply(200, rest(7))
      .post("/repos/acme/ops/issues", (b: unknown) => bodies.push(b) > 0)
      .reply(201, rest(8))
      .post("/repos/acme/ops/issues/8/comments", (b: unknown) => bodies.push(b) > 0)
      .reply(201, { id: 555 })
      .patch("/repos/acme/ops/issues/comments/555", (b: unknown) => bodies.push(b) > 0)
      .reply(200, { id: 555 })
      .patch("/repos/acme/ops/issues/8", (b: unknown) => bodies.push(b) > 0)
      .reply(200, rest(8))
      .patch("/repos/acme/ops/issues/8", (b: unknown) => bodies.push(b) > 0)
      .reply(200, rest(8, { state: "closed" }));
    const port = new OctokitAlertIssues(octokit(), "acme", "ops", APP);
    expect((await port.getIssue(7)).number).toBe(7);
    expect((await port.createIssue("T", "B", ["alert", "severity:high"])).number).toBe(8);
    expect(await port.comment(8, "c")).toBe("555");
    await port.updateComment("555", "c2");
    await port.reopen(8);
    await port.close(8, "not_planned");
    expect(bodies).toEqual([
      { title: "T", body: "B", labels: ["alert", "severity:high"] },
      { body: "c" },
      { body: "c2" },
      { state: "open" },
      { state: "closed", state_reason: "not_planned" },
    ]);
    expect(scope.isDone()).toBe(true);
  });

  it("through the route: Octokit's RequestError for a secondary rate limit becomes 503 + Retry-After", async () => {
    nock(API).get("/repos/acme/ops/issues").query(true).reply(200, []);
    nock(API)
      .post("/repos/acme/ops/issues")
      .reply(
        403,
        { message: "You have exceeded a secondary rate limit." },
        { "retry-after": "30" },
      );
    const port = new OctokitAlertIssues(octokit(), "acme", "ops", APP);
    const triage = new AlertTriage({
      coordination: new MemoryCoordination(),
      issues: () => port,
      playbooks: () => Promise.resolve([]),
      startRun: () => Promise.resolve(),
      now: () => Date.now(),
      reopenWindowMs: 60_000,
      issuesPerMinute: () => 10,
    });
    const server = await serve({
      config: testConfig(),
      handle: (a, repo) => triage.handle(a, repo),
    });
    try {
      const res = await fetch(`${server.url}/alerts/alertmanager`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer am-token" },
        body: JSON.stringify(alertmanagerPayload([{ labels: { alertname: "X" } }])),
      });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("30");
    } finally {
      await server.close();
    }
  });
});
