import { FakeGitHub } from "../../helpers/fake-github.js";
import { BRANCH, EXAMPLE_REPO, Harness, makeClock } from "./harness.js";

export const SHIP = `apiVersion: playbook-bot/v1
id: ship
name: Ship a change
description: A maintainer approves; a branch, a commit and a pull request follow; the merge closes the issue.
steps:
  - id: approve
    type: checkpoint
    message: Ship the change?
    approvers: { permission: maintain }
  - id: branch
    type: branch
    name: playbook/ship-{{ issue.number }}
  - id: commit
    type: commit
    branch: "{{ steps.branch.outputs.name }}"
    message: "docs: ship"
    files:
      - path: docs/ship.md
        content: "Shipped for #{{ issue.number }}\\n"
  - id: pr
    type: pull_request
    head: "{{ steps.branch.outputs.name }}"
    title: Ship
    body: "Closes #{{ issue.number }}"
    wait: merged
  - id: close
    type: close
  - id: done
    type: end
    status: success
`;

export function shipRepo(clock: () => Date): FakeGitHub {
  const fake = new FakeGitHub({
    ...EXAMPLE_REPO,
    clock,
    files: { "README.md": "# hello\n", ".github/playbooks/ship.yaml": SHIP },
  });
  fake.permissions.set("alice", "write");
  fake.permissions.set("carol", "maintain");
  fake.permissions.set("bob", "read");
  return fake;
}

/** The ship repository installed on a fake GitHub, and the app started against it. */
export async function shipApp(clock = makeClock()): Promise<{ fake: FakeGitHub; h: Harness }> {
  const fake = shipRepo(clock).install();
  return { fake, h: await new Harness(fake, clock).start() };
}

export interface Snapshots {
  /** The status comment once the app first wrote its state into it (a run about to enter its first step). */
  created: string;
  /** Waiting for /approve. */
  waiting: string;
  /** The id of the comment that announced the wait for /approve: only later comments answer it. */
  promptId: number;
  /** Approved: the branch step is next. */
  approved: string;
  /** Waiting for the merge of pull request #2. */
  merging: string;
  statusId: number;
  /** The default branch's head the run is pinned to. */
  head: string;
  /** carol's `/approve`, as GitHub's REST API shows it: the guard reads it before each effect. */
  approval: Record<string, unknown> & { id: number };
}

/**
 * Status-comment bodies at the interesting points of the ship scenario, made by the app itself
 * against the fake (so tests with plain nock scopes start from real, signed state).
 */
export async function snapshots(): Promise<Snapshots> {
  const { readStatus } = await import("./harness.js");
  const { fake, h } = await shipApp(makeClock("2026-02-01T09:00:00Z"));
  try {
    const issue = fake.openIssue("Ship it", "Please ship.", "alice");
    await h.label(issue.number, "playbook:ship", "alice");
    const [status] = fake.statusComments(issue.number);
    if (!status) throw new Error("no status comment");
    const head = fake.repo.refs.get(`heads/${BRANCH}`) as string;
    const created = status.body;
    await h.drain();
    const waiting = status.body;
    const read = readStatus(status);
    const promptId = Number(read.ok ? read.run.stack[0]?.prompt?.comment : NaN);
    if (!Number.isInteger(promptId)) throw new Error("the wait was not announced");
    const vote = fake.postAs(issue.number, "carol", "/approve");
    const approval = fake.restComment(vote) as Record<string, unknown> & { id: number };
    await h.deliver("issue_comment", h.commentPayload(fake.events.shift()!));
    const approved = status.body;
    fake.events.length = 0;
    await h.deliver(
      "issue_comment",
      h.commentPayload({ action: "edited", comment: { ...status } }),
    );
    await h.drain();
    const merging = status.body;
    return { created, waiting, promptId, approved, merging, statusId: status.id, head, approval };
  } finally {
    fake.uninstall();
  }
}

export const DEPLOY = `apiVersion: playbook-bot/v1
id: deploy
name: Deploy
description: Dispatches the test workflow and waits for it.
steps:
  - id: run-tests
    type: dispatch
    workflow: test.yml
    inputs: { issue: "{{ issue.number }}" }
  - id: done
    type: end
    status: success
`;

export const RELEASE = `apiVersion: playbook-bot/v1
id: release
name: Release
description: Two maintainers approve.
steps:
  - id: ok
    type: checkpoint
    message: Release?
    approvers: { permission: write, count: 2 }
  - id: note
    type: comment
    body: Released.
  - id: done
    type: end
    status: success
`;

/** A repository with several playbooks (ship, deploy, release) and three people. */
export function multiRepo(clock: () => Date): FakeGitHub {
  const fake = new FakeGitHub({
    ...EXAMPLE_REPO,
    clock,
    files: {
      ".github/playbooks/ship.yaml": SHIP,
      ".github/playbooks/deploy.yaml": DEPLOY,
      ".github/playbooks/release.yaml": RELEASE,
    },
  });
  for (const [who, role] of [
    ["alice", "write"],
    ["carol", "maintain"],
    ["dave", "write"],
    ["erin", "admin"],
    ["bob", "read"],
  ])
    fake.permissions.set(who as string, role as string);
  return fake;
}

/** The release run (two approvals) after dave's vote: its status body and dave's comment id. */
export async function voteSnapshot(): Promise<{
  body: string;
  statusId: number;
  voteId: number;
  head: string;
}> {
  const { Harness, makeClock } = await import("./harness.js");
  const clock = makeClock("2026-02-01T09:00:00Z");
  const fake = new FakeGitHub({
    ...EXAMPLE_REPO,
    clock,
    files: { ".github/playbooks/release.yaml": RELEASE },
  }).install();
  fake.permissions.set("alice", "write");
  fake.permissions.set("dave", "write");
  try {
    const h = await new Harness(fake, clock).start();
    fake.openIssue("Release", "", "alice");
    await h.comment(1, "alice", "/run release");
    const voteId = await h.comment(1, "dave", "/approve");
    const status = fake.statusComments(1)[0];
    if (!status) throw new Error("no status");
    return {
      body: status.body,
      statusId: status.id,
      voteId,
      head: fake.repo.refs.get(`heads/${BRANCH}`) as string,
    };
  } finally {
    fake.uninstall();
  }
}

/** Dispatches test.yml with a correlation input and waits for its run. */
export const DEPLOY_CORRELATED = `apiVersion: playbook-bot/v1
id: deploy
description: Dispatches the test workflow and waits for it.
steps:
  - id: run-tests
    type: dispatch
    workflow: test.yml
    correlation_input: pb_key
    inputs: { issue: "{{ issue.number }}" }
  - id: done
    type: end
    status: success
`;

/** The core team approves, then hands off to the release playbook. */
export const TEAM = `apiVersion: playbook-bot/v1
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
