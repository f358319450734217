import { describe, expect, it } from "vitest";
import type { Effect, EffectKind } from "../../../src/core/engine/events.js";
import type { RunState } from "../../../src/core/engine/state.js";
import { issueMarker, runTrailer } from "../../../src/runtime/effects.js";
import { MemoryGitHub } from "../../../src/adapters/memory/github.js";
import { STATE_MARKER } from "../../../src/runtime/github-port.js";
import { sampleRun } from "../../runtime/state/fixtures.js";

const T = new Date("2026-01-05T09:00:00Z");

function setup() {
  const gh = new MemoryGitHub("app[bot]", () => T);
  const issue = gh.openIssue("Bump lodash", "please", "alice", ["dependencies"]);
  const run: RunState = { ...sampleRun(), context: { issue: { number: issue.number } } };
  return { gh, issue, run };
}

/** An effect as a test writes it: params may leave out what the adapter defaults. */
function effect(kind: EffectKind, params: Record<string, unknown>, key = `k-${kind}`): Effect {
  return { key, kind, step: "s", params } as Effect;
}

describe("MemoryGitHub: the thread", () => {
  it("opens issues with increasing numbers and an empty thread", () => {
    const gh = new MemoryGitHub();
    expect(gh.appLogin).toBe("playbook-bot[bot]");
    const a = gh.openIssue("a", "body", "alice");
    const b = gh.openIssue("b", "", "bob", ["x"]);
    expect([a.number, b.number]).toEqual([1, 2]);
    expect(b).toMatchObject({ title: "b", author: "bob", labels: ["x"], state: "open" });
    expect(gh.thread.get(1)).toEqual([]);
    // Without a clock, comments carry the time they were written.
    const c = gh.postAs(1, "alice", "hi");
    expect(Number.isNaN(Date.parse(c.createdAt))).toBe(false);
  });

  it("records labels once on the issue but every labelling in the thread", () => {
    const { gh, issue } = setup();
    gh.addLabel(issue.number, "bug", "bob");
    gh.addLabel(issue.number, "bug", "carol");
    expect(gh.issues.get(issue.number)?.labels).toEqual(["dependencies", "bug"]);
    expect(gh.thread.get(issue.number)).toEqual([
      { kind: "label", actor: "bob", label: "bug", added: true },
      { kind: "label", actor: "carol", label: "bug", added: true },
    ]);
    // A label on an unknown issue is still a line of that thread, and creates no issue.
    gh.addLabel(99, "x", "bob");
    expect(gh.issues.has(99)).toBe(false);
    expect(gh.thread.get(99)).toEqual([{ kind: "label", actor: "bob", label: "x", added: true }]);
    gh.note(issue.number, "something happened");
    expect(gh.thread.get(issue.number)?.at(-1)).toEqual({
      kind: "event",
      text: "something happened",
    });
  });

  it("keeps people's comments apart from this app's, with the clock's time", async () => {
    const { gh, issue } = setup();
    const c = gh.postAs(issue.number, "bob", "/approve");
    const bot = gh.postAs(issue.number, "other[bot]", "beep", true);
    const mine = await gh.createComment(issue.number, "status");
    expect(c).toMatchObject({ author: "bob", bot: false, byThisApp: false, body: "/approve" });
    expect(c.createdAt).toBe(T.toISOString());
    expect(bot).toMatchObject({ bot: true, byThisApp: false });
    expect(mine).toMatchObject({ author: "app[bot]", bot: true, byThisApp: true });
    // The public view carries no bookkeeping (but what GitHub says: its issue, when it changed).
    expect(Object.keys(mine).sort()).toEqual(
      ["author", "body", "bot", "byThisApp", "createdAt", "id", "issue", "updatedAt"].sort(),
    );
    expect((await gh.comments(issue.number)).map((x) => x.id)).toEqual([c.id, bot.id, mine.id]);
    expect(await gh.comments(42)).toEqual([]);
    expect(gh.thread.get(issue.number)).toEqual([
      { kind: "comment", id: c.id },
      { kind: "comment", id: bot.id },
      { kind: "comment", id: mine.id },
    ]);
  });

  it("lists as status comments only this app's comments with a state block", async () => {
    const { gh, issue } = setup();
    const block = `text\n<!-- ${STATE_MARKER} abc.def -->`;
    gh.postAs(issue.number, "mallory", block); // a person's copy
    await gh.createComment(issue.number, "no block here");
    const status = await gh.createComment(issue.number, block);
    const other = gh.openIssue("other", "", "bob");
    await gh.createComment(other.number, block);
    const found = await gh.statusComments(issue.number);
    expect(found.map((c) => c.id)).toEqual([status.id]);
  });

  it("gets one comment only on its own issue", async () => {
    const { gh, issue } = setup();
    const c = gh.postAs(issue.number, "bob", "hi");
    expect((await gh.comment(issue.number, c.id))?.body).toBe("hi");
    expect(await gh.comment(issue.number + 1, c.id)).toBeUndefined();
    expect(await gh.comment(issue.number, "nope")).toBeUndefined();
  });

  it("counts edits by people and by this app, and refuses to update a missing comment", async () => {
    const { gh, issue } = setup();
    const c = gh.postAs(issue.number, "bob", "/approve");
    gh.editAs(c.id, "never mind");
    expect((await gh.comment(issue.number, c.id))?.body).toBe("never mind");
    expect(gh.editsOf(c.id)).toBe(1);
    gh.editAs("missing", "x"); // nothing to edit, nothing thrown
    expect(gh.editsOf("missing")).toBe(0);
    const s = await gh.createComment(issue.number, "v1");
    await gh.updateComment(issue.number, s.id, "v2");
    await gh.updateComment(issue.number, s.id, "v3");
    expect((await gh.comment(issue.number, s.id))?.body).toBe("v3");
    expect(gh.editsOf(s.id)).toBe(2);
    await expect(gh.updateComment(issue.number, "404", "x")).rejects.toThrow(
      "comment 404 not found",
    );
  });

  it("deletes a comment but keeps its place in the thread", async () => {
    const { gh, issue } = setup();
    const c = gh.postAs(issue.number, "bob", "/approve");
    gh.deleteComment(c.id);
    gh.deleteComment("missing");
    expect(await gh.comment(issue.number, c.id)).toBeUndefined();
    expect(await gh.comments(issue.number)).toEqual([]);
    expect(gh.thread.get(issue.number)).toEqual([{ kind: "comment", id: c.id }]);
  });

  it("records each reaction once per comment", async () => {
    const { gh, issue } = setup();
    const c = gh.postAs(issue.number, "bob", "/approve");
    await gh.react(issue.number, c.id, "eyes");
    await gh.react(issue.number, c.id, "eyes");
    await gh.react(issue.number, c.id, "rocket");
    await gh.react(issue.number, "missing", "-1");
    expect(gh.reactionsOf(c.id)).toEqual(["eyes", "rocket"]);
    expect(gh.reactionsOf("missing")).toEqual([]);
  });

  it("answers permissions and team membership case-insensitively, counting each request", async () => {
    const { gh } = setup();
    gh.permissions.set("carol", "maintain");
    gh.teamMembers.set("octo/release", ["carol"]);
    gh.teamMembers.set("octo/sre", ["dave"]);
    expect(await gh.permission("Carol")).toBe("maintain");
    expect(await gh.permission("nobody")).toBeUndefined();
    expect(await gh.teams("CAROL", ["Octo/Release", "octo/sre", "octo/none"])).toEqual([
      "Octo/Release",
    ]);
    expect(gh.calls).toEqual(["permission", "permission", "teams"]);
  });

  it("counts every request by kind", async () => {
    const { gh, issue, run } = setup();
    const c = await gh.createComment(issue.number, "s");
    await gh.updateComment(issue.number, c.id, "t");
    await gh.comments(issue.number);
    await gh.statusComments(issue.number);
    await gh.comment(issue.number, c.id);
    await gh.react(issue.number, c.id, "eyes");
    await gh.perform(effect("ai", { prompt: "hi" }), run);
    expect(gh.calls).toEqual([
      "create comment",
      "update comment",
      "list comments",
      "list comments",
      "get comment",
      "reaction",
      "effect ai",
    ]);
  });
});

describe("MemoryGitHub: effects", () => {
  it("creates a branch from main or from another branch, and finds it again", async () => {
    const { gh, run } = setup();
    const made = await gh.perform(effect("branch", { name: "feature" }), run);
    const url = "https://github.test/tree/feature";
    expect(made).toEqual({ ok: true, outputs: { name: "feature", sha: "c0", created: true, url } });
    expect(gh.branches.get("feature")).toEqual(["c0"]);
    const again = await gh.perform(effect("branch", { name: "feature" }), run);
    expect(again).toEqual({
      ok: true,
      outputs: { name: "feature", sha: "c0", created: false, url },
    });
    // From a branch with its own commit.
    await gh.perform(effect("commit", { branch: "feature", message: "m", files: [] }, "c1"), run);
    const sub = await gh.perform(effect("branch", { name: "sub", from: "feature" }), run);
    expect(sub).toMatchObject({
      ok: true,
      outputs: { name: "sub", sha: "sha0001", created: true },
    });
    // From a branch that does not exist: an empty branch without a head.
    const empty = await gh.perform(effect("branch", { name: "orphan", from: "nope" }), run);
    expect(empty).toEqual({
      ok: true,
      outputs: { name: "orphan", sha: "", created: true, url: "https://github.test/tree/orphan" },
    });
    const emptyAgain = await gh.perform(effect("branch", { name: "orphan" }), run);
    expect(emptyAgain).toMatchObject({ ok: true, outputs: { sha: "", created: false } });
  });

  it("refuses an existing branch when the step requires a new one", async () => {
    const { gh, run } = setup();
    const r = await gh.perform(effect("branch", { name: "main", require_new: true }), run);
    expect(r).toMatchObject({ ok: false, error: { code: "GH-CONFLICT" } });
    if (!r.ok) expect(r.error.message).toContain("branch 'main' already exists");
    expect(gh.branches.get("main")).toEqual(["c0"]);
  });

  it("commits once per effect key, found again by its trailer", async () => {
    const { gh, run } = setup();
    const e = effect(
      "commit",
      {
        branch: "main",
        message: "docs: greet",
        files: [
          { path: "a.md", content: "A" },
          { path: "b.md", content: "B" },
        ],
      },
      "run1/commit/1",
    );
    const first = await gh.perform(e, run);
    expect(first).toEqual({
      ok: true,
      outputs: {
        sha: "sha0001",
        branch: "main",
        created: true,
        url: "https://github.test/commit/sha0001",
      },
    });
    expect(gh.commits.get("sha0001")).toEqual({
      message: `docs: greet\n\n${runTrailer("run1/commit/1")}`,
      files: { "a.md": "A", "b.md": "B" },
    });
    const second = await gh.perform(e, run);
    expect(second).toEqual({
      ok: true,
      outputs: {
        sha: "sha0001",
        branch: "main",
        created: false,
        url: "https://github.test/commit/sha0001",
      },
    });
    expect(gh.branches.get("main")).toEqual(["c0", "sha0001"]);
    // Another key (the next attempt) is another commit.
    const next = await gh.perform({ ...e, key: "run1/commit/2" }, run);
    expect(next).toMatchObject({ ok: true, outputs: { sha: "sha0002" } });
    expect(gh.branches.get("main")).toEqual(["c0", "sha0001", "sha0002"]);
  });

  it("does not take a commit whose trailer names a longer key for this key's commit", async () => {
    const { gh, run } = setup();
    await gh.perform(effect("commit", { branch: "main", message: "m" }, "run1/fix/10"), run);
    const r = await gh.perform(
      effect("commit", { branch: "main", message: "m" }, "run1/fix/1"),
      run,
    );
    expect(r).toMatchObject({ ok: true, outputs: { sha: "sha0002" } });
    expect(gh.commits.get("sha0002")?.files).toEqual({});
  });

  it("fails a commit to a missing branch with GH-NOT-FOUND", async () => {
    const { gh, run } = setup();
    const r = await gh.perform(effect("commit", { branch: "ghost", message: "m" }), run);
    expect(r).toMatchObject({ ok: false, error: { code: "GH-NOT-FOUND" } });
    if (!r.ok) expect(r.error.message).toBe("branch 'ghost' does not exist");
    expect(gh.commits.size).toBe(1);
  });

  it("opens a pull request, notes it on the issue, and reuses the open one for the head", async () => {
    const { gh, issue, run } = setup();
    const e = effect("pull_request", {
      head: "feature",
      title: "Bump",
      body: "Closes #1",
      draft: true,
      labels: ["dependencies"],
    });
    const first = await gh.perform(e, run);
    expect(first).toEqual({
      ok: true,
      outputs: { number: 2, url: "https://github.test/pull/2", head: "feature", merged: false },
    });
    expect(gh.pulls.get(2)).toEqual({
      number: 2,
      title: "Bump",
      body: "Closes #1",
      head: "feature",
      base: "main",
      draft: true,
      labels: ["dependencies"],
      state: "open",
      merged: false,
      author: "app[bot]",
      createdAt: T.toISOString(),
    });
    const again = await gh.perform({ ...e, key: "other" }, run);
    expect(again).toMatchObject({ ok: true, outputs: { number: 2 } });
    expect(gh.pulls.size).toBe(1);
    expect(gh.thread.get(issue.number)).toEqual([
      { kind: "event", text: 'pull request #2 "Bump" opened from feature' },
    ]);
  });

  it("opens a new pull request for a head whose earlier one was closed, with defaults", async () => {
    const { gh, run } = setup();
    await gh.perform(effect("pull_request", { head: "h", title: "One" }), run);
    gh.closePull(2, false);
    const r = await gh.perform(effect("pull_request", { head: "h", title: "Two" }), run);
    expect(r).toMatchObject({ ok: true, outputs: { number: 3 } });
    expect(gh.pulls.get(3)).toMatchObject({ body: "", base: "main", draft: false, labels: [] });
  });

  it("merges a pull request's commits into its base; closing without merging leaves the base", async () => {
    const { gh, run } = setup();
    await gh.perform(effect("branch", { name: "f" }), run);
    await gh.perform(effect("commit", { branch: "f", message: "m" }, "a"), run);
    await gh.perform(effect("pull_request", { head: "f", title: "t" }), run);
    const closed = gh.closePull(2, false);
    expect(closed).toMatchObject({ state: "closed", merged: false });
    expect(gh.branches.get("main")).toEqual(["c0"]);
    const merged = gh.closePull(2, true);
    expect(merged).toMatchObject({ state: "closed", merged: true });
    expect(gh.branches.get("main")).toEqual(["c0", "sha0001"]);
    expect(gh.closePull(99, true)).toBeUndefined();
  });

  it("merges into a missing base, and from a missing head, without failing", () => {
    const gh = new MemoryGitHub();
    gh.pulls.set(5, {
      number: 5,
      title: "t",
      body: "",
      head: "gone",
      base: "release",
      draft: false,
      labels: [],
      state: "open",
      merged: false,
    });
    expect(gh.closePull(5, true)?.merged).toBe(true);
    expect(gh.branches.get("release")).toEqual([]);
  });

  it("opens an issue with a hidden marker once per effect key", async () => {
    const { gh, issue, run } = setup();
    const e = effect("issue", { title: "Follow up", body: "Later", labels: ["todo"] }, "run1/f/1");
    const first = await gh.perform(e, run);
    expect(first).toEqual({
      ok: true,
      outputs: { number: 2, url: "https://github.test/issues/2" },
    });
    expect(gh.issues.get(2)).toMatchObject({
      title: "Follow up",
      body: `Later\n\n${issueMarker("run1/f/1")}`,
      author: "app[bot]",
      labels: ["todo"],
    });
    const second = await gh.perform(e, run);
    expect(second).toEqual(first);
    expect(gh.issues.size).toBe(2);
    expect(gh.thread.get(issue.number)).toEqual([
      { kind: "event", text: 'issue #2 "Follow up" opened' },
    ]);
    const bare = await gh.perform(effect("issue", { title: "Bare" }, "run1/g/1"), run);
    expect(bare).toMatchObject({ ok: true, outputs: { number: 3 } });
    expect(gh.issues.get(3)).toMatchObject({ body: `\n\n${issueMarker("run1/g/1")}`, labels: [] });
  });

  it("adds and removes labels on the run's issue or another one", async () => {
    const { gh, issue, run } = setup();
    const r = await gh.perform(
      effect("label", { add: ["bug", "dependencies"], remove: ["dependencies", "absent"] }),
      run,
    );
    expect(r).toEqual({ ok: true, outputs: { labels: ["bug"] } });
    const other = gh.openIssue("o", "", "bob");
    const r2 = await gh.perform(effect("label", { issue: other.number, add: ["x"] }), run);
    expect(r2).toEqual({ ok: true, outputs: { labels: ["x"] } });
    const r3 = await gh.perform(effect("label", { issue: other.number, remove: ["x"] }), run);
    expect(r3).toEqual({ ok: true, outputs: { labels: [] } });
    // Applying the same effect twice leaves the same labels.
    const again = await gh.perform(effect("label", { add: ["bug"] }), run);
    expect(again).toEqual({ ok: true, outputs: { labels: ["bug"] } });
    expect(gh.thread.get(issue.number)).toEqual([
      { kind: "event", text: "labels of #1: bug" },
      { kind: "event", text: "labels of #2: x" },
      { kind: "event", text: "labels of #2: (none)" },
      { kind: "event", text: "labels of #1: bug" },
    ]);
  });

  it("fails labelling or closing a missing issue with GH-NOT-FOUND", async () => {
    const { gh, run } = setup();
    for (const kind of ["label", "close"] as const) {
      const r = await gh.perform(effect(kind, { issue: 77, reason: "completed" }), run);
      expect(r).toMatchObject({ ok: false, error: { code: "GH-NOT-FOUND" } });
      if (!r.ok) expect(r.error.message).toBe("issue #77 not found");
    }
    // A run without an issue has nothing to label.
    const noIssue: RunState = { ...run, context: {} };
    const r = await gh.perform(effect("label", { add: ["x"] }), noIssue);
    expect(r).toMatchObject({ ok: false, error: { code: "GH-NOT-FOUND" } });
    if (!r.ok) expect(r.error.message).toBe("issue #0 not found");
    const c = await gh.perform(effect("close", { reason: "completed" }), noIssue);
    if (!c.ok) expect(c.error.message).toBe("issue #0 not found");
    expect(c.ok).toBe(false);
  });

  it("closes an issue once, with its comment and reason", async () => {
    const { gh, issue, run } = setup();
    const e = effect("close", { reason: "not_planned", comment: "Closing: duplicate." });
    expect(await gh.perform(e, run)).toEqual({ ok: true, outputs: { state: "closed" } });
    expect(await gh.perform(e, run)).toEqual({ ok: true, outputs: { state: "closed" } });
    expect(gh.issues.get(issue.number)).toMatchObject({
      state: "closed",
      stateReason: "not_planned",
    });
    const comments = await gh.comments(issue.number);
    expect(comments.map((c) => c.body)).toEqual(["Closing: duplicate."]);
    expect(gh.thread.get(issue.number)?.filter((t) => t.kind === "event")).toEqual([
      { kind: "event", text: "issue #1 closed as not_planned" },
    ]);
  });

  it("closes another issue without a comment", async () => {
    const { gh, run } = setup();
    const other = gh.openIssue("o", "", "bob");
    const r = await gh.perform(effect("close", { issue: other.number, reason: "completed" }), run);
    expect(r.ok).toBe(true);
    expect(gh.issues.get(other.number)?.state).toBe("closed");
    expect(await gh.comments(other.number)).toEqual([]);
    expect(gh.thread.get(other.number)).toEqual([
      { kind: "event", text: "issue #2 closed as completed" },
    ]);
  });

  it("dispatches a workflow once per effect key, and again for another key", async () => {
    const { gh, issue, run } = setup();
    const e = effect("dispatch", { workflow: "ci.yml", inputs: { pr: 2 } }, "run1/ci/1");
    const first = await gh.perform(e, run);
    expect(first).toEqual({
      ok: true,
      outputs: { run_id: 1000, url: "https://github.test/actions/runs/1000" },
    });
    expect(await gh.perform(e, run)).toEqual(first);
    expect(gh.dispatched).toEqual([
      { key: "run1/ci/1", workflow: "ci.yml", ref: "main", inputs: { pr: 2 }, runId: 1000 },
    ]);
    // The same workflow with the same inputs, asked by a later step (a retry loop), runs again.
    const again = await gh.perform({ ...e, key: "run1/ci/2" }, run);
    expect(again).toMatchObject({ ok: true, outputs: { run_id: 1001 } });
    const other = await gh.perform(
      effect("dispatch", { workflow: "deploy.yml", ref: "release" }, "run1/deploy/1"),
      run,
    );
    expect(other).toMatchObject({ ok: true, outputs: { run_id: 1002 } });
    expect(gh.dispatched[2]).toMatchObject({ ref: "release", inputs: {} });
    expect(gh.thread.get(issue.number)).toEqual([
      { kind: "event", text: "workflow ci.yml started (run 1000)" },
      { kind: "event", text: "workflow ci.yml started (run 1001)" },
      { kind: "event", text: "workflow deploy.yml started (run 1002)" },
    ]);
  });

  it("posts a comment step once per effect key", async () => {
    const { gh, issue, run } = setup();
    const e = effect("comment", { body: "Hello" }, "run1/greet/1");
    const first = await gh.perform(e, run);
    expect(first).toEqual({
      ok: true,
      outputs: { id: "1", url: `https://github.test/issues/${issue.number}#comment-1` },
    });
    expect(await gh.perform(e, run)).toEqual(first);
    expect((await gh.comments(issue.number)).map((c) => c.body)).toEqual(["Hello"]);
    const next = await gh.perform({ ...e, key: "run1/greet/2" }, run);
    expect(next).toMatchObject({ ok: true, outputs: { id: "2" } });
    // A deleted comment is written again on retry.
    gh.deleteComment("2");
    const rewritten = await gh.perform({ ...e, key: "run1/greet/2" }, run);
    expect(rewritten).toMatchObject({ ok: true, outputs: { id: "3" } });
  });

  it("answers an AI step with a marked simulation of the prompt's first line", async () => {
    const { gh, run } = setup();
    const r = await gh.perform(effect("ai", { prompt: `Summarise ${"x".repeat(80)}\nmore` }), run);
    expect(r).toEqual({
      ok: true,
      outputs: { text: `(simulated AI answer to: Summarise ${"x".repeat(50)})` },
    });
  });

  it("starts a delegated playbook without any request", async () => {
    const { gh, run } = setup();
    expect(await gh.perform(effect("start_playbook", { playbook: "child" }), run)).toEqual({
      ok: true,
      outputs: {},
    });
    expect(gh.calls).toEqual(["effect start_playbook"]);
  });
});

describe("MemoryGitHub: what a run may adopt", () => {
  /** A commit someone pushes to a branch (made from main when missing). */
  function pushAs(gh: MemoryGitHub, branch: string, message: string): string {
    const sha = `foreign-${gh.commits.size}`;
    gh.commits.set(sha, { message, files: {} });
    gh.branches.set(branch, [...(gh.branches.get(branch) ?? gh.branches.get("main") ?? []), sha]);
    return sha;
  }

  it("refuses a branch with someone else's commit, reuses its own, and finds a new name when asked", async () => {
    const { gh, run } = setup();
    const foreign = pushAs(gh, "fix", "someone's change");
    const refused = await gh.perform(effect("branch", { name: "fix" }, "r1/b/1"), run);
    expect(refused).toMatchObject({ ok: false, error: { code: "GH-CONFLICT" } });
    if (!refused.ok)
      expect(refused.error.message).toContain(`${foreign.slice(0, 7)} "someone's change"`);

    const fresh = await gh.perform(
      effect("branch", { name: "fix", if_exists: "new-name" }, "r1/b/1"),
      run,
    );
    expect(fresh).toMatchObject({ ok: true, outputs: { name: "fix-2", created: true } });
    await gh.perform(effect("commit", { branch: "fix-2", message: "m", files: [] }, "r1/c/1"), run);
    for (const params of [{ name: "fix-2" }, { name: "fix", if_exists: "new-name" }])
      expect(await gh.perform(effect("branch", params, "r1/b/2"), run)).toMatchObject({
        ok: true,
        outputs: { name: "fix-2", created: false },
      });
    // Another run's commit is not this run's.
    expect(await gh.perform(effect("branch", { name: "fix-2" }, "r2/b/1"), run)).toMatchObject({
      ok: false,
      error: { code: "GH-CONFLICT" },
    });
  });

  it("does not adopt a decoy issue with the marker, or someone else's pull request", async () => {
    const { gh, run } = setup();
    const decoy = gh.openIssue("Follow up", `x ${issueMarker("r1/f/1")}`, "mallory");
    const made = await gh.perform(effect("issue", { title: "Follow up" }, "r1/f/1"), run);
    expect(made.ok && made.outputs.number).not.toBe(decoy.number);
    const again = await gh.perform(effect("issue", { title: "Follow up" }, "r1/f/1"), run);
    expect(again.ok && again.outputs.number).toBe(made.ok && made.outputs.number);

    pushAs(gh, "h", "work");
    gh.pulls.set(50, {
      number: 50,
      title: "Mine",
      body: "",
      head: "h",
      base: "main",
      draft: false,
      labels: [],
      state: "open",
      merged: false,
      author: "mallory",
    });
    const pr = await gh.perform(effect("pull_request", { head: "h", title: "T" }, "r1/p/1"), run);
    expect(pr).toMatchObject({ ok: false, error: { code: "GH-CONFLICT" } });
  });
});

describe("MemoryGitHub: evidence and proposals for /systematise", () => {
  it("links the pull requests that name an issue, with their files, approvals and times", () => {
    const { gh, issue } = setup();
    gh.pushAs("fix", "Pin lodash", { "package.json": "{}", "package-lock.json": "{}" });
    const fix = gh.openPullAs("carol", "fix", "Pin lodash", `Fixes #${issue.number}`);
    fix.approvedBy = ["dave"];
    gh.pushAs("other", "Unrelated", { "README.md": "x" });
    gh.openPullAs("carol", "other", "Unrelated", "see acme/x#1 and #99");
    gh.closePull(fix.number, true);
    return gh.linkedPullRequests(issue.number, 5).then((linked) => {
      expect(linked).toEqual([
        {
          number: fix.number,
          title: "Pin lodash",
          branch: "fix",
          base: "main",
          merged: true,
          files: ["package.json", "package-lock.json"],
          approvedBy: ["dave"],
          at: T.toISOString(),
        },
      ]);
      // GitHub shows the cross-reference in the issue's thread.
      expect(gh.thread.get(issue.number)).toContainEqual({
        kind: "event",
        text: `#${fix.number} "Pin lodash" mentioned this issue`,
      });
    });
  });

  it("proposes files once per key, again on the same branch and pull request, never merged", async () => {
    const { gh, issue } = setup();
    const proposal = {
      branch: "playbook-bot/systematise-x",
      files: [{ path: ".github/playbooks/x.yml", content: "id: x\n" }],
      message: "Add x",
      title: "Playbook x",
      body: "Review it",
    };
    const first = await gh.proposeFiles(issue.number, "systematise/1/d-1", proposal);
    const again = await gh.proposeFiles(issue.number, "systematise/1/d-1", proposal);
    expect(first.ok && again.ok && again.outputs.number).toBe(first.ok && first.outputs.number);
    expect(gh.branches.get("playbook-bot/systematise-x")).toHaveLength(2);
    const later = await gh.proposeFiles(issue.number, "systematise/1/d-2", {
      ...proposal,
      files: [{ path: ".github/playbooks/x.yml", content: "id: x\nname: X\n" }],
    });
    expect(later.ok && later.outputs.number).toBe(first.ok && first.outputs.number);
    expect(gh.fileAt("playbook-bot/systematise-x", ".github/playbooks/x.yml")).toBe(
      "id: x\nname: X\n",
    );
    expect(gh.fileAt("main", ".github/playbooks/x.yml")).toBeUndefined();
    // The app's own pull requests are not evidence of work people did.
    expect(await gh.linkedPullRequests(issue.number, 5)).toEqual([]);
  });

  it("refuses a branch someone else pushed to", async () => {
    const { gh, issue } = setup();
    gh.pushAs("playbook-bot/systematise-x", "mine", { "a.txt": "a" });
    const r = await gh.proposeFiles(issue.number, "systematise/1/d-1", {
      branch: "playbook-bot/systematise-x",
      files: [{ path: "x.yml", content: "x" }],
      message: "m",
      title: "t",
      body: "b",
    });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.code).toBe("GH-CONFLICT");
  });
});

describe("MemoryGitHub: a comment read again", () => {
  it("says when it was edited and which issue it is on", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const gh = new MemoryGitHub("app[bot]", () => new Date(now));
    const issue = gh.openIssue("t", "b", "alice").number;
    const c = gh.postAs(issue, "carol", "looks fine");
    const read = await gh.comment(issue, c.id);
    expect(read).toMatchObject({ issue, createdAt: read?.updatedAt });
    // A reaction is no edit.
    await gh.react(issue, c.id, "eyes");
    expect((await gh.comment(issue, c.id))?.updatedAt).toBe(read?.createdAt);
    now += 5000;
    gh.editAs(c.id, "/approve");
    const edited = await gh.comment(issue, c.id);
    expect(edited?.updatedAt).not.toBe(edited?.createdAt);
  });
});
