import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { Harness, makeClock, OWNER, readStatus, EXAMPLE_REPO } from "./harness.js";

/** A checkpoint with the given policy, then a comment (the effect it gates). */
const gated = (id: string, approvers: string) => `apiVersion: playbook-bot/v1
id: ${id}
name: ${id}
description: An approval, then a comment.
steps:
  - id: gate
    type: checkpoint
    message: Go?
    approvers: ${approvers}
  - id: say
    type: comment
    body: Done.
  - id: fin
    type: end
    status: success
`;

const ASK = `apiVersion: playbook-bot/v1
id: ask
name: Ask
description: A comment that asks first.
steps:
  - id: say
    type: comment
    body: Done.
    authority: ask-first
  - id: fin
    type: end
    status: success
`;

const TWO_GATES = `apiVersion: playbook-bot/v1
id: two-gates
name: Two gates
description: The core team approves, then a maintainer; then a comment.
steps:
  - id: first
    type: checkpoint
    message: Go?
    approvers: { teams: [core] }
  - id: second
    type: checkpoint
    message: Really?
    approvers: { permission: maintain }
  - id: say
    type: comment
    body: Done.
  - id: fin
    type: end
    status: success
`;

let fake: FakeGitHub;
let h: Harness;
const bodies = () => [...fake.comments.values()].map((c) => c.body);
const run = () => {
  const read = readStatus(fake.statusComments(1)[0]);
  if (!read.ok) throw new Error(read.detail);
  return read.run;
};
/** Whether the gated comment was posted (the effect ran). */
const said = () => bodies().some((b) => b.startsWith("Done."));
const core = () => fake.teams.get(`${OWNER}/core`) as Set<string>;

/** A person's command is handled, and nothing after it yet (the run's next step is not entered). */
async function commandOnly(login: string, body: string): Promise<void> {
  fake.postAs(1, login, body);
  const ev = fake.events.shift();
  if (!ev) throw new Error("no event");
  await h.deliver("issue_comment", h.commentPayload(ev));
}

beforeEach(async () => {
  nock.disableNetConnect();
  const clock = makeClock();
  fake = new FakeGitHub({
    ...EXAMPLE_REPO,
    clock,
    files: {
      ".github/playbooks/team-maintain.yaml": gated(
        "team-maintain",
        "{ teams: [core], permission: maintain }",
      ),
      ".github/playbooks/team.yaml": gated("team", "{ teams: [core] }"),
      ".github/playbooks/team-two.yaml": gated("team-two", "{ teams: [core], count: 2 }"),
      ".github/playbooks/named.yaml": gated("named", "{ users: [bob], permission: admin }"),
      ".github/playbooks/ask.yaml": ASK,
      ".github/playbooks/two-gates.yaml": TWO_GATES,
    },
  }).install();
  for (const [who, role] of [
    ["alice", "write"],
    ["carol", "maintain"],
    ["bob", "read"],
    ["dan", "read"],
    ["frank", "read"],
  ])
    fake.permissions.set(who as string, role as string);
  fake.teams.set(`${OWNER}/core`, new Set(["bob", "dan", "frank"]));
  h = await new Harness(fake, clock).start();
  fake.openIssue("Issue", "", "alice");
});
afterEach(() => fake.uninstall());

describe("approvals checked again before an effect", () => {
  it("a role lookup GitHub leaves unanswered then fails the delivery, to be tried again, and never the run", async () => {
    await h.comment(1, "alice", "/run team-maintain");
    let lookups = 0;
    fake.fault = ({ method, path }) =>
      method === "GET" && path.includes("/collaborators/bob/permission") && ++lookups === 2
        ? { status: 502, body: { message: "Bad Gateway" } }
        : undefined;
    // The approval is taken (the first lookup); the check before the comment meets the 502.
    await expect(h.comment(1, "bob", "/approve")).rejects.toThrow(/Bad Gateway/);
    expect(said()).toBe(false);
    expect(run().status).not.toBe("failed");
    // GitHub's redelivery (or the inbox's retry) of the failed delivery carries the run on.
    const failed = h.delivered.at(-1)!;
    await h.deliver(failed.name, failed.payload, failed.id);
    await h.drain();
    expect(lookups).toBeGreaterThanOrEqual(3);
    expect(said()).toBe(true);
    expect(run().status).toBe("completed");
  });

  it("a team admits an approver with only read access, where the policy also names a permission", async () => {
    await h.comment(1, "alice", "/run team-maintain");
    await h.comment(1, "bob", "/approve");
    expect(said()).toBe(true);
    expect(run().status).toBe("completed");
  });

  it("users: admits an approver with only read access, where the policy also names a permission", async () => {
    await h.comment(1, "alice", "/run named");
    await h.comment(1, "bob", "/approve");
    expect(said()).toBe(true);
    expect(run().status).toBe("completed");
  });

  it("a team member who left the team after approving: the effect does not run", async () => {
    await h.comment(1, "alice", "/run team");
    await commandOnly("bob", "/approve");
    expect(run().stack[0]?.results.gate?.status).toBe("completed");
    core().delete("bob");
    await h.drain();
    expect(said()).toBe(false);
    expect(run().status).toBe("failed");
    expect(run().error).toMatchObject({
      code: "GH-PERMISSION",
      message:
        "the approval of 'gate' no longer holds: @bob may not approve this step; approval is for members of core",
    });
  });

  it("every passed checkpoint is checked again, not only the latest", async () => {
    await h.comment(1, "alice", "/run two-gates");
    await h.comment(1, "bob", "/approve");
    expect(run().stack[0]?.current).toBe("second");
    core().delete("bob");
    await h.comment(1, "carol", "/approve");
    expect(said()).toBe(false);
    expect(run().error?.code).toBe("GH-PERMISSION");
    expect(run().error?.message).toContain("the approval of 'first' no longer holds: @bob");
  });

  it("an ask-first approval is checked again: a maintainer who is one no more", async () => {
    await h.comment(1, "alice", "/run ask");
    expect(run().stack[0]?.phase).toBe("approval");
    await commandOnly("carol", "/approve");
    fake.permissions.set("carol", "write");
    await h.drain();
    expect(said()).toBe(false);
    expect(run().error).toMatchObject({
      code: "GH-PERMISSION",
      message:
        "the approval of 'say' no longer holds: @carol may not approve this step; approval is for people with maintain access or more",
    });
  });

  it("an ask-first approval that still holds lets the effect run", async () => {
    await h.comment(1, "alice", "/run ask");
    await h.comment(1, "carol", "/approve");
    expect(said()).toBe(true);
    expect(run().status).toBe("completed");
  });

  it("GitHub's refusal to show the team denies; its 5xx fails the delivery, not the run", async () => {
    await h.comment(1, "alice", "/run team");
    await commandOnly("bob", "/approve");
    fake.fault = (req) =>
      req.path.includes("/teams/") ? { status: 500, body: { message: "boom" } } : undefined;
    await expect(h.drain()).rejects.toThrow(/boom/);
    expect(said()).toBe(false);
    expect(run().error).toBeUndefined();
    fake.fault = (req) =>
      req.path.includes("/teams/")
        ? { status: 403, body: { message: "Resource not accessible by integration" } }
        : undefined;
    const failed = h.delivered.at(-1)!;
    await h.deliver(failed.name, failed.payload, failed.id);
    await h.drain();
    expect(said()).toBe(false);
    expect(run().error?.code).toBe("GH-PERMISSION");
  });
});

describe("approvals needing several people", () => {
  it("an earlier vote by someone who has since left the team does not complete the count", async () => {
    await h.comment(1, "alice", "/run team-two");
    await h.comment(1, "bob", "/approve");
    core().delete("bob");
    await h.comment(1, "dan", "/approve");
    expect(said()).toBe(false);
    expect(run().status).toBe("waiting");
    expect(run().stack[0]?.votes.map((v) => v.user)).toEqual(["dan"]);
    expect(bodies()).toContain(
      "An earlier approval of **gate** no longer counts: @\u200bbob may not approve this step; approval is for members of core. 1 of 2 approvals.",
    );
    // Another member makes two: the run goes on.
    await h.comment(1, "frank", "/approve");
    expect(said()).toBe(true);
    expect(run().stack[0]?.results.gate?.outputs?.approved_by).toEqual(["dan", "frank"]);
  });
});
