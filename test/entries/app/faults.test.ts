import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub, requestsDuring } from "../../helpers/fake-github.js";
import { shipApp, shipRepo } from "./fixtures.js";
import { Harness, makeClock, readStatus } from "./harness.js";

/** The ship scenario, from the label to the merge; every continuation is delivered. */
async function scenario(h: Harness, fake: FakeGitHub) {
  const issue = fake.openIssue("Ship it", "Please ship.", "alice");
  await h.label(issue.number, "playbook:ship", "alice");
  await h.drain();
  await h.comment(issue.number, "bob", "/approve");
  await h.comment(issue.number, "alice", "/approve");
  await h.comment(issue.number, "carol", "/approve");
  const pr = [...fake.pulls.keys()][0];
  if (pr !== undefined) {
    await h.closePull(pr, true);
    await h.drain();
  }
  return issue;
}

/** A PATCH of one of this app's comments: a state save. */
function isSave(fake: FakeGitHub, method: string, path: string): boolean {
  const m = /\/issues\/comments\/([0-9]+)$/.exec(path);
  return (
    method === "PATCH" &&
    m !== null &&
    fake.comments.get(Number(m[1]))?.performed_via_github_app?.id === fake.appId
  );
}

/** The first line of each comment the app wrote, in order. */
function appThread(fake: FakeGitHub): string[] {
  return [...fake.comments.values()]
    .filter((c) => c.performed_via_github_app)
    .map((c) => c.body.split("\n")[0] ?? "");
}

/** The id of the (one) run on issue 1. */
function runIdOf(fake: FakeGitHub): string {
  const read = readStatus(fake.statusComments(1)[0]);
  if (!read.ok) throw new Error(read.detail);
  return read.run.id;
}

function expectShipped(fake: FakeGitHub, issue: { number: number; state: string }) {
  expect(fake.branches().sort()).toEqual(["master", "playbook/ship-1"]);
  const commits = fake.commitsWith(/^Playbook-Run: /);
  expect(commits).toHaveLength(1);
  expect(fake.repo.refs.get("heads/playbook/ship-1")).toBe(commits[0]?.sha);
  expect(fake.pulls.size).toBe(1);
  const status = fake.statusComments(issue.number);
  expect(status).toHaveLength(1);
  const read = readStatus(status[0]);
  expect(read.ok && read.run.status).toBe("completed");
  expect(issue.state).toBe("closed");
}

describe("the process dies between an effect and the state save", () => {
  beforeEach(() => nock.disableNetConnect());
  afterEach(() => nock.cleanAll());

  it("finishes with one branch, one commit, one pull request and one status comment, whichever save fails", async () => {
    const clock = makeClock();
    const clean = shipRepo(clock).install();
    const h0 = await new Harness(clean, clock).start();
    expectShipped(clean, await scenario(h0, clean));
    const saves = clean.requests.filter((r) => isSave(clean, r.method, r.path)).length;
    const cleanThread = appThread(clean);
    // Bob (read access) is answered with reactions only; alice, who started the run, may not
    // approve it and is told so.
    expect(
      cleanThread.map((l) =>
        l
          .replace(/run `[0-9]{8}-[0-9]{4}-1-[a-z0-9]{5}`/, "run `<id>`")
          .replace(/Run [0-9]{8}-[0-9]{4}-1-[a-z0-9]{5}/, "Run <id>"),
      ),
    ).toEqual([
      "### ✅ Ship a change · run `<id>`",
      "**approve** waits for approval: Ship the change?",
      "> /approve",
      "Waiting for pull request #2 to be merged.",
      "Run <id> completed.",
    ]);
    clean.uninstall();
    // The first save writes the state into the comment created for it.
    expect(saves).toBe(13);

    const repeated: string[] = [];
    for (let k = 1; k <= saves; k++) {
      const { fake, h } = await shipApp();
      h.restartOnFailure = true;
      let n = 0;
      // The comment posted just before the failing save, if any: the status comment created for
      // the state, or the announcement of a step that starts waiting.
      let posted: string | undefined;
      fake.fault = ({ method, path }) => {
        if (!isSave(fake, method, path) || ++n !== k) return undefined;
        const before = fake.requests.at(-1);
        if (before?.method === "POST" && before.path.endsWith("/issues/1/comments"))
          posted = String((before.body as { body?: unknown }).body).split("\n")[0];
        return { status: 500 };
      };
      const issue = await scenario(h, fake);
      // One crash, one redelivery of the same delivery id to a new process.
      expect(h.crashes, `save ${k}`).toHaveLength(1);
      const crashed = h.crashes[0]?.id;
      expect(h.delivered.filter((d) => d.id === crashed)).toHaveLength(1);
      expectShipped(fake, issue);
      // The thread reads the same as without the crash: none lost, and nothing twice except what
      // was written before the save that failed. A crash between creating the status comment and
      // writing its state into it (the first save) leaves that comment as it was, "Starting…"
      // without a run; the redelivery starts the run afresh. A crash between announcing a wait and
      // saving it announces it again (the newer announcement is the one that orders the answers).
      const starting = `⏳ Starting **ship** (run \`${runIdOf(fake)}\`)…`;
      const leftover = k === 1 ? [starting] : [];
      if (k === 1) expect(posted).toBe(starting);
      const announced = k === 1 ? undefined : posted;
      if (announced) repeated.push(announced);
      const expected = cleanThread.flatMap((l) => (l === announced ? [l, l] : [l]));
      expect(appThread(fake), `save ${k}`).toEqual([...leftover, ...expected]);
      fake.uninstall();
    }
    // Two saves follow an announcement: the wait for approval and the wait for the merge.
    expect(repeated).toEqual([
      "**approve** waits for approval: Ship the change?",
      "Waiting for pull request #2 to be merged.",
    ]);
  });

  it("recovers the same way when the save answers 503", async () => {
    const { fake, h } = await shipApp();
    h.restartOnFailure = true;
    let n = 0;
    fake.fault = ({ method, path }) =>
      isSave(fake, method, path) && ++n === 4 ? { status: 503, body: "upstream reset" } : undefined;
    expectShipped(fake, await scenario(h, fake));
    expect(h.crashes).toHaveLength(1);
    fake.uninstall();
  });
});

describe("duplicate and concurrent commands", () => {
  let fake: FakeGitHub;
  let h: Harness;
  beforeEach(async () => {
    nock.disableNetConnect();
    ({ fake, h } = await shipApp());
    fake.permissions.set("erin", "admin");
    const issue = fake.openIssue("Ship it", "", "alice");
    await h.label(issue.number, "playbook:ship", "alice");
    await h.drain();
  });
  afterEach(() => fake.uninstall());

  it("starts one run for a label delivered again to a new process, and for /run delivered again", async () => {
    const label = h.delivered[0]!;
    expect(label.name).toBe("issues");
    await h.start();
    const r = await requestsDuring(fake, () => h.deliver(label.name, label.payload, label.id));
    expect(r.requests.filter((x) => !x.startsWith("GET"))).toEqual([]);
    expect(fake.statusComments(1)).toHaveLength(1);
    fake.postAs(1, "alice", "/run ship");
    const payload = h.commentPayload(fake.events.shift()!);
    await h.deliver("issue_comment", payload, "run-once");
    await h.drain();
    expect(fake.statusComments(1)).toHaveLength(2);
    await h.start();
    const comments = fake.comments.size;
    await h.deliver("issue_comment", payload, "run-once");
    expect(fake.comments.size).toBe(comments);
  });

  it("advances once for two /approve comments delivered at the same time", async () => {
    const a = fake.postAs(1, "carol", "/approve");
    const b = fake.postAs(1, "erin", "/approve");
    const [ea, eb] = fake.events.splice(0, 2);
    const r = await requestsDuring(fake, () =>
      Promise.all([
        h.deliver("issue_comment", h.commentPayload(ea!)),
        h.deliver("issue_comment", h.commentPayload(eb!)),
      ]),
    );
    // One save: the second command found nothing waiting any more.
    expect(r.requests.filter((x) => x.startsWith("PATCH"))).toHaveLength(1);
    const reacts = (id: number) =>
      fake.reactions.filter((x) => x.commentId === id).map((x) => x.content);
    expect(reacts(a.id)).toEqual(["eyes", "rocket"]);
    expect(reacts(b.id)).toEqual(["eyes", "-1"]);
    expect([...fake.comments.values()].at(-1)?.body).toBe(
      "> /approve\n\n👎 nothing on this issue waits for /approve",
    );
    await h.drain();
    await h.closePull(2, true);
    await h.drain();
    expectShipped(fake, fake.issues.get(1)!);
  });

  it("advances once for the same delivery received twice, even at the same time", async () => {
    const c = fake.postAs(1, "carol", "/approve");
    const payload = h.commentPayload(fake.events.shift()!);
    const r = await requestsDuring(fake, () =>
      Promise.all([
        h.deliver("issue_comment", payload, "dup"),
        h.deliver("issue_comment", payload, "dup"),
      ]),
    );
    expect(r.requests.filter((x) => x.startsWith("PATCH"))).toHaveLength(1);
    expect(fake.reactions.filter((x) => x.commentId === c.id).map((x) => x.content)).toEqual([
      "eyes",
      "rocket",
    ]);
    // Once more, later: still nothing.
    expect(
      (await requestsDuring(fake, () => h.deliver("issue_comment", payload, "dup"))).count,
    ).toBe(0);
    await h.drain();
    expect(fake.branches()).toContain("playbook/ship-1");
    expect(fake.commitsWith(/^Playbook-Run: /)).toHaveLength(1);
    expect(fake.pulls.size).toBe(1);
    // Redelivered to a new process (its dedupe is gone): the run remembers the event.
    await h.start();
    const comments = fake.comments.size;
    const again = await requestsDuring(fake, () => h.deliver("issue_comment", payload, "dup"));
    // Only the idempotent reactions are repeated; no reply, no 👎.
    expect(again.requests.filter((x) => !x.startsWith("GET"))).toEqual([
      `POST /repos/Codertocat/Hello-World/issues/comments/${c.id}/reactions`,
      `POST /repos/Codertocat/Hello-World/issues/comments/${c.id}/reactions`,
    ]);
    expect(fake.comments.size).toBe(comments);
    expect(fake.reactions.filter((x) => x.commentId === c.id).map((x) => x.content)).toEqual([
      "eyes",
      "rocket",
    ]);
  });
});

describe("rate limits", () => {
  beforeEach(() => nock.disableNetConnect());
  afterEach(() => nock.cleanAll());

  for (const [what, fault] of [
    [
      "a 403 with retry-after",
      {
        status: 403,
        headers: { "retry-after": "60" },
        body: { message: "You have exceeded a secondary rate limit" },
      },
    ],
    ["a 429", { status: 429, body: { message: "Too many requests" } }],
  ] as const) {
    it(`records ${what} on an effect as GH-RATE-LIMITED, and /retry resumes the run`, async () => {
      const { fake, h } = await shipApp();
      fake.fault = ({ method, path }) =>
        method === "POST" && path.endsWith("/git/trees")
          ? { ...fault, headers: { ...("headers" in fault ? fault.headers : {}) } }
          : undefined;
      const issue = fake.openIssue("Ship it", "", "alice");
      await h.label(1, "playbook:ship", "alice");
      await h.drain();
      await h.comment(1, "carol", "/approve");
      const status = fake.statusComments(1)[0]!;
      const read = readStatus(status);
      expect(read.ok && read.run.status).toBe("failed");
      expect(read.ok && read.run.error?.code).toBe("GH-RATE-LIMITED");
      expect(status.body).toContain("(`GH-RATE-LIMITED`)");
      expect(status.body).toContain("**How to recover:** GitHub asked us to slow down");
      if ("headers" in fault) expect(status.body).toContain("(retry after 60 s)");
      expect([...fake.comments.values()].some((c) => c.body.includes("failed at **commit**"))).toBe(
        true,
      );
      fake.fault = undefined;
      const retry = fake.postAs(1, "alice", "/retry");
      await h.drain();
      expect(fake.reactions.filter((x) => x.commentId === retry.id).map((x) => x.content)).toEqual([
        "eyes",
        "rocket",
      ]);
      expect(fake.pulls.size).toBe(1);
      await h.closePull(2, true);
      await h.drain();
      expectShipped(fake, issue);
      fake.uninstall();
    });
  }
});
