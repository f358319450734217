import { beforeAll, describe, expect, it } from "vitest";
import { useActionsBot } from "../../helpers/actions-bot.js";
import { describeRequests, type FakeGitHub } from "../../helpers/fake-github.js";

/**
 * The Actions bot on long threads. A run does not take the command of its own event from the
 * payload (`issue_comment.created` and `issues.labeled` are replayed), so the reconcile must read
 * every comment and event of the replay window: GitHub lists them oldest first, 100 a page, and
 * the last page holds only `total % 100`. Anyone may comment, so chatter after a command, or a
 * burst of mentions and subscriptions after a label, must not hide it.
 */
const SECRET = "another-repository-secret";
const DAY = 24 * 3_600_000;
const WAIT = `apiVersion: playbook-bot/v1
id: wait
name: Wait for a go
description: A maintainer says go.
steps:
  - id: approve
    type: checkpoint
    message: Go ahead?
    approvers: { permission: maintain }
  - id: done
    type: end
`;

describe("mode: bot, a command or label on a thread longer than a page", () => {
  const now = Date.now();
  let at = now;
  const bot = useActionsBot({
    secret: SECRET,
    files: { ".github/playbooks/wait.yaml": WAIT },
    roles: { alice: "admin", mallory: "read" },
    clock: () => new Date(at),
  });
  let fake: FakeGitHub;
  beforeAll(() => {
    fake = bot.fake;
  });
  const { lines } = bot;

  /** A workflow run for a comment on the issue; what it asked of the thread, counted. */
  async function runFor(issue: number) {
    const last = [...fake.comments.values()].filter((c) => c.issue === issue).at(-1)!;
    const mark = fake.requests.length;
    const logged = lines.length;
    const code = await bot.run("issue_comment", bot.commentEvent(last.id));
    const asked = fake.since(mark);
    const thread = `/repos/${fake.owner}/${fake.name}/issues/${issue}`;
    // The reconcile's reads: comments since the window's start (the app reads its status
    // comments on its own), and events.
    const window = `since=${new Date(now - DAY).toISOString()}`;
    const reads = describeRequests(asked);
    return {
      code,
      comments: asked.filter(
        (r, i) => reads[i] === `GET ${thread}/comments` && r.path.includes(window),
      ).length,
      events: reads.filter((r) => r === `GET ${thread}/events`).length,
      paths: asked.map((r) => r.path),
      log: lines.slice(logged),
    };
  }

  const started = (issue: number) => fake.statusComments(issue).length === 1;

  it("a thread within a page: one request for its comments, one for its events", async () => {
    const issue = fake.openIssue("Short thread", "", "alice").number;
    fake.postAs(issue, "alice", "/run wait");
    const r = await runFor(issue);
    expect(r.code).toBe(0);
    expect(started(issue)).toBe(true);
    expect([r.comments, r.events]).toEqual([1, 1]);
  });

  it("a /run that is comment 100 of 101 is run (the last page holds one comment)", async () => {
    const issue = fake.openIssue("Long thread", "", "alice").number;
    for (let i = 0; i < 99; i++) fake.postAs(issue, "mallory", `chatter ${i}`);
    fake.postAs(issue, "alice", "/run wait");
    fake.postAs(issue, "mallory", "chatter after");
    const r = await runFor(issue);
    expect(r.code).toBe(0);
    expect(started(issue)).toBe(true);
    // Two pages of comments, asked for since the window's start.
    expect([r.comments, r.events]).toEqual([2, 1]);
  });

  it("a /run followed by a burst of 150 comments is run", async () => {
    const issue = fake.openIssue("Burst", "", "alice").number;
    fake.postAs(issue, "alice", "/run wait");
    for (let i = 0; i < 150; i++) fake.postAs(issue, "mallory", `burst ${i}`);
    const r = await runFor(issue);
    expect(r.code).toBe(0);
    expect(started(issue)).toBe(true);
    expect([r.comments, r.events]).toEqual([2, 1]);
  });

  it("comments older than the window are not read: 250 of them cost no page", async () => {
    const issue = fake.openIssue("Old thread", "", "alice").number;
    at = now - 2 * DAY;
    for (let i = 0; i < 250; i++) fake.postAs(issue, "mallory", `old ${i}`);
    at = now;
    fake.postAs(issue, "alice", "/run wait");
    const r = await runFor(issue);
    expect(started(issue)).toBe(true);
    expect(r.comments).toBe(1);
  });

  it("a label pushed behind 150 mention and subscription events is replayed", async () => {
    const issue = fake.openIssue("Labelled", "", "alice").number;
    fake.labelAs(issue, "playbook:wait", "alice");
    fake.recordEvents(issue, "mentioned", "mallory", 75);
    fake.recordEvents(issue, "subscribed", "mallory", 75);
    fake.postAs(issue, "mallory", "chatter");
    const r = await runFor(issue);
    expect(r.code).toBe(0);
    expect(started(issue)).toBe(true);
    // 151 events: the first page and the last, read backwards until the window's start.
    expect([r.comments, r.events]).toEqual([1, 2]);
  });

  it("events are read backwards only until they are older than the window", async () => {
    const issue = fake.openIssue("Old events", "", "alice").number;
    at = now - 2 * DAY;
    fake.recordEvents(issue, "mentioned", "mallory", 450);
    at = now;
    fake.recordEvents(issue, "subscribed", "mallory", 120);
    fake.labelAs(issue, "playbook:wait", "alice");
    fake.postAs(issue, "mallory", "chatter");
    const r = await runFor(issue);
    expect(started(issue)).toBe(true);
    // 572 events, 6 pages: page 1, then 6 and 5 (whose oldest event is before the window).
    expect(r.events).toBe(3);
    expect(r.paths.filter((p) => p.includes(`/issues/${issue}/events`))).toEqual([
      expect.stringContaining("page=1"),
      expect.stringContaining("page=6"),
      expect.stringContaining("page=5"),
    ]);
  });

  it("past 30 pages of comments, the newest are read and the log says what was cut", async () => {
    const issue = fake.openIssue("Flood", "", "alice").number;
    for (let i = 0; i < 3_050; i++) fake.postAs(issue, "mallory", `flood ${i}`);
    fake.postAs(issue, "alice", "/run wait");
    const r = await runFor(issue);
    expect(started(issue)).toBe(true);
    expect(r.comments).toBe(30);
    expect(r.log.join("\n")).toMatch(
      new RegExp(
        `#${issue}: 31 pages of comments since .*: read the first and the newest 29, not pages 2 to 2`,
      ),
    );
  }, 60_000);
});
