import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalFact, RunState } from "../../../src/core/engine/state.js";
import { renderStatusComment } from "../../../src/runtime/run-service/status-comment.js";
import { FakeGitHub, requestsDuring } from "../../helpers/fake-github.js";
import { EXAMPLE_REPO, Harness, makeClock, readStatus, sealOf } from "./harness.js";

/**
 * The guard before every effect reads each approval again from GitHub: the approving comment (by
 * the approver, never edited, still `/approve`, newer than the request) and the approver's role.
 * A state says where to look, never what is so: in the Actions runtime anyone with write access
 * can read the state key and write a state of their own.
 */

const GATED = `apiVersion: playbook-bot/v1
id: gated
name: Gated
description: A maintainer approves, then a comment.
steps:
  - id: gate
    type: checkpoint
    message: Go?
    approvers: { permission: maintain }
  - id: say
    type: comment
    body: Done.
  - id: again
    type: comment
    body: Also done.
  - id: fin
    type: end
    status: success
`;

let fake: FakeGitHub;
let h: Harness;
const bodies = () => [...fake.comments.values()].map((c) => c.body);
const said = () => bodies().filter((b) => b.startsWith("Done.")).length;
const status = () => fake.statusComments(1).at(-1)!;
const run = (): RunState => {
  const read = readStatus(status());
  if (!read.ok) throw new Error(read.detail);
  return read.run;
};

beforeEach(async () => {
  nock.disableNetConnect();
  const clock = makeClock();
  fake = new FakeGitHub({
    ...EXAMPLE_REPO,
    clock,
    files: { ".github/playbooks/gated.yaml": GATED },
  }).install();
  for (const [who, role] of [
    ["alice", "write"],
    ["carol", "maintain"],
    ["mallory", "write"],
  ])
    fake.permissions.set(who as string, role as string);
  h = await new Harness(fake, clock).start();
  fake.openIssue("Issue", "", "alice");
});
afterEach(() => fake.uninstall());

/**
 * What a write user who read the state key can do: write a state of their own into the run's
 * status comment, in which the gate was passed (approved by `approvers`, with `facts`), then
 * carry the run on (the app's next continuation). A fresh process remembers nothing it wrote.
 */
async function forgeApproval(approvers: string[], facts?: ApprovalFact[]): Promise<void> {
  const forged = run();
  const frame = forged.stack[0]!;
  frame.results.gate = {
    status: "completed",
    attempt: 1,
    at: frame.since,
    outputs: { approved_by: approvers, note: "" },
    ...(facts ? { approvals: facts } : {}),
  };
  frame.current = "say";
  frame.phase = "pending";
  frame.votes = [];
  await writeForged(forged);
}

/** The forged state sealed into the run's status comment, and the run carried on from it. */
async function writeForged(forged: RunState): Promise<void> {
  forged.status = "running";
  forged.seq += 1;
  const c = status();
  c.body = renderStatusComment(forged, () => undefined, sealOf(1, c.id));
  await h.start();
  await h.deliver("issue_comment", h.commentPayload({ action: "edited", comment: { ...c } }));
  await h.drain();
}

const promptOf = () => run().stack[0]!.prompt!.comment;

describe("the guard reads each approval again from GitHub", () => {
  it("refuses a forged state naming an approver who never commented", async () => {
    await h.comment(1, "alice", "/run gated");
    const prompt = promptOf();
    // The approver's comment named is alice's own (`/run gated`): not carol's, not /approve.
    const alices = [...fake.comments.values()].find((c) => c.body === "/run gated")!;
    await forgeApproval(["carol"], [{ user: "carol", comment: String(alices.id), prompt }]);
    expect(said()).toBe(0);
    expect(run().status).toBe("failed");
    expect(run().error).toMatchObject({
      code: "GH-PERMISSION",
      message: `the approval of 'gate' no longer holds: @carol's approving comment ${alices.id} was written by @alice, not by @carol`,
    });
  });

  it("refuses a forged state naming a comment that does not exist", async () => {
    await h.comment(1, "alice", "/run gated");
    await forgeApproval(["carol"], [{ user: "carol", comment: "987654321", prompt: promptOf() }]);
    expect(said()).toBe(0);
    expect(run().error?.message).toBe(
      "the approval of 'gate' no longer holds: @carol's approving comment 987654321 is gone",
    );
  });

  it("refuses an approval whose state names no comment (a state not written with facts), where the state key is not the app's alone", async () => {
    await h.comment(1, "alice", "/run gated");
    await forgeApproval(["carol"]);
    expect(said()).toBe(0);
    expect(run().error?.code).toBe("GH-PERMISSION");
    expect(run().error?.message).toContain(
      "the run's state names @carol but not the comment they approved in",
    );
    expect(run().error?.message).toContain("the approval must be given again");
  });

  it("believes such a state on the app's own server (its key is its alone), the approver's role checked", async () => {
    h.stateKeyPrivate = true;
    await h.comment(1, "alice", "/run gated");
    await forgeApproval(["carol"]);
    expect(said()).toBe(1);
    expect(run().status).toBe("completed");
  });

  it("refuses a maintainer's later comment that a write user edited into /approve", async () => {
    await h.comment(1, "alice", "/run gated");
    const prompt = promptOf();
    const words = fake.postAs(1, "carol", "Not yet: the migration needs a look first.");
    await h.drain();
    // Write users may edit anyone's comment.
    fake.editAs(words.id, "/approve", "mallory");
    await h.drain();
    expect(said()).toBe(0);
    await forgeApproval(["carol"], [{ user: "carol", comment: String(words.id), prompt }]);
    expect(said()).toBe(0);
    expect(run().error?.message).toContain(
      `@carol's approving comment ${words.id} was edited after it was written`,
    );
  });

  it("refuses a real /approve of an earlier run of the same playbook, replayed into a new run", async () => {
    await h.comment(1, "alice", "/run gated");
    const old = fake.postAs(1, "carol", "/approve");
    await h.drain();
    expect(said()).toBe(1);
    await h.comment(1, "alice", "/run gated");
    expect(run().status).toBe("waiting");
    // The old approval's own facts, prompt and all, copied into the new run.
    await forgeApproval(["carol"], [{ user: "carol", comment: String(old.id), prompt: "1" }]);
    expect(said()).toBe(1);
    expect(run().error?.message).toContain(
      `@carol's approving comment ${old.id} is older than the request for approval`,
    );
  });

  it("refuses an approving comment that no longer approves (a comment is checked as written)", async () => {
    await h.comment(1, "alice", "/run gated");
    const prompt = promptOf();
    const words = fake.postAs(1, "carol", "/reject not now");
    await h.drain();
    await forgeApproval(["carol"], [{ user: "carol", comment: String(words.id), prompt }]);
    expect(said()).toBe(0);
    expect(run().error?.message).toContain(
      `@carol's approving comment ${words.id} does not say /approve for 'gate'`,
    );
  });

  it("takes an /approve naming this run, and counts no vote naming another run for it", async () => {
    await h.comment(1, "alice", "/run gated");
    const prompt = promptOf();
    const other = fake.postAs(1, "carol", "/approve 20261202-0330-7-zzzzz");
    await h.drain();
    expect(run().status).toBe("waiting");
    await forgeApproval(["carol"], [{ user: "carol", comment: String(other.id), prompt }]);
    expect(said()).toBe(0);
    expect(run().error?.message).toContain(
      `@carol's approving comment ${other.id} does not say /approve for 'gate'`,
    );
    await h.comment(1, "alice", "/run gated");
    await h.comment(1, "carol", `/approve ${run().id.toUpperCase()} fine`);
    expect(said()).toBe(1);
    expect(run().stack[0]?.results.gate?.outputs?.note).toBe("fine");
  });

  it("refuses a forged state that leaves the checkpoint out altogether, where the key is not the app's alone", async () => {
    await h.comment(1, "alice", "/run gated");
    const forged = run();
    const frame = forged.stack[0]!;
    // No result for the gate at all: past it, with nothing to check.
    frame.current = "say";
    frame.phase = "pending";
    frame.votes = [];
    await writeForged(forged);
    expect(said()).toBe(0);
    expect(run().error).toMatchObject({
      code: "GH-PERMISSION",
      message:
        "the run's state is past checkpoint 'gate' but holds no approval of it, so nothing on GitHub says it was approved; start the run again",
    });
  });

  it("refuses an outsider's /approve: at the command, and when a state names it", async () => {
    await h.comment(1, "alice", "/run gated");
    const prompt = promptOf();
    const vote = fake.postAs(1, "olivia", "/approve");
    await h.drain();
    expect(run().status).toBe("waiting");
    await forgeApproval(["olivia"], [{ user: "olivia", comment: String(vote.id), prompt }]);
    expect(said()).toBe(0);
    expect(run().error?.message).toContain("@olivia may not approve this step");
  });

  it("lets a real approval through, reading its comment once per delivery (conditionally after the first)", async () => {
    await h.comment(1, "alice", "/run gated");
    const vote = fake.postAs(1, "carol", "/approve");
    const approval = `GET /repos/${EXAMPLE_REPO.owner}/${EXAMPLE_REPO.repo}/issues/comments/${vote.id}`;
    const perDelivery: string[][] = [];
    const spent = await requestsDuring(fake, async () => {
      for (let ev = fake.events.shift(); ev; ev = fake.events.shift()) {
        const one = await requestsDuring(fake, () =>
          h.deliver("issue_comment", h.commentPayload(ev!)),
        );
        perDelivery.push(one.requests);
      }
    });
    expect(said()).toBe(1);
    expect(run().status).toBe("completed");
    const facts = run().stack[0]!.results.gate!.approvals;
    expect(facts).toEqual([
      { user: "carol", comment: String(vote.id), prompt: expect.any(String) },
    ]);
    // At most one read of the approving comment in any delivery: within the 2 extra allowed.
    for (const requests of perDelivery)
      expect(requests.filter((r) => r.startsWith(approval)).length).toBeLessThanOrEqual(1);
    const reads = spent.requests.filter((r) => r.startsWith(approval));
    // One read per delivery that performs an effect (two here), with the role lookup that was
    // made before too: 2 requests beside the effect's own.
    const role = `GET /repos/${EXAMPLE_REPO.owner}/${EXAMPLE_REPO.repo}/collaborators/carol/permission`;
    const effects = perDelivery.filter((r) => r.some((x) => x.startsWith(approval)));
    expect(effects).toHaveLength(2);
    for (const requests of effects)
      expect(requests.filter((r) => r.startsWith(approval) || r.startsWith(role))).toHaveLength(2);
    // The second read is conditional: GitHub answers 304 to the ETag (not counted against the
    // rate limit).
    expect(reads).toEqual([approval, `${approval} (304)`]);
  });
});
