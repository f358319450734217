import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub, requestsDuring } from "../../helpers/fake-github.js";
import { multiRepo } from "./fixtures.js";
import { Harness, makeClock, readStatus } from "./harness.js";

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
const runOf = (c: Parameters<typeof readStatus>[0]) => {
  const read = readStatus(c);
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
    // Pasted with a command, it is just a command from bob (refused), not state. Bob has only
    // read access: he gets reactions, never a reply.
    const before = bodies().length;
    const pasted = await h.comment(1, "bob", `/approve\n${status.body}`);
    expect(bodies()).toHaveLength(before + 1); // bob's own comment
    expect(fake.reactions.filter((x) => x.commentId === pasted).map((x) => x.content)).toEqual([
      "eyes",
      "-1",
    ]);
    // From someone with a role it is refused in words; the reply quotes the command, not the block.
    await h.comment(1, "dave", `/approve\n${status.body}`);
    const refusal = bodies().at(-1) ?? "";
    expect(refusal).toBe(
      "> /approve\n\n👎 @\u200bdave may not approve this step; approval is for people with maintain access or more",
    );
    expect(runOf(fake.statusComments(1)[0]).status).toBe("waiting");
    expect(fake.statusComments(1)).toHaveLength(1);
  });

  it("freezes a run whose state block was edited, saying what happened and how to recover", async () => {
    const status = await startShip();
    const tampered = status.body.replace(/ ([A-Za-z0-9_-]{10})([A-Za-z0-9_-]*\.)/, " x$1$2");
    expect(tampered).not.toBe(status.body);
    fake.editAs(status.id, tampered, "carol"); // a write user edits the app's comment
    await h.drain();
    const notice = bodies().find((b) => b.includes("edited [the status comment]"));
    expect(notice).toContain(
      "the run is frozen and nothing more happens in it (`PB-STATE-EDITED`)",
    );
    expect(notice).toContain("To go on, start it again: `/run ship`");
    // The app puts its own state back, frozen: the edited block is gone.
    const run = runOf(fake.comments.get(status.id));
    expect(run.status).toBe("failed");
    expect(run.error?.code).toBe("PB-STATE-EDITED");
    expect(run.trace.at(-1)).toMatchObject({ event: "edited", actor: "carol", outcome: "frozen" });
    // Nothing moves it any more.
    await h.comment(1, "carol", "/approve");
    expect(bodies().at(-1)).toBe("> /approve\n\n👎 nothing on this issue waits for /approve");
    expect(fake.branches()).toEqual(["master"]);
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
    expect(runOf(fake.comments.get(status.id)).status).toBe("waiting");
    expect(fake.branches()).toEqual(["master"]);
    // Nor does a remark edited into /run start one: `issue_comment.edited` is never a command.
    const other = fake.postAs(1, "carol", "Thanks.");
    await h.drain();
    fake.editAs(other.id, "/run ship", "alice");
    await h.drain();
    expect(fake.statusComments(1)).toHaveLength(1);
    expect(fake.reactions.filter((x) => x.commentId === other.id)).toEqual([]);
  });

  it("does not obey a bot's /approve, and makes no request for it", async () => {
    const status = await startShip();
    fake.permissions.set("release-bot[bot]", "admin");
    const r = await requestsDuring(fake, () => h.comment(1, "release-bot[bot]", "/approve"));
    expect(r.count).toBe(0);
    expect(runOf(fake.comments.get(status.id)).status).toBe("waiting");
  });
});

describe("votes", () => {
  it("withdraws a vote whose comment is deleted before the step moved on", async () => {
    await h.comment(1, "alice", "/run release");
    const status = fake.statusComments(1)[0]!;
    const vote = await h.comment(1, "dave", "/approve");
    expect(runOf(fake.comments.get(status.id)).stack[0]?.votes).toHaveLength(1);
    fake.deleteAs(vote);
    const r = await requestsDuring(fake, () => h.drain());
    expect(saves(r.requests)).toHaveLength(1);
    let run = runOf(fake.comments.get(status.id));
    expect(run.stack[0]?.votes).toEqual([]);
    expect(run.trace.at(-1)?.outcome).toBe("vote withdrawn");
    // A second approval is the only one: still waiting.
    await h.comment(1, "erin", "/approve");
    run = runOf(fake.comments.get(status.id));
    expect(run.status).toBe("waiting");
    expect(run.stack[0]?.votes.map((v) => v.user)).toEqual(["erin"]);
    expect(bodies()).not.toContain(expect.stringContaining("Released."));
    // A third person makes two: the run goes on.
    await h.comment(1, "carol", "/approve");
    expect(bodies().some((b) => b.startsWith("Released."))).toBe(true);
    expect(runOf(fake.comments.get(status.id)).status).toBe("completed");
  });
});
