import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readStatusComment } from "../../src/app/status-comment.js";
import { FakeGitHub, requestsDuring } from "../helpers/fake-github.js";
import { DEPLOY, RELEASE, SHIP } from "./fixtures.js";
import { APP_ID, BRANCH, CONFIG, example, Harness, makeClock, OWNER, REPO } from "./harness.js";

const TEAM = `apiVersion: playbook-bot/v1
id: team
name: Team gate
description: The core team approves, then the release playbook takes over.
steps:
  - id: gate
    type: checkpoint
    message: Go?
    approvers: { teams: [core] }
  - id: done
    type: end
    status: success
    handoff: [release]
`;

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

let fake: FakeGitHub;
let h: Harness;
const bodies = () => [...fake.comments.values()].map((c) => c.body);
const last = () => bodies().at(-1);
const run = (i = 0) => {
  const read = readStatusComment(fake.statusComments(1)[i]?.body ?? "", CONFIG.stateSecret);
  if (!read.ok) throw new Error(read.detail);
  return read.run;
};

beforeEach(async () => {
  nock.disableNetConnect();
  const clock = makeClock();
  fake = new FakeGitHub({
    owner: OWNER,
    repo: REPO,
    defaultBranch: BRANCH,
    appId: APP_ID,
    clock,
    files: {
      ".github/playbooks/ship.yaml": SHIP,
      ".github/playbooks/release.yaml": RELEASE,
      ".github/playbooks/deploy.yaml": DEPLOY,
      ".github/playbooks/team.yaml": TEAM,
      ".github/playbooks/needs.yaml": NEEDS,
      ".github/playbooks/broken.yaml": "apiVersion: playbook-bot/v1\nid: broken\nsteps: 3\n",
      ".github/playbooks/templates/t.md": "x",
    },
  }).install();
  for (const [who, role] of [
    ["alice", "write"],
    ["carol", "maintain"],
    ["erin", "admin"],
    ["bob", "read"],
  ])
    fake.permissions.set(who as string, role as string);
  fake.teams.set(`${OWNER}/core`, new Set(["bob"]));
  h = await new Harness(fake, clock).start();
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
    await h.comment(1, "bob", "/run ship");
    expect(last()).toBe(
      "> /run ship\n\n👎 @bob may not start **ship**; that needs triage access or more",
    );
    await h.comment(1, "alice", "/aprove");
    expect(last()).toBe(
      "> /aprove\n\n👎 `/aprove` is not a command — did you mean `/approve`? (`/help` lists them)",
    );
    await h.comment(1, "alice", "/retry");
    expect(last()).toBe("> /retry\n\n👎 no run on this issue has failed or stalled");
    await h.comment(1, "alice", "/cancel");
    expect(last()).toBe("> /cancel\n\n👎 no run on this issue is open");
    await h.comment(1, "alice", "/choose left");
    expect(last()).toBe("> /choose left\n\n👎 nothing on this issue waits for /choose");
    await h.comment(1, "alice", "/run needs");
    expect(bodies().at(-2)).toMatch(/^\*\*needs\*\* did not start: its inputs are invalid\.\n- /);
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
    await h.comment(1, "carol", "/approve nope");
    expect(last()).toBe("> /approve nope\n\n👎 no run waits at step `nope`");
    await h.comment(1, "carol", "/approve ok");
    expect(run(1).stack[0]?.votes.map((v) => v.user)).toEqual(["carol"]);
    // /status lists both runs.
    await h.comment(1, "bob", "/status");
    expect(last()?.split("\n")).toHaveLength(2);
  });

  it("checks /cancel permission, then cancels; an ended run takes no more commands", async () => {
    await h.comment(1, "alice", "/run ship");
    await h.comment(1, "bob", "/cancel");
    expect(last()).toBe(
      "> /cancel\n\n👎 @bob may not /cancel this run; that needs triage access or more",
    );
    await h.comment(1, "alice", "/cancel not needed");
    expect(run().status).toBe("cancelled");
    expect(bodies()).toContain("Run 20260301-0900-001 was cancelled by @alice.");
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
      "Run 20260301-0900-001 completed.\nContinuing with playbook **release**.",
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
    await h.comment(1, "bob", "/status");
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
    await h.comment(1, "bob", "/status");
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

  it("routes a workflow run by name to the runs that wait for it, and only those", async () => {
    await h.comment(1, "alice", "/run deploy");
    await h.comment(1, "alice", "/run release");
    const p = example("workflow_run", "completed", 1);
    p.repository = example("issues", "labeled").repository;
    p.workflow_run.path = undefined;
    p.workflow_run.name = "test.yml";
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
