import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeGitHub, requestsDuring } from "../../helpers/fake-github.js";
import { DEPLOY, RELEASE, SHIP, TEAM } from "./fixtures.js";
import { BRANCH, example, Harness, OWNER, readStatus, startApp } from "./harness.js";

const NEEDS = `apiVersion: playbook-bot/v1
id: needs
name: Needs input
description: Needs a package name.
inputs:
  package: { type: string, required: true, description: The package. }
steps:
  - id: done
    type: end
    status: success
`;

const VERSIONED = `apiVersion: playbook-bot/v1
id: versioned
name: Versioned
description: The approval carries a version.
steps:
  - id: go
    type: checkpoint
    message: Which version?
    approvers: { permission: maintain }
    response_schema:
      type: object
      properties:
        version: { type: string }
      required: [version]
  - id: say
    type: comment
    body: "v{{ steps.go.outputs.version }} ({{ steps.go.outputs.note }})"
  - id: done
    type: end
    status: success
`;

let fake: FakeGitHub;
let h: Harness;
const bodies = () => [...fake.comments.values()].map((c) => c.body);
const last = () => bodies().at(-1);
const reactionsTo = (id: number) =>
  fake.reactions.filter((r) => r.commentId === id).map((r) => r.content);
const run = (i = 0) => {
  const read = readStatus(fake.statusComments(1)[i]);
  if (!read.ok) throw new Error(read.detail);
  return read.run;
};

beforeEach(async () => {
  ({ fake, h } = await startApp(
    {
      ".github/playbooks/ship.yaml": SHIP,
      ".github/playbooks/release.yaml": RELEASE,
      ".github/playbooks/deploy.yaml": DEPLOY,
      ".github/playbooks/team.yaml": TEAM,
      ".github/playbooks/needs.yaml": NEEDS,
      ".github/playbooks/versioned.yaml": VERSIONED,
      ".github/playbooks/broken.yaml": "apiVersion: playbook-bot/v1\nid: broken\nsteps: 3\n",
      ".github/playbooks/templates/t.md": "x",
    },
    { alice: "write", carol: "maintain", erin: "admin", bob: "read" },
  ));
  fake.teams.set(`${OWNER}/core`, new Set(["bob"]));
  fake.openIssue("Issue", "", "alice");
});
afterEach(() => fake.uninstall());

describe("commands and their refusals", () => {
  it("explains /run mistakes, unknown commands and an empty /status", async () => {
    await h.comment(1, "alice", "/status");
    expect(last()).toBe("No playbook has run on this issue. `/help` lists the commands.");
    await h.comment(1, "alice", "/run");
    expect(last()).toBe("> /run\n\n👎 name the playbook: `/run <playbook> [key=value …]`");
    await h.comment(1, "alice", "/run nope");
    expect(last()).toMatch(/^> \/run nope\n\n👎 no playbook 'nope' here \(available: .*ship.*\)$/);
    // Bob has only read access: refused with reactions, never a reply, and nothing starts.
    const bobs = await h.comment(1, "bob", "/run ship");
    expect(last()).toBe("/run ship");
    expect(reactionsTo(bobs)).toEqual(["eyes", "-1"]);
    expect(fake.statusComments(1)).toEqual([]);
    await h.comment(1, "alice", "/aprove");
    expect(last()).toBe(
      "> /aprove\n\n👎 `/aprove` is not a command — did you mean `/approve`? (`/help` lists them)",
    );
    // Each person has a budget of 5 replies per issue per 10 minutes: carol and erin go on.
    await h.comment(1, "carol", "/retry");
    expect(last()).toBe("> /retry\n\n👎 no run on this issue has failed or stalled");
    await h.comment(1, "carol", "/cancel");
    expect(last()).toBe("> /cancel\n\n👎 no run on this issue is open");
    await h.comment(1, "carol", "/choose left");
    expect(last()).toBe("> /choose left\n\n👎 nothing on this issue waits for /choose");
    await h.comment(1, "erin", "/run needs");
    expect(bodies().at(-2)).toBe(
      "**needs** did not start: its inputs are invalid.\n\n- 'package' is required (The package.)",
    );
    expect(last()).toBe("> /run needs\n\n👎 invalid inputs");
  });

  it("shows why an invalid playbook cannot run, for a label and for /run", async () => {
    await h.label(1, "playbook:broken", "alice");
    expect(last()).toMatch(
      /^Playbook \*\*broken\*\* cannot run: `\.github\/playbooks\/broken\.yaml` is invalid\.\n\n```text\n/,
    );
    await h.comment(1, "alice", "/run broken");
    expect(bodies().at(-2)).toContain("Playbook **broken** cannot run");
    expect(last()).toBe("> /run broken\n\n👎 playbook 'broken' is invalid (details above)");
    await h.label(1, "playbook:unknown", "alice");
    expect(last()).toBe("> /run broken\n\n👎 playbook 'broken' is invalid (details above)");
  });

  it("asks to name the step when two runs wait, and finds the named one", async () => {
    await h.comment(1, "alice", "/run ship");
    await h.comment(1, "alice", "/run release");
    await h.comment(1, "carol", "/approve");
    expect(last()).toBe(
      "> /approve\n\n👎 2 runs wait here; name the step: `/approve ok` or `/approve approve`",
    );
    // A first word that names no waiting step is a note: the step still needs naming.
    await h.comment(1, "carol", "/approve nope");
    expect(last()).toBe(
      "> /approve nope\n\n👎 2 runs wait here; name the step: `/approve ok` or `/approve approve`",
    );
    await h.comment(1, "carol", "/approve ok");
    expect(run(1).stack[0]?.votes.map((v) => v.user)).toEqual(["carol"]);
    // /status lists both runs.
    await h.comment(1, "alice", "/status");
    expect(last()?.split("\n")).toHaveLength(2);
    expect(last()).toContain("of **ship**: waiting at `approve`");
    expect(last()).toContain("of **release**: waiting at `ok`");
  });

  it("takes a first word as the step only when it names a waiting one; otherwise it is the note or the reason", async () => {
    await h.comment(1, "alice", "/run release");
    await h.comment(1, "carol", "/approve looks good");
    expect(run().stack[0]?.votes).toMatchObject([{ user: "carol", note: "looks good" }]);
    // The form the waiting message suggests.
    await h.comment(1, "erin", "/reject too risky");
    expect(run().status).toBe("failed");
    expect(run().error?.message).toBe("'ok' was rejected by @erin: too risky");

    // Two runs wait: a named step picks the run, and the rest is the note or the reason.
    await h.comment(1, "alice", "/run ship");
    await h.comment(1, "alice", "/run release");
    await h.comment(1, "carol", "/approve ok looks good");
    expect(run(2).stack[0]?.votes).toMatchObject([{ user: "carol", note: "looks good" }]);
    await h.comment(1, "carol", "/reject too risky");
    expect(last()).toBe(
      "> /reject too risky\n\n👎 2 runs wait here; name the step: `/reject ok` or `/reject approve`",
    );
    await h.comment(1, "carol", "/reject approve too risky");
    expect(run(1).status).toBe("failed");
    expect(run(1).error?.message).toBe("'approve' was rejected by @carol: too risky");
    expect(run(2).status).toBe("waiting");
  });

  it("keeps /approve response values apart from the note", async () => {
    await h.comment(1, "alice", "/run versioned");
    await h.comment(1, "carol", "/approve ship it version=1.2.3");
    expect(bodies().some((b) => b.startsWith("v1.2.3 (ship it)"))).toBe(true);
    expect(run().stack[0]?.results.go?.outputs).toMatchObject({
      approved_by: ["carol"],
      note: "ship it",
      version: "1.2.3",
    });
  });

  it("checks /cancel permission, then cancels; an ended run takes no more commands", async () => {
    await h.comment(1, "alice", "/run ship");
    // Bob has only read access: his /cancel is refused with reactions, the run goes on waiting.
    const bobs = await h.comment(1, "bob", "/cancel");
    expect(last()).toBe("/cancel");
    expect(reactionsTo(bobs)).toEqual(["eyes", "-1"]);
    expect(run().status).toBe("waiting");
    await h.comment(1, "alice", "/cancel not needed");
    expect(run().status).toBe("cancelled");
    expect(bodies()).toContain(`Run ${run().id} was cancelled by @\u200balice.`);
    await h.comment(1, "carol", "/approve");
    expect(last()).toBe("> /approve\n\n👎 nothing on this issue waits for /approve");
    // A person editing a comment on a finished run changes nothing.
    const c = fake.postAs(1, "bob", "note");
    fake.editAs(c.id, "note!");
    const r = await requestsDuring(fake, () => h.drain());
    expect(r.requests.filter((x) => x.startsWith("PATCH"))).toEqual([]);
  });

  it("looks up only the teams a checkpoint names, and hands off to the next playbook", async () => {
    await h.comment(1, "alice", "/run team");
    const r = await requestsDuring(fake, () => h.comment(1, "bob", "/approve"));
    expect(r.requests).toContain(`GET /orgs/${OWNER}/teams/core/memberships/bob`);
    expect(run(0).status).toBe("completed");
    expect(bodies()).toContain(
      `Run ${run(0).id} completed.\nContinuing with playbook **release**.`,
    );
    expect(fake.statusComments(1)).toHaveLength(2);
    expect(run(1).stack[0]?.playbook).toBe("release");
    expect(run(1).status).toBe("waiting");
  });

  it("moves a run whose continuation never came when someone asks for /status", async () => {
    await h.comment(1, "alice", "/run ship");
    fake.postAs(1, "carol", "/approve");
    await h.deliver("issue_comment", h.commentPayload(fake.events.shift()!));
    fake.events.length = 0; // the edit's webhook is lost
    expect(run().stack[0]?.phase).toBe("pending");
    // Someone without a role above read is not answered, and moves nothing.
    await h.comment(1, "bob", "/status");
    expect(last()).toBe("/status");
    expect(fake.branches()).toEqual([BRANCH]);
    await h.comment(1, "alice", "/status");
    expect(fake.branches()).toContain("playbook/ship-1");
    expect(fake.commitsWith(/^Playbook-Run:/)).toHaveLength(1);
  });

  it("ignores a continuation whose status comment is gone, and a status comment edited to plain text", async () => {
    await h.comment(1, "alice", "/run ship");
    const status = fake.statusComments(1)[0]!;
    const payload = h.commentPayload({ action: "edited", comment: { ...status } });
    fake.comments.delete(status.id);
    const r = await requestsDuring(fake, () => h.deliver("issue_comment", payload));
    expect(r.requests.filter((x) => !x.startsWith("GET"))).toEqual([]);
    fake.comments.set(status.id, { ...status, body: "nothing here" });
    await h.comment(1, "alice", "/status");
    expect(last()).toBe("No playbook has run on this issue. `/help` lists the commands.");
  });

  it("routes a merge only to the run that waits for that pull request", async () => {
    await h.comment(1, "alice", "/run ship");
    await h.comment(1, "alice", "/run release");
    await h.comment(1, "carol", "/approve approve");
    expect(fake.pulls.size).toBe(1);
    const p = example("pull_request", "closed");
    p.pull_request = { ...p.pull_request, ...fake.restPull(fake.pulls.get(2)!), number: 99 };
    const r = await requestsDuring(fake, () => h.deliver("pull_request", p));
    expect(r.requests.filter((x) => x.startsWith("PATCH"))).toEqual([]);
    await h.closePull(2, false);
    await h.drain();
    expect(run(0).status).toBe("failed");
    expect(run(0).error?.code).toBe("PB-PR-CLOSED");
    expect(run(1).status).toBe("waiting");
  });

  it("routes a workflow run to the run that dispatched it, and only that one", async () => {
    await h.comment(1, "alice", "/run deploy");
    await h.comment(1, "alice", "/run release");
    const p = example("workflow_run", "completed", 1);
    p.repository = example("issues", "labeled").repository;
    fake.completedWorkflowRun(p, fake.workflowRuns[0]!);
    p.workflow_run.conclusion = null;
    await h.deliver("workflow_run", p);
    await h.drain();
    expect(run(0).status).toBe("failed");
    expect(run(0).error?.code).toBe("PB-WORKFLOW-FAILED");
    expect(run(1).status).toBe("waiting");
  });

  it("runs a bundled playbook by its label (not pinned to the repository's commit)", async () => {
    await h.label(1, "hello", "alice");
    await h.drain();
    expect(fake.statusComments(1)[0]?.body).toContain("Hello, world");
    await h.comment(1, "carol", "/approve");
    expect(fake.branches().some((b) => b.startsWith("playbook/hello-world-"))).toBe(true);
  });
});
