import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { describeRequests, FakeGitHub, requestsDuring } from "../../helpers/fake-github.js";
import { multiRepo, shipApp } from "./fixtures.js";
import { example, Harness, makeClock, readStatus } from "./harness.js";

/** Deliver pending comment events one by one, recording the requests each one caused. */
async function drainRecorded(h: Harness, log: { event: string; requests: string[] }[]) {
  for (let ev = h.takeEvent(); ev; ev = h.takeEvent()) {
    const e = ev;
    const who = e.comment.performed_via_github_app ? "app" : e.comment.user.login;
    const r = await requestsDuring(h.fake, () => h.deliver("issue_comment", h.commentPayload(e)));
    log.push({ event: `issue_comment.${e.action} by ${who}`, requests: r.requests });
  }
}

describe("a full playbook on a fake repository", () => {
  let fake: FakeGitHub;
  let h: Harness;
  beforeEach(async () => {
    nock.disableNetConnect();
    ({ fake, h } = await shipApp());
  });
  afterEach(() => {
    fake.uninstall();
  });

  it("walks label → plan → refusals → approval → branch → commit → pull request → merge → close", async () => {
    const log: { event: string; requests: string[] }[] = [];
    const issue = fake.openIssue("Ship it", "Please ship.", "alice");
    const start = await requestsDuring(fake, () => h.label(issue.number, "playbook:ship", "alice"));
    log.push({ event: "issues.labeled", requests: start.requests });
    await drainRecorded(h, log);
    for (const [who, body] of [
      ["bob", "/approve"],
      ["alice", "/approve"],
      ["carol", "/approve"],
    ]) {
      fake.postAs(issue.number, who as string, body as string);
      await drainRecorded(h, log);
    }
    const pr = [...fake.pulls.values()][0]!;
    const merge = await requestsDuring(fake, () => h.closePull(pr.number, true));
    log.push({ event: "pull_request.closed", requests: merge.requests });
    await drainRecorded(h, log);
    const R = "/repos/Codertocat/Hello-World";
    const strip = (xs: string[]) =>
      xs.map((x) => x.replace(R, "").replace(/[0-9a-f]{40}/g, "<sha>"));
    const at = (n: number) => strip(log[n]?.requests ?? []);
    // Start: discovery (ref, tree, one blob, no org repository), the labeller, the thread, then
    // the status comment: created first, its state sealed to it in the save that follows.
    expect(log[0]?.event).toBe("issues.labeled");
    expect(at(0)).toEqual([
      "GET /git/ref/heads/master",
      "GET /git/trees/<sha>",
      "GET /git/blobs/<sha>",
      "GET /repos/Codertocat/.github",
      "GET /collaborators/alice/permission",
      "GET /issues/1/comments",
      "POST /issues/1/comments",
      "PATCH /issues/comments/1000",
    ]);
    // The app's own comments are never commands: their created events cost nothing.
    expect(log[1]?.event).toBe("issue_comment.created by app");
    expect(at(1)).toEqual([]);
    // The app's save is the continuation that enters the checkpoint: the prompt is posted before
    // the state that records its id. The edit's payload carries the state: nothing is read.
    expect(log[2]?.event).toBe("issue_comment.edited by app");
    expect(at(2)).toEqual(["POST /issues/1/comments", "PATCH /issues/comments/1000"]);
    // The edit of an earlier save (a newer one followed it) costs nothing at all.
    expect(log[4]?.event).toBe("issue_comment.edited by app");
    expect(at(4)).toEqual([]);
    // bob has read access only: reactions, no reply. The run's status comment is the one this
    // process last wrote (its state is the newest the coordination store knows): not read again.
    const bob = log.findIndex((l) => l.event === "issue_comment.created by bob");
    expect(at(bob)).toEqual([
      "POST /issues/comments/1002/reactions",
      "GET /collaborators/bob/permission",
      "POST /issues/comments/1002/reactions",
    ]);
    // alice may not approve her own run: 👀, her role (asked at the start: a conditional re-read
    // answered 304, free), the run, the one-line reply, 👎.
    const alice = log.findIndex((l) => l.event === "issue_comment.created by alice");
    expect(at(alice)).toEqual([
      "POST /issues/comments/1003/reactions",
      "GET /collaborators/alice/permission (304)",
      "POST /issues/1/comments",
      "POST /issues/comments/1003/reactions",
    ]);
    const carol = log.findIndex((l) => l.event === "issue_comment.created by carol");
    expect(at(carol)).toEqual([
      "POST /issues/comments/1005/reactions",
      "GET /collaborators/carol/permission",
      "PATCH /issues/comments/1000",
      "POST /issues/comments/1005/reactions",
    ]);
    // One step per continuation: branch, commit, pull request; before each effect the approver's
    // role is checked again. Between them, the edit of each earlier save costs nothing.
    const after = (from: number) =>
      log
        .slice(from + 1)
        .filter((l) => l.requests.length > 0)
        .map((l) => strip(l.requests));
    const [branch, commit, pull] = after(carol);
    expect(branch).toEqual([
      "PATCH /issues/comments/1000",
      // Where the state key is not the host's alone, the approving comment is read again
      // (never edited, carol's, /approve); her role, asked before, is a free 304.
      "GET /issues/comments/1005",
      "GET /collaborators/carol/permission (304)",
      "GET /git/ref/heads/playbook/ship-1",
      "GET /git/ref/heads/master",
      "POST /git/refs",
      "PATCH /issues/comments/1000",
    ]);
    expect(commit).toEqual([
      "PATCH /issues/comments/1000",
      "GET /issues/comments/1005 (304)",
      "GET /collaborators/carol/permission (304)",
      "GET /git/ref/heads/playbook/ship-1",
      "GET /commits",
      "GET /git/commits/<sha>",
      "POST /git/trees",
      "POST /git/commits",
      "PATCH /git/refs/heads/playbook/ship-1",
      "PATCH /issues/comments/1000",
    ]);
    expect(pull).toEqual([
      "PATCH /issues/comments/1000",
      "GET /issues/comments/1005 (304)",
      "GET /collaborators/carol/permission (304)",
      "GET /pulls",
      "POST /pulls",
      "POST /issues/1/comments",
      "PATCH /issues/comments/1000",
    ]);
    // The merge: the pull request is the app's (its issue view says so); the run's playbooks are
    // those of its pinned commit, already known to be on the default branch: no discovery.
    const merged = log.findIndex((l) => l.event === "pull_request.closed");
    expect(at(merged)).toEqual(["GET /issues/2", "PATCH /issues/comments/1000"]);
    expect(after(merged)[0]).toEqual([
      "PATCH /issues/comments/1000",
      "GET /issues/comments/1005 (304)",
      "GET /collaborators/carol/permission (304)",
      "GET /issues/1",
      "PATCH /issues/1",
      "PATCH /issues/comments/1000",
    ]);
    // Every edit of an earlier save costs nothing.
    const idle = log.filter((l) => l.event.includes("edited by app") && l.requests.length === 0);
    expect(idle.length).toBeGreaterThanOrEqual(5);
    // The app's other comments cost nothing.
    for (const l of log.filter((l) => l.event === "issue_comment.created by app").slice(1))
      expect(l.requests).toEqual([]);

    // What people see.
    const bodies = [...fake.comments.values()].map((c) => `${c.user.login}: ${c.body}`);
    // bob (read access) is answered with reactions only; alice with a reason.
    expect(bodies.filter((b) => b.startsWith("playbook-bot[bot]") && b.includes("bob"))).toEqual(
      [],
    );
    expect(bodies).toContain(
      "playbook-bot[bot]: > /approve\n\n👎 @\u200balice started this run and cannot approve it; approval is for people with maintain access or more",
    );
    const reactions = (login: string) => {
      const c = [...fake.comments.values()].find((x) => x.user.login === login);
      return fake.reactions.filter((r) => r.commentId === c?.id).map((r) => r.content);
    };
    expect(reactions("bob")).toEqual(["eyes", "-1"]);
    expect(reactions("alice")).toEqual(["eyes", "-1"]);
    expect(reactions("carol")).toEqual(["eyes", "rocket"]);

    // What is left on GitHub: one branch, one commit with the trailer on it, one PR, one status, closed.
    expect(fake.branches().sort()).toEqual(["master", "playbook/ship-1"]);
    const commits = fake.commitsWith(/^Playbook-Run: /);
    expect(commits).toHaveLength(1);
    expect(commits[0]?.message).toMatch(
      /^docs: ship\n\nPlaybook-Run: 20260301-0900-1-[a-z0-9]{5}\/commit\/1$/,
    );
    const tree = fake.repo.trees.get(commits[0]?.tree ?? "");
    expect(fake.repo.blobs.get(tree?.get("docs/ship.md") ?? "")).toBe("Shipped for #1\n");
    expect(fake.pulls.size).toBe(1);
    expect(pr.body).toMatch(
      /<!-- playbook-bot:pull-request issue=1 key=20260301-0900-1-[a-z0-9]{5}\/pr\/1 -->/,
    );
    expect(issue.state).toBe("closed");
    expect(issue.state_reason).toBe("completed");
    const status = fake.statusComments(issue.number);
    expect(status).toHaveLength(1);
    const read = readStatus(status[0]);
    expect(read.ok && read.run.status).toBe("completed");
    expect(status[0]?.body).toContain("### ✅ Ship a change");
    expect(bodies.at(-1)).toMatch(
      /^playbook-bot\[bot\]: Run 20260301-0900-1-[a-z0-9]{5} completed\.$/,
    );
    // The whole run: 55 requests over 23 deliveries (4 of them the guard's conditional re-reads).
    expect(log).toHaveLength(23);
    expect(fake.requests).toHaveLength(55);
    expect(describeRequests(fake.requests).length).toBe(
      log.reduce((n, l) => n + l.requests.length, 0),
    );
  });
});

describe("a dispatched workflow", () => {
  it("waits for workflow_run.completed of that workflow and finishes the run", async () => {
    nock.disableNetConnect();
    const clock = makeClock();
    const fake = multiRepo(clock).install();
    try {
      const h = await new Harness(fake, clock).start();
      const issue = fake.openIssue("Deploy", "", "alice");
      await h.comment(issue.number, "alice", "/run deploy");
      expect(fake.dispatches).toEqual([
        { workflow: "test.yml", ref: "master", inputs: { issue: "1" } },
      ]);
      expect(fake.statusComments(1)[0]?.body).toContain(
        "**Waiting for:** workflow test.yml to finish",
      );
      const p = example("workflow_run", "completed", 1);
      p.repository = example("issues", "labeled").repository;
      fake.completedWorkflowRun(p, fake.workflowRuns[0]!);
      const r = await requestsDuring(fake, () => h.deliver("workflow_run", p));
      await h.drain();
      // The run's status comment as this process last wrote it, still the newest: no read.
      expect(r.requests.map((x) => x.replace("/repos/Codertocat/Hello-World", ""))).toEqual([
        "PATCH /issues/comments/1001",
      ]);
      const read = readStatus(fake.statusComments(1)[0]);
      expect(read.ok && read.run.status).toBe("completed");
      // Another workflow's run is not awaited: no request.
      const other = example("workflow_run", "completed", 1);
      other.repository = p.repository;
      other.workflow_run.path = ".github/workflows/other.yml";
      other.workflow_run.name = "Other";
      expect((await requestsDuring(fake, () => h.deliver("workflow_run", other))).count).toBe(0);
    } finally {
      fake.uninstall();
    }
  });
});
