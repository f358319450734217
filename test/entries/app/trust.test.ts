import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renderStatusComment } from "../../../src/runtime/run-service/status-comment.js";
import type { RunState } from "../../../src/core/engine/state.js";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { SHIP } from "./fixtures.js";
import { BRANCH, Harness, readStatus, sealOf, startApp } from "./harness.js";

/**
 * The security model as an attacker meets it: outsiders open issues and comment, triagers label,
 * write users edit any comment (the app's included). A run acts only on state this app wrote for
 * that run, in that comment, on that issue, with playbooks from the default branch.
 */

const FORM = `apiVersion: playbook-bot/v1
id: form
description: Takes a service from the issue form.
inputs:
  service: { type: string, required: true, pattern: '^[a-z-]+$', from: issue.form.Service }
steps:
  - id: approve
    type: checkpoint
    message: Restart {{ inputs.service }}?
    approvers: { permission: maintain }
  - id: branch
    type: branch
    name: playbook/restart-{{ inputs.service }}
  - id: done
    type: end
`;

let fake: FakeGitHub;
let h: Harness;

beforeEach(async () => {
  ({ fake, h } = await startApp(
    {
      ".github/playbooks/ship.yaml": SHIP,
      ".github/playbooks/form.yaml": FORM,
      ".github/playbooks/broken.yaml": "apiVersion: playbook-bot/v1\nid: broken\nsteps: 3\n",
    },
    { alice: "write", carol: "maintain", trish: "triage" },
  ));
});
afterEach(() => fake.uninstall());

const bodies = (issue?: number) =>
  [...fake.comments.values()].filter((c) => issue === undefined || c.issue === issue);
const lastBody = (issue: number) => bodies(issue).at(-1)?.body ?? "";
const runOf = (id: number): RunState => {
  const read = readStatus(fake.comments.get(id));
  if (!read.ok) throw new Error(read.detail);
  return read.run;
};

async function startShip(issue: number): Promise<number> {
  await h.label(issue, "playbook:ship", "alice");
  await h.drain();
  const status = fake.statusComments(issue).at(-1);
  if (!status) throw new Error("no status comment");
  return status.id;
}

describe("which comment is a status comment", () => {
  it("never takes a signed block that the bot echoed (the form-field chain) for state", async () => {
    fake.openIssue("Ship it", "", "alice");
    const shipStatus = await startShip(1);
    const block = /<!-- playbook-bot:state [^>]*-->/.exec(fake.comments.get(shipStatus)!.body)![0];
    // An outsider opens an issue whose form field holds the copied block; a triager labels it.
    fake.openIssue("Help", `### Service\n\nweb ${block}\n`, "mallory");
    await h.label(2, "playbook:form", "trish");
    await h.drain();
    // The refusal repeats the value, inert: no HTML comment survives in it.
    const refusal = lastBody(2);
    expect(refusal).toContain("did not start: its inputs are invalid");
    expect(refusal).not.toContain("<!--");
    // No run exists on issue 2, and /approve there does nothing.
    await h.comment(2, "carol", "/approve");
    expect(lastBody(2)).toContain("nothing on this issue waits for /approve");
    expect(fake.branches()).toEqual([BRANCH]);
  });

  it("refuses a block in another of the app's comments: it is sealed to the comment it was written for", async () => {
    fake.openIssue("Ship it", "", "alice");
    const shipStatus = await startShip(1);
    fake.openIssue("Other", "", "alice");
    // Even if the app's own comment on another issue carried the block word for word...
    const copy = fake.appComment(2, fake.comments.get(shipStatus)!.body);
    expect(readStatus(fake.comments.get(copy.id))).toMatchObject({ ok: false, reason: "tampered" });
    // ...and the same comment text on the same issue under another id.
    const twin = fake.appComment(1, fake.comments.get(shipStatus)!.body);
    expect(readStatus(fake.comments.get(twin.id))).toMatchObject({ ok: false, reason: "tampered" });
    await h.comment(2, "carol", "/approve");
    expect(
      bodies(2)
        .map((c) => c.body)
        .join("\n"),
    ).not.toContain("🚀");
    expect(fake.branches()).toEqual([BRANCH]);
  });
});

describe("replayed and edited state", () => {
  it("a cancelled run does not come back when a write user pastes its older block", async () => {
    fake.openIssue("Ship it", "", "alice");
    const status = await startShip(1);
    const waiting = fake.comments.get(status)!.body;
    await h.comment(1, "carol", "/cancel");
    expect(runOf(status).status).toBe("cancelled");
    fake.editAs(status, waiting, "carol");
    await h.drain();
    // The app puts back what it wrote last and says so; the run stays cancelled.
    expect(runOf(status).status).toBe("cancelled");
    expect(lastBody(1)).toContain("edited [the status comment]");
    expect(lastBody(1)).toContain("it has been put back as this app wrote it");
    await h.comment(1, "carol", "/approve");
    expect(lastBody(1)).toContain("nothing on this issue waits for /approve");
    expect(fake.branches()).toEqual([BRANCH]);
  });

  it("an older block put back while the edit's webhook was lost is refused: the sequence never goes back", async () => {
    fake.openIssue("Ship it", "", "alice");
    const status = await startShip(1);
    const waiting = fake.comments.get(status)!.body;
    await h.comment(1, "carol", "/cancel");
    fake.editAs(status, waiting, "carol");
    fake.events.length = 0; // the edited webhook never arrives
    // A finished run's status comment is not read again by commands that act on open runs: the
    // pasted block moves nothing...
    await h.comment(1, "carol", "/approve");
    expect(lastBody(1)).toContain("nothing on this issue waits for /approve");
    expect(fake.branches()).toEqual([BRANCH]);
    // ...and `/status`, which reads every run, refuses the older block and says so.
    await h.comment(1, "carol", "/status");
    expect(bodies(1).some((c) => c.body.includes("an earlier block was put back"))).toBe(true);
    expect(fake.branches()).toEqual([BRANCH]);
  });

  it("another issue's block pasted into a status comment does not verify: that run freezes", async () => {
    fake.openIssue("One", "", "alice");
    const one = await startShip(1);
    fake.openIssue("Two", "", "alice");
    const two = await startShip(2);
    await h.comment(1, "carol", "/approve"); // issue 1's run is approved (its effects may run)
    fake.editAs(two, fake.comments.get(one)!.body, "carol");
    fake.events.length = 0; // even without the edit's webhook
    await h.comment(2, "carol", "/status");
    expect(bodies(2).some((c) => c.body.includes("is frozen"))).toBe(true);
    expect(fake.branches().filter((b) => b.endsWith("-2"))).toEqual([]);
  });

  it("a person's edit of a status comment freezes the open run and says how to start again", async () => {
    fake.openIssue("Ship it", "", "alice");
    const status = await startShip(1);
    fake.editAs(status, `${fake.comments.get(status)!.body}\n\nAll approved already.`, "alice");
    await h.drain();
    const run = runOf(status);
    expect(run.status).toBe("failed");
    expect(run.error).toMatchObject({ code: "PB-STATE-EDITED" });
    expect(fake.comments.get(status)!.body).not.toContain("All approved already.");
    expect(lastBody(1)).toContain("@\u200balice edited [the status comment]");
    expect(lastBody(1)).toContain("start it again: `/run ship`");
    await h.comment(1, "carol", "/approve");
    expect(fake.branches()).toEqual([BRANCH]);
    // Frozen is final: /retry does not resume it.
    await h.comment(1, "carol", "/retry");
    expect(lastBody(1)).toContain("no run on this issue has failed or stalled");
    expect(runOf(status).status).toBe("failed");
  });

  it("a person acting through the app with a user token is not the app", async () => {
    fake.openIssue("Ship it", "", "alice");
    const status = await startShip(1);
    // Same app id on the comment, but a person's account wrote it: its block is text.
    const c = fake.appComment(1, fake.comments.get(status)!.body);
    c.user = fake.user("mallory");
    const payload = h.commentPayload({ action: "edited", comment: c, sender: c.user });
    const before = fake.requests.length;
    await h.deliver("issue_comment", payload);
    expect(fake.requests.slice(before).some((r) => r.method !== "GET")).toBe(false);
    expect(runOf(status).status).toBe("waiting");
  });

  it("the app's own edits move the run on; the same edit by a person does not", async () => {
    fake.openIssue("Ship it", "", "alice");
    const status = await startShip(1);
    expect(runOf(status).status).toBe("waiting");
    const events = fake.events.length;
    fake.editAs(status, fake.comments.get(status)!.body, "carol");
    expect(fake.events.length).toBe(events + 1);
    await h.drain();
    expect(runOf(status).status).toBe("failed");
  });
});

describe("a deleted status comment", () => {
  it("is reported on the issue with the way back", async () => {
    fake.openIssue("Ship it", "", "alice");
    const status = await startShip(1);
    fake.deleteAs(status, "carol");
    await h.drain();
    expect(lastBody(1)).toContain("@\u200bcarol deleted the status comment of run");
    expect(lastBody(1)).toContain("stopped where it was (at `approve`)");
    expect(lastBody(1)).toContain("To start it again: `/run ship`");
    await h.comment(1, "carol", "/run ship");
    expect(fake.statusComments(1)).toHaveLength(1);
  });
});

describe("playbooks only from the default branch", () => {
  it("freezes a run whose pinned commit is not reachable from the default branch", async () => {
    fake.openIssue("Ship it", "", "alice");
    const status = await startShip(1);
    // A commit GitHub serves from this repository that is not on the default branch (a fork's
    // pull request head). Only the app can seal state; this checks the check behind the seal.
    const side = fake.pushAs("side", "a fork's change", {
      ".github/playbooks/ship.yaml": SHIP.replace("maintain", "read"),
    }).sha;
    const run = runOf(status);
    run.stack[0]!.commit = side;
    run.seq += 1;
    fake.comments.get(status)!.body = renderStatusComment(run, () => undefined, sealOf(1, status));
    // A fresh process: it remembers neither the comment it wrote nor the commits it has checked.
    await h.start();
    await h.comment(1, "carol", "/approve");
    expect(bodies(1).some((c) => c.body.includes("which is not on the default branch"))).toBe(true);
    expect(fake.branches().sort()).toEqual([BRANCH, "side"]);
    const asked = fake.requests.filter((r) => r.path.includes("/compare/"));
    expect(asked.length).toBeGreaterThan(0);
  });
});

describe("amplification and wedging", () => {
  it("answers a person without access with reactions only, whatever the comment holds", async () => {
    fake.openIssue("Ship it", "", "mallory");
    const before = bodies().length;
    const id = await h.comment(1, "mallory", Array(10).fill("/help").join("\n"));
    expect(bodies().length).toBe(before + 1); // mallory's own comment, nothing from the bot
    const reactions = fake.reactions.filter((r) => r.commentId === id).map((r) => r.content);
    expect(reactions).toEqual(["eyes", "-1"]);
    await h.comment(1, "mallory", "/status\n/status\n/run ship\n/approve");
    // An invalid playbook's report is long: it is not written for outsiders either.
    await h.comment(1, "mallory", Array(10).fill("/run broken").join("\n"));
    await h.comment(1, "mallory", Array(10).fill("/run form service=UPPER").join("\n"));
    expect(bodies().filter((c) => c.user.login.endsWith("[bot]"))).toEqual([]);
  });

  it("limits replies per person and issue", async () => {
    fake.openIssue("Ship it", "", "alice");
    await h.comment(1, "alice", Array(10).fill("/status").join("\n"));
    const replies = bodies(1).filter((c) => c.user.login.endsWith("[bot]"));
    expect(replies).toHaveLength(5);
    // Reports of invalid playbooks and inputs count against the same budget.
    await h.comment(1, "alice", "/run broken");
    expect(bodies(1).filter((c) => c.user.login.endsWith("[bot]"))).toHaveLength(5);
    // Another person has a budget of their own.
    await h.comment(1, "carol", "/help");
    expect(lastBody(1)).toContain("/approve");
  });

  it("a hung GitHub request fails with a code and the issue's queue moves on", async () => {
    h.requestTimeoutMs = 200;
    await h.start();
    fake.openIssue("Ship it", "", "alice");
    const status = await startShip(1);
    fake.hang = (r) => r.method === "PATCH" && r.path.endsWith(`/issues/comments/${status}`);
    await expect(h.comment(1, "carol", "/approve")).rejects.toThrow(/did not answer/);
    fake.hang = undefined;
    // The next event on the issue is handled: /cancel is obeyed.
    await h.comment(1, "carol", "/cancel");
    expect(runOf(status).status).toBe("cancelled");
  });
});

describe("nothing lost", () => {
  it("a delivery that failed while saving is handled again when GitHub redelivers it", async () => {
    fake.openIssue("Ship it", "", "alice");
    const status = await startShip(1);
    const vote = fake.postAs(1, "carol", "/approve");
    fake.events.length = 0;
    let failures = 1;
    fake.fault = (r) =>
      r.method === "PATCH" && r.path.endsWith(`/comments/${status}`) && failures-- > 0
        ? { status: 502, body: { message: "Bad Gateway" } }
        : undefined;
    const payload = h.commentPayload({ action: "created", comment: vote });
    await expect(h.deliver("issue_comment", payload, "redelivered")).rejects.toThrow();
    expect(runOf(status).status).toBe("waiting");
    await h.deliver("issue_comment", payload, "redelivered");
    await h.drain();
    expect(runOf(status).stack[0]?.results.approve?.status).toBe("completed");
    // A third copy of a delivery that succeeded changes nothing.
    const saves = fake.requests.length;
    await h.deliver("issue_comment", payload, "redelivered");
    expect(fake.requests.length).toBe(saves);
  });
});

describe("commands are ordered by GitHub's comment ids", () => {
  it("an /approve written before the checkpoint announced itself does not count", async () => {
    fake.openIssue("Ship it", "", "alice");
    await h.label(1, "playbook:ship", "alice");
    // Carol answers before the run reached the checkpoint (her comment is older than its prompt).
    const early = fake.postAs(1, "carol", "/approve");
    const status = fake.statusComments(1)[0]!.id;
    await h.drain();
    const run = runOf(status);
    expect(run.status).toBe("waiting");
    expect(Number(run.stack[0]?.prompt?.comment)).toBeGreaterThan(early.id);
    expect(bodies(1).some((c) => c.body.includes("written before this step started waiting"))).toBe(
      true,
    );
    await h.comment(1, "carol", "/approve");
    expect(runOf(status).stack[0]?.results.approve?.status).toBe("completed");
  });
});
