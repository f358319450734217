import { StatusCommentCache } from "../../../src/runtime/run-service/status-ids.js";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Effect } from "../../../src/core/engine/events.js";
import type { RunState } from "../../../src/core/engine/state.js";
import {
  githubError,
  issueOfPullRequest,
  pullRequestMarker,
  type OctokitPort,
} from "../../../src/adapters/github/octokit-port.js";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { BRANCH, makeClock, OWNER, REPO, testPort, EXAMPLE_REPO } from "./harness.js";

// The fields the port reads: the issue, and when the active step began (a repeated comment is
// looked for among the comments changed since).
const run = {
  context: { issue: { number: 1 } },
  stack: [{ since: "2026-03-01T09:00:00.000Z" }],
} as unknown as RunState;
const effect = (kind: Effect["kind"], params: Record<string, unknown>, key = "r/k/1"): Effect =>
  ({ key, kind, step: "s", params }) as Effect;

let fake: FakeGitHub;
let port: OctokitPort;

const makePort = (extra: Parameters<typeof testPort>[0] = {}) =>
  testPort({ statusCache: new StatusCommentCache(), ...extra });

beforeEach(() => {
  nock.disableNetConnect();
  fake = new FakeGitHub({
    ...EXAMPLE_REPO,
    clock: makeClock(),
  }).install();
  fake.openIssue("One", "", "alice");
  port = makePort();
});
afterEach(() => fake.uninstall());

describe("githubError", () => {
  const err = (status: number, message = "boom", headers: Record<string, string> = {}) => ({
    status,
    message,
    response: { headers },
  });
  it("codes GitHub failures, rate limits as retryable GH-RATE-LIMITED", () => {
    expect(githubError(err(429), "x").code).toBe("GH-RATE-LIMITED");
    expect(githubError(err(403, "m", { "retry-after": "30" }), "x").message).toBe(
      "GitHub rate-limited x (retry after 30 s)",
    );
    expect(githubError(err(403, "m", { "x-ratelimit-remaining": "0" }), "x").code).toBe(
      "GH-RATE-LIMITED",
    );
    expect(githubError(err(403, "API rate limit exceeded"), "x").code).toBe("GH-RATE-LIMITED");
    expect(githubError(err(403), "x").code).toBe("GH-PERMISSION");
    expect(githubError(err(401), "x").code).toBe("GH-PERMISSION");
    expect(githubError(err(404), "x").code).toBe("GH-NOT-FOUND");
    expect(githubError(err(409), "x").code).toBe("GH-CONFLICT");
    expect(githubError(err(422), "x").code).toBe("GH-VALIDATION");
    expect(githubError(err(500), "x").code).toBe("GH-ERROR");
    expect(githubError(new Error("socket hang up"), "x").cause).toBe("HTTP 0: socket hang up");
    expect(githubError(err(500, "token ghs_abc123DEF leaked"), "x").cause).toBe(
      "HTTP 500: token [redacted] leaked",
    );
    expect(githubError("plain", "x").cause).toBe("HTTP 0: plain");
  });

  it("finds the issue of a pull request by its marker", () => {
    expect(issueOfPullRequest(`body\n\n${pullRequestMarker(12, "k")}`)).toBe(12);
    expect(issueOfPullRequest(null)).toBeUndefined();
    expect(issueOfPullRequest("Closes #3")).toBeUndefined();
  });
});

describe("people", () => {
  it("reads role_name, and denies on an unknown role or an error", async () => {
    fake.permissions.set("m", "maintain");
    fake.permissions.set("odd", "custom-role");
    expect(await port.permission("m")).toBe("maintain");
    expect(await port.permission("odd")).toBeUndefined();
    expect(await port.permission("nobody")).toBeUndefined();
  });

  it("denies on GitHub's no, but a lookup GitHub left unanswered (5xx, rate limit) is thrown, not a no", async () => {
    fake.permissions.set("m", "maintain");
    fake.fault = ({ path }) =>
      path.includes("/collaborators/m/")
        ? { status: 502, body: { message: "Bad Gateway" } }
        : path.includes("/collaborators/limited/")
          ? {
              status: 403,
              body: { message: "secondary rate limit" },
              headers: { "retry-after": "5" },
            }
          : path.includes("/collaborators/hidden/")
            ? {
                status: 403,
                body: { message: "Must have push access to view collaborator permission." },
              }
            : undefined;
    await expect(port.permission("m")).rejects.toMatchObject({ status: 502 });
    await expect(port.permission("limited")).rejects.toMatchObject({ status: 403 });
    expect(await port.permission("hidden")).toBeUndefined();
    fake.fault = ({ path }) => (path.includes("/teams/") ? { status: 503 } : undefined);
    fake.teams.set(`${OWNER}/core`, new Set(["m"]));
    await expect(port.teams("m", ["core"])).rejects.toMatchObject({ status: 503 });
  });

  it("finds team membership among the candidates only", async () => {
    fake.teams.set(`${OWNER}/core`, new Set(["m"]));
    fake.teams.set("other/ops", new Set(["m"]));
    expect(await port.teams("m", ["core", "other/ops", "sec"])).toEqual(["core", "other/ops"]);
    expect(await port.teams("x", ["core"])).toEqual([]);
  });
});

describe("comments", () => {
  it("knows this app's comments by app id (and bot login, when known); missing comments are undefined", async () => {
    const byLogin = makePort({ botLogin: "helper[bot]" });
    const mine = await port.createComment(1, "hello");
    const other = fake.postAs(1, "helper[bot]", "x");
    expect((await port.comment(1, mine.id))?.byThisApp).toBe(true);
    expect((await port.comment(1, String(other.id)))?.byThisApp).toBe(false);
    // The login alone, without GitHub's word that this app wrote it, is not enough.
    expect((await byLogin.comment(1, String(other.id)))?.byThisApp).toBe(false);
    expect(await port.comment(1, "999999")).toBeUndefined();
    await port.updateComment(1, mine.id, "edited");
    expect(fake.comments.get(Number(mine.id))?.body).toBe("edited");
  });

  it("swallows a failed reaction", async () => {
    await expect(port.react(1, "424242", "eyes")).resolves.toBeUndefined();
  });

  it("lists status comments once, then fetches the remembered ones", async () => {
    const block = "x\n<!-- playbook-bot:state abc -->";
    const s = await port.createComment(1, block);
    fake.postAs(1, "bob", block);
    expect((await port.statusComments(1)).map((c) => c.id)).toEqual([s.id]);
    const s2 = await port.createComment(1, block);
    const mark = fake.requests.length;
    expect((await port.statusComments(1)).map((c) => c.id)).toEqual([s.id, s2.id]);
    expect(fake.since(mark).map((r) => r.method + " " + r.path.split("?")[0])).toEqual([
      `GET /repos/${OWNER}/${REPO}/issues/comments/${s.id}`,
      `GET /repos/${OWNER}/${REPO}/issues/comments/${s2.id}`,
    ]);
    fake.comments.delete(Number(s2.id));
    expect(await port.statusComments(1)).toHaveLength(1);
    const cache = new StatusCommentCache(1);
    cache.add("a", "1");
    expect(cache.get("a")).toBeUndefined();
  });
});

describe("effects", () => {
  it("branch: creates, reuses, refuses when a new one is required, and reports a missing base", async () => {
    const made = await port.perform(effect("branch", { name: "b1" }), run);
    expect(made).toMatchObject({ ok: true, outputs: { name: "b1", created: true } });
    const again = await port.perform(effect("branch", { name: "b1" }), run);
    expect(again).toMatchObject({ ok: true, outputs: { created: false } });
    const strict = await port.perform(effect("branch", { name: "b1", require_new: true }), run);
    expect(strict).toMatchObject({ ok: false, error: { code: "GH-CONFLICT" } });
    const noBase = await port.perform(effect("branch", { name: "b2", from: "nope" }), run);
    expect(noBase).toMatchObject({ ok: false, error: { code: "GH-NOT-FOUND" } });
  });

  it("branch: reuses a branch made meanwhile (422 on create), fails when it is still missing", async () => {
    let gets = 0;
    fake.fault = ({ method, path }) => {
      if (method === "GET" && path.endsWith("/git/ref/heads/race") && gets++ === 0)
        return { status: 404 };
      return undefined;
    };
    fake.repo.refs.set("heads/race", fake.repo.refs.get("heads/master") as string);
    expect(await port.perform(effect("branch", { name: "race" }), run)).toMatchObject({
      ok: true,
      outputs: { created: false },
    });
    fake.fault = ({ method, path }) =>
      method === "POST" && path.endsWith("/git/refs") ? { status: 422 } : undefined;
    expect(await port.perform(effect("branch", { name: "ghost" }), run)).toMatchObject({
      ok: false,
      error: { code: "GH-VALIDATION" },
    });
    fake.fault = ({ method }) => (method === "POST" ? { status: 500 } : undefined);
    expect(await port.perform(effect("branch", { name: "ghost" }), run)).toMatchObject({
      ok: false,
      error: { code: "GH-ERROR" },
    });
    fake.fault = ({ method }) => (method === "GET" ? { status: 502 } : undefined);
    expect(await port.perform(effect("branch", { name: "ghost" }), run)).toMatchObject({
      ok: false,
      error: { code: "GH-ERROR" },
    });
  });

  it("commit: one commit with the trailer, found again; a missing branch or no files fail", async () => {
    await port.perform(effect("branch", { name: "b" }), run);
    const params = { branch: "b", message: "m", files: [{ path: "a.txt", content: "A" }] };
    const first = await port.perform(effect("commit", params, "k/commit/1"), run);
    expect(first).toMatchObject({ ok: true, outputs: { created: true } });
    const second = await port.perform(effect("commit", params, "k/commit/1"), run);
    expect(second).toMatchObject({ ok: true, outputs: { created: false } });
    expect(fake.commitsWith(/^Playbook-Run: k\/commit\/1$/)).toHaveLength(1);
    expect(await port.perform(effect("commit", { ...params, branch: "zz" }), run)).toMatchObject({
      ok: false,
      error: { code: "GH-NOT-FOUND" },
    });
    expect(
      await port.perform(effect("commit", { branch: "b", message: "m" }, "k2"), run),
    ).toMatchObject({ ok: false, error: { code: "PB-EFFECT-FAILED" } });
  });

  it("pull_request: creates with labels and reviewers, then reuses the open one", async () => {
    await port.perform(effect("branch", { name: "b" }), run);
    const params = {
      head: "b",
      title: "T",
      body: "B",
      labels: ["x"],
      reviewers: ["r"],
      team_reviewers: ["t"],
      draft: true,
    };
    const made = await port.perform(effect("pull_request", params), run);
    expect(made).toMatchObject({ ok: true, outputs: { number: 2, created: true } });
    const pr = fake.pulls.get(2);
    expect(pr?.body).toBe(`B\n\n${pullRequestMarker(1, "r/k/1")}`);
    expect(pr?.draft).toBe(true);
    expect(pr?.reviewers).toEqual(["r", "t"]);
    expect(fake.pullLabels(2)).toEqual(["x"]);
    const again = await port.perform(effect("pull_request", params), run);
    expect(again).toMatchObject({ ok: true, outputs: { number: 2, created: false } });
    await port.perform(effect("branch", { name: "c" }), run);
    const plain = await port.perform(effect("pull_request", { head: "c", title: "T" }), run);
    expect(plain).toMatchObject({ ok: true, outputs: { number: 3 } });
    expect(fake.pulls.get(3)?.reviewers).toEqual([]);
  });

  it("issue: created once with its marker, found again", async () => {
    const p = { title: "New", body: "Text", labels: ["l"], assignees: [] };
    const made = await port.perform(effect("issue", p, "k/issue/1"), run);
    expect(made).toMatchObject({ ok: true, outputs: { number: 2, created: true } });
    const again = await port.perform(effect("issue", p, "k/issue/1"), run);
    expect(again).toMatchObject({ ok: true, outputs: { number: 2, created: false } });
    expect(await port.perform(effect("issue", { title: "Bare" }, "k/issue/2"), run)).toMatchObject({
      ok: true,
      outputs: { number: 3 },
    });
  });

  it("label: adds and removes; a label already gone is fine, other errors fail", async () => {
    fake.issues.get(1)?.labels.push("old");
    expect(
      await port.perform(effect("label", { add: ["new"], remove: ["old", "gone"] }), run),
    ).toEqual({ ok: true, outputs: { labels: ["new"] } });
    expect(await port.perform(effect("label", { issue: 1 }), run)).toEqual({
      ok: true,
      outputs: { labels: [] },
    });
    fake.fault = ({ method }) => (method === "DELETE" ? { status: 500 } : undefined);
    expect(await port.perform(effect("label", { remove: ["new"] }), run)).toMatchObject({
      ok: false,
      error: { code: "GH-ERROR", message: "GitHub failed to change labels" },
    });
  });

  it("close: with a comment and a reason, and a no-op when already closed", async () => {
    expect(
      await port.perform(effect("close", { comment: "Bye", reason: "not_planned" }), run),
    ).toEqual({ ok: true, outputs: { state: "closed" } });
    expect(fake.issues.get(1)).toMatchObject({ state: "closed", state_reason: "not_planned" });
    expect([...fake.comments.values()].map((c) => c.body)).toEqual(["Bye"]);
    const mark = fake.requests.length;
    expect(await port.perform(effect("close", { issue: 1 }), run)).toEqual({
      ok: true,
      outputs: { state: "closed" },
    });
    expect(fake.since(mark)).toHaveLength(1);
  });

  it("comment: on another issue or pull request, and as a reply in a review thread, each found again by its key", async () => {
    const other = fake.openIssue("Two", "", "bob");
    const pr = fake.openPullAs("bob", "feature/x", "Feature", "");
    const first = fake.addReviewComment(pr.number, "Bound the cache.");
    const onOther = await port.perform(
      effect("comment", { body: "See there", issue: String(other.number) }, "k/o/1"),
      run,
    );
    expect(onOther).toMatchObject({
      ok: true,
      outputs: { url: expect.stringContaining(`/issues/${other.number}#issuecomment-`) },
    });
    expect([...fake.comments.values()].map((c) => c.issue)).toEqual([other.number]);

    const reply = () =>
      port.perform(
        effect(
          "comment",
          { body: "Done.", issue: String(pr.number), reply_to: String(first) },
          "k/r/1",
        ),
        run,
      );
    const r1 = await reply();
    expect(r1).toMatchObject({
      ok: true,
      outputs: { url: expect.stringContaining("discussion_r") },
    });
    const replies = [...fake.reviewComments.values()].filter((c) => c.in_reply_to_id === first);
    expect(replies).toHaveLength(1);
    expect(replies[0]?.body).toMatch(/^Done\.\n\n<!-- /);
    // A reply that may have been posted before is looked for in the pull request's review comments.
    port.mayHaveDone("k/r/1");
    const mark = fake.requests.length;
    const r2 = await reply();
    expect(r2).toEqual(r1);
    expect(fake.since(mark).map((r) => r.method)).toEqual(["GET"]);
    expect(
      [...fake.reviewComments.values()].filter((c) => c.in_reply_to_id === first),
    ).toHaveLength(1);
    // A reply to a comment that is not on that pull request fails as GitHub answers.
    expect(
      await port.perform(
        effect("comment", { body: "x", issue: String(pr.number), reply_to: "999999" }, "k/r/2"),
        run,
      ),
    ).toMatchObject({
      ok: false,
      error: {
        code: "GH-NOT-FOUND",
        message: expect.stringContaining("reply to review comment 999999"),
      },
    });
  });

  it("dispatch, comment (found again by its key), ai and start_playbook", async () => {
    expect(
      await port.perform(effect("dispatch", { workflow: "ci.yml", inputs: { n: 1 } }), run),
    ).toMatchObject({ ok: true });
    expect(fake.dispatches).toEqual([{ workflow: "ci.yml", ref: BRANCH, inputs: { n: "1" } }]);
    await port.perform(effect("dispatch", { workflow: "ci.yml", ref: "dev" }), run);
    expect(fake.dispatches[1]?.ref).toBe("dev");
    // A comment asked for in this event is simply posted: the thread is not listed first.
    let mark = fake.requests.length;
    const c1 = await port.perform(effect("comment", { body: "Note" }, "k/c/1"), run);
    expect(fake.since(mark).map((r) => r.method)).toEqual(["POST"]);
    // One that may have been posted before (its result never saved) is looked for among the
    // comments changed since its step began, and found by its key: not posted twice.
    port.mayHaveDone("k/c/1");
    mark = fake.requests.length;
    const c2 = await port.perform(effect("comment", { body: "Note" }, "k/c/1"), run);
    expect(c1).toEqual(c2);
    expect(fake.comments.size).toBe(1);
    const listed = fake.since(mark);
    expect(listed.map((r) => r.method)).toEqual(["GET"]);
    expect(listed[0]?.path).toMatch(/[?&]since=/);
    const ai = await port.perform(
      effect("ai", { prompt: "why?", tools: [], scope: "write", expected_findings: [] }),
      run,
    );
    expect(ai.ok).toBe(true);
    expect((await port.perform(effect("ai", { prompt: "p" }), run)).ok).toBe(true);
    expect(await port.perform(effect("start_playbook", {}), run)).toEqual({
      ok: true,
      outputs: {},
    });
    fake.fault = () => ({
      status: 403,
      body: { message: "Resource not accessible by integration" },
    });
    expect(await port.perform(effect("dispatch", { workflow: "ci.yml" }), run)).toMatchObject({
      ok: false,
      error: { code: "GH-PERMISSION", message: "the app may not dispatch ci.yml" },
    });
    for (const [kind, what] of [
      ["issue", "open an issue"],
      ["close", "close the issue"],
      ["comment", "comment"],
      ["pull_request", "open a pull request from h"],
      ["commit", "commit to b"],
    ] as const)
      expect(
        await port.perform(effect(kind, { head: "h", branch: "b", title: "t" }), run),
      ).toMatchObject({ ok: false, error: { message: `the app may not ${what}` } });
  });
});

describe("evidence of work on an issue", () => {
  it("finds the pull requests that name the issue, with their files and approvals", async () => {
    fake.pushAs("fix-disk", "Rotate WAL", { "ops/wal.sh": "rotate" });
    const fix = fake.openPullAs("alice", "fix-disk", "Rotate the WAL archive", "Fixes #1");
    fix.approvedBy = ["carol", "carol", "erin"];
    // Open, its files are what its head changes.
    expect((await port.linkedPullRequests(1, 5))[0]).toMatchObject({
      merged: false,
      files: ["ops/wal.sh"],
    });
    fake.closePull(fix.number, true);
    fix.files = ["ops/wal.sh"];
    fake.openPullAs("bob", "other", "Unrelated", "See #10 and #1x");
    const docs = fake.openPullAs("bob", "docs", "Runbook for #1", "");
    docs.files = ["docs/disk.md"];
    expect(await port.linkedPullRequests(1, 5)).toEqual([
      {
        number: fix.number,
        title: "Rotate the WAL archive",
        branch: "fix-disk",
        base: BRANCH,
        merged: true,
        files: ["ops/wal.sh"],
        approvedBy: ["carol", "erin"],
      },
      {
        number: docs.number,
        title: "Runbook for #1",
        branch: "docs",
        base: BRANCH,
        merged: false,
        files: ["docs/disk.md"],
      },
    ]);
    expect(await port.linkedPullRequests(1, 1)).toHaveLength(1);
  });

  it("lists issues with every label asked for, leaving pull requests out", async () => {
    fake.openIssue("Two", "", "alice", ["db", "disk"]);
    fake.openIssue("Three", "", "alice", ["db"]);
    fake.postAs(2, "alice", "hi");
    expect(await port.issuesLabelled(["db", "disk"], 10)).toEqual([
      { number: 2, labels: ["db", "disk"], comments: 1 },
    ]);
    expect((await port.issuesLabelled(["db"], 10)).map((i) => i.number)).toEqual([3, 2]);
  });
});
