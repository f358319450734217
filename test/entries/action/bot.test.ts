import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundledBot } from "../../helpers/bundled-bot.js";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { EXAMPLE_REPO, makeClock } from "../app/harness.js";
import { SHIP } from "../app/fixtures.js";

/**
 * The Actions runtime as a runner runs it: the bundled `dist/action/index.js` in a child process
 * against a GitHub API on loopback (test/helpers/bundled-bot.ts).
 */
describe("mode: bot, the bundled Action against a GitHub API on loopback", () => {
  let fake: FakeGitHub;
  const bot = bundledBot(() => fake);

  beforeAll(async () => {
    fake = new FakeGitHub({
      ...EXAMPLE_REPO,
      appId: 15368,
      appSlug: "github-actions",
      // Near the runner's own clock: the bot replays what the last day brought.
      clock: makeClock(new Date(Date.now() - 3_600_000).toISOString()),
      files: { "README.md": "# hello\n", ".github/playbooks/ship.yaml": SHIP },
    });
    fake.permissions.set("alice", "write");
    fake.permissions.set("carol", "maintain");
    fake.permissions.set("bob", "read");
    await bot.start();
  });
  afterAll(() => bot.close());
  const { runAction, labeled, commented, pullClosed, statuses } = bot;
  /** The run in the issue's (first) status comment, its seal checked with the workflow's secret. */
  const status = (issue: number) => statuses(issue)[0];
  const reactionsOn = (id: number) =>
    fake.reactions.filter((r) => r.commentId === id).map((r) => r.content);
  const writes = (mark: number) =>
    fake.since(mark).filter((r) => r.method !== "GET" && r.status < 300);

  it("label → refused and accepted /approve (a replaced run's) → branch, commit, pull request → merge → closed", async () => {
    const issue = fake.openIssue("Ship it", "Please ship.", "alice");
    fake.labelAs(issue.number, "playbook:ship", "alice");
    const started = await runAction("issues", labeled(issue.number, "playbook:ship", "alice"));
    expect(started.out).not.toMatch(/error/i);
    expect(started.code).toBe(0);
    // The run went on by itself until it waited: the checkpoint's prompt is posted.
    expect(status(issue.number)?.stack[0]?.current).toBe("approve");
    expect(status(issue.number)?.stack[0]?.phase).toBe("waiting");

    // bob may only read: refused, and the run still waits.
    const bob = fake.postAs(issue.number, "bob", "/approve");
    expect((await runAction("issue_comment", commented(bob.id))).code).toBe(0);
    expect(reactionsOn(bob.id)).toContain("-1");
    expect(status(issue.number)?.stack[0]?.current).toBe("approve");

    // carol's /approve (naming the run, as the prompt asks here) started a workflow run that
    // waited in the concurrency group and was replaced by the next comment's: that run honours
    // it all the same.
    const carol = fake.postAs(issue.number, "carol", `/approve ${status(issue.number)?.id}`);
    const chatter = fake.postAs(issue.number, "alice", "Thanks, carol.");
    const next = await runAction("issue_comment", commented(chatter.id));
    expect(next.code).toBe(0);
    expect(reactionsOn(carol.id)).toEqual(["eyes", "rocket"]);
    // bob's refused command was answered before: not answered twice.
    expect(reactionsOn(bob.id).filter((r) => r === "-1")).toHaveLength(1);
    const [pr] = [...fake.pulls.values()];
    expect(pr?.head).toBe(`playbook/ship-${issue.number}`);
    expect(fake.pullCommits(pr!.number).map((c) => c.message.split("\n")[0])).toEqual([
      "docs: ship",
    ]);
    expect(status(issue.number)?.stack[0]?.current).toBe("pr");

    // The same workflow run again (a re-run): everything was answered, nothing is written.
    const mark = fake.requests.length;
    expect((await runAction("issue_comment", commented(chatter.id))).code).toBe(0);
    expect(writes(mark)).toEqual([]);

    // A person merges the pull request: the run closes the issue and ends.
    fake.closePull(pr!.number, true);
    const merged = await runAction("pull_request", pullClosed(pr!.number));
    expect(merged.code).toBe(0);
    expect(fake.issues.get(issue.number)?.state).toBe("closed");
    expect(status(issue.number)?.status).toBe("completed");
  }, 60_000);

  it("takes no comment edited into a command for one: neither the edit's own run nor a later replay", async () => {
    const issue = fake.openIssue("Ship this too", "", "alice");
    fake.labelAs(issue.number, "playbook:ship", "alice");
    expect((await runAction("issues", labeled(issue.number, "playbook:ship", "alice"))).code).toBe(
      0,
    );
    expect(status(issue.number)?.stack[0]?.phase).toBe("waiting");
    // carol (maintain) remarks twice; alice (write, who may edit anyone's comment) makes one an
    // /approve and the other a /run, as if carol had asked for both.
    const remark = fake.postAs(issue.number, "carol", "Looks fine to me.");
    expect((await runAction("issue_comment", commented(remark.id))).code).toBe(0);
    const other = fake.postAs(issue.number, "carol", "Thanks.");
    expect((await runAction("issue_comment", commented(other.id))).code).toBe(0);
    fake.editAs(remark.id, "/approve", "alice");
    fake.editAs(other.id, "/run ship", "alice");
    // The edit's own workflow run (`issue_comment.edited`), then a later comment's run, which
    // replays the issue's last day.
    const edited = await runAction("issue_comment", {
      ...commented(remark.id),
      action: "edited",
      changes: { body: { from: "Looks fine to me." } },
      sender: fake.user("alice"),
    });
    expect(edited.code).toBe(0);
    const later = fake.postAs(issue.number, "alice", "Any news?");
    const replay = await runAction("issue_comment", commented(later.id));
    expect(replay.code).toBe(0);
    expect(status(issue.number)?.stack[0]?.current).toBe("approve");
    expect(status(issue.number)?.stack[0]?.phase).toBe("waiting");
    expect(fake.statusComments(issue.number)).toHaveLength(1);
    expect(reactionsOn(remark.id)).toEqual([]);
    expect(reactionsOn(other.id)).toEqual([]);
    // Said in the job's log, not silently.
    for (const c of [remark, other])
      expect(replay.out).toContain(
        `comment ${c.id} by @carol on #${issue.number} was edited after it was written`,
      );
  }, 60_000);

  it("holds a cancelled run cancelled when a write user puts back its state from before the /cancel", async () => {
    const issue = fake.openIssue("Ship, then stop", "", "alice");
    fake.labelAs(issue.number, "playbook:ship", "alice");
    await runAction("issues", labeled(issue.number, "playbook:ship", "alice"));
    const approve = fake.postAs(issue.number, "carol", `/approve ${status(issue.number)?.id}`);
    expect((await runAction("issue_comment", commented(approve.id))).code).toBe(0);
    expect(status(issue.number)?.stack[0]?.current).toBe("pr");
    const [statusComment] = fake.statusComments(issue.number);
    const approved = statusComment!.body;
    const pr = [...fake.pulls.values()].find((p) => p.head === `playbook/ship-${issue.number}`)!;

    // carol cancels; then alice, who can read `state-secret` and write as github-actions[bot]
    // with any workflow's token, puts the approved state back and merges the pull request.
    const cancel = fake.postAs(issue.number, "carol", "/cancel");
    expect((await runAction("issue_comment", commented(cancel.id))).code).toBe(0);
    expect(status(issue.number)?.status).toBe("cancelled");
    fake.editAs(statusComment!.id, approved);
    expect(status(issue.number)?.status).toBe("waiting");
    fake.closePull(pr.number, true);
    const merged = await runAction("pull_request", pullClosed(pr.number));
    expect(merged.code).toBe(0);
    // carol's /cancel is on the thread as she wrote it: the run does nothing more.
    expect(fake.issues.get(issue.number)?.state).toBe("open");
    expect(status(issue.number)?.error?.code).toBe("PB-CANCELLED");
    expect(status(issue.number)?.error?.message).toContain(`@carol cancelled this run`);
  }, 60_000);

  it("refuses to start without a state secret, saying how to give one", async () => {
    const issue = fake.openIssue("Another", "", "alice");
    const r = await runAction("issues", labeled(issue.number, "playbook:ship", "alice"), {
      "INPUT_STATE-SECRET": "",
    });
    expect(r.code).toBe(1);
    expect(r.out).toContain("::error::mode: bot needs `state-secret`");
    expect(fake.statusComments(issue.number)).toEqual([]);
  });
});
