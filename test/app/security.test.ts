import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readStatusComment } from "../../src/app/status-comment.js";
import { FakeGitHub, requestsDuring } from "../helpers/fake-github.js";
import { multiRepo } from "./fixtures.js";
import { CONFIG, Harness, makeClock } from "./harness.js";

let fake: FakeGitHub;
let h: Harness;

beforeEach(async () => {
  nock.disableNetConnect();
  const clock = makeClock();
  fake = multiRepo(clock).install();
  h = await new Harness(fake, clock).start();
  fake.openIssue("Ship it", "", "alice");
});
afterEach(() => fake.uninstall());

const saves = (rs: string[]) =>
  rs.filter((r) => r.startsWith("PATCH /repos/Codertocat/Hello-World/issues/comments/"));
const runOf = (body: string) => {
  const read = readStatusComment(body, CONFIG.stateSecret);
  if (!read.ok) throw new Error(read.detail);
  return read.run;
};
const bodies = () => [...fake.comments.values()].map((c) => c.body);

async function startShip() {
  await h.label(1, "playbook:ship", "alice");
  await h.drain();
  const status = fake.statusComments(1)[0];
  if (!status) throw new Error("no status");
  return status;
}

describe("state blocks", () => {
  it("ignores a state block a person posts (a pasted copy of the status comment)", async () => {
    const status = await startShip();
    const r = await requestsDuring(fake, () => h.comment(1, "bob", status.body));
    expect(r.count).toBe(0); // no command in it, and a person's comment carries no state
    // A new process lists the thread: the copy is still not a run.
    await h.start();
    await h.comment(1, "alice", "/status");
    const reply = bodies().at(-1) ?? "";
    expect(reply.split("\n")).toHaveLength(1);
    expect(reply).toContain(`(#issuecomment-${status.id}) of **ship**: waiting at \`approve\``);
    // Pasted with a command, it is just a command from bob (refused), not state.
    await h.comment(1, "bob", `/approve\n${status.body}`);
    expect(bodies().at(-1)).toContain("👎 @bob may not approve this step");
    expect(runOf(fake.statusComments(1)[0]?.body ?? "").status).toBe("waiting");
  });

  it("freezes a run whose state block was edited, saying what happened and how to recover", async () => {
    const status = await startShip();
    const tampered = status.body.replace(/state ([A-Za-z0-9_-]{10})/, "state x$1");
    fake.editAs(status.id, tampered); // a person edits the app's comment
    await h.drain();
    const notice = bodies().find((b) => b.includes("is frozen"));
    expect(notice).toBe(
      `⚠️ The run in [this status comment](#issuecomment-${status.id}) is frozen: the state block's signature does not match: it was edited or written by someone else.\nIts state cannot be trusted, so nothing more happens in it. Start a new run with \`/run <playbook>\`; steps already done (branches, commits, pull requests) are found again, not repeated.`,
    );
    // Nothing moves it any more, and the notice is not repeated.
    await h.comment(1, "carol", "/approve");
    expect(bodies().at(-1)).toBe("> /approve\n\n👎 nothing on this issue waits for /approve");
    expect(bodies().filter((b) => b.includes("is frozen"))).toHaveLength(1);
    expect(fake.branches()).toEqual(["master"]);
    expect(fake.comments.get(status.id)?.body).toBe(tampered);
    // Recovery as the notice says: a new run works.
    await h.comment(1, "alice", "/run ship");
    expect(fake.statusComments(1)).toHaveLength(2);
  });

  it("does not approve when a comment is edited to say /approve", async () => {
    const status = await startShip();
    const c = fake.postAs(1, "carol", "Looks fine to me.");
    await h.drain();
    fake.editAs(c.id, "/approve");
    const r = await requestsDuring(fake, () => h.drain());
    expect(saves(r.requests)).toEqual([]);
    expect(fake.reactions.filter((x) => x.commentId === c.id)).toEqual([]);
    expect(runOf(fake.comments.get(status.id)?.body ?? "").status).toBe("waiting");
    expect(fake.branches()).toEqual(["master"]);
  });

  it("does not obey a bot's /approve, and makes no request for it", async () => {
    const status = await startShip();
    fake.permissions.set("release-bot[bot]", "admin");
    const r = await requestsDuring(fake, () => h.comment(1, "release-bot[bot]", "/approve"));
    expect(r.count).toBe(0);
    expect(runOf(fake.comments.get(status.id)?.body ?? "").status).toBe("waiting");
  });
});

describe("votes", () => {
  it("withdraws a vote whose comment is deleted before the step moved on", async () => {
    await h.comment(1, "alice", "/run release");
    const status = fake.statusComments(1)[0]!;
    const vote = await h.comment(1, "dave", "/approve");
    expect(runOf(fake.comments.get(status.id)?.body ?? "").stack[0]?.votes).toHaveLength(1);
    fake.deleteAs(vote);
    const r = await requestsDuring(fake, () => h.drain());
    expect(saves(r.requests)).toHaveLength(1);
    let run = runOf(fake.comments.get(status.id)?.body ?? "");
    expect(run.stack[0]?.votes).toEqual([]);
    expect(run.trace.at(-1)?.outcome).toBe("vote withdrawn");
    // A second approval is the only one: still waiting.
    await h.comment(1, "erin", "/approve");
    run = runOf(fake.comments.get(status.id)?.body ?? "");
    expect(run.status).toBe("waiting");
    expect(run.stack[0]?.votes.map((v) => v.user)).toEqual(["erin"]);
    expect(bodies()).not.toContain(expect.stringContaining("Released."));
    // A third person makes two: the run goes on.
    await h.comment(1, "carol", "/approve");
    expect(bodies().some((b) => b.startsWith("Released."))).toBe(true);
    expect(runOf(fake.comments.get(status.id)?.body ?? "").status).toBe("completed");
  });
});
