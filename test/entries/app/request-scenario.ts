import { performance } from "node:perf_hooks";
import { OctokitPort } from "../../../src/adapters/github/octokit-port.js";
import { FakeGitHub, type RecordedRequest } from "../../helpers/fake-github.js";
import { EXAMPLE_REPO, makeClock, type Harness } from "./harness.js";
import { ServedHarness } from "./served.js";

/**
 * The GitHub requests a realistic issue costs the app, event by event: a release playbook of
 * eleven steps (a checkpoint, branches, commits, two `comment` steps, labels, a pull request that
 * waits for its merge) run on an issue with a long thread and many finished runs, through the app
 * as it is deployed (signed deliveries over HTTP, installation tokens asked of GitHub), with a
 * restart of the process while the run waits for the merge. Shared by the request tests and
 * `bench/requests.ts`.
 */
export const RELEASE = `apiVersion: playbook-bot/v1
id: release
name: Release
description: A maintainer approves; the release branch, its notes and a pull request follow.
steps:
  - id: approve
    type: checkpoint
    message: Cut the release?
    approvers: { permission: maintain }
  - id: branch
    type: branch
    name: release/{{ issue.number }}
  - id: changelog
    type: commit
    branch: "{{ steps.branch.outputs.name }}"
    message: "docs: changelog"
    files:
      - path: CHANGELOG.md
        content: "Release for #{{ issue.number }}\\n"
  - id: announce
    type: comment
    body: The release branch is ready.
  - id: mark
    type: label
    add: [releasing]
  - id: version
    type: commit
    branch: "{{ steps.branch.outputs.name }}"
    message: "chore: version"
    files:
      - path: VERSION
        content: "1.0.{{ issue.number }}\\n"
  - id: pr
    type: pull_request
    head: "{{ steps.branch.outputs.name }}"
    title: Release
    body: "Closes #{{ issue.number }}"
    wait: merged
  - id: thanks
    type: comment
    body: Merged, thank you.
  - id: unmark
    type: label
    remove: [releasing]
  - id: close
    type: close
  - id: done
    type: end
    status: success
`;

/** A playbook that ends at once: the finished runs an issue accumulates. */
export const QUICK = `apiVersion: playbook-bot/v1
id: quick
name: Quick check
description: Looks and ends.
steps:
  - id: done
    type: end
    status: success
`;

/** What one delivery cost. */
export interface DeliveryCost {
  /** start, command, step, continuation, earlier save, app comment, merge. */
  kind: string;
  /** Every request the delivery made. */
  total: number;
  /** Requests for the step's own effect (a branch, a commit, a comment…). */
  effect: number;
  /**
   * What the delivery itself asked for besides its effect: the run's one save, the answer a
   * person sees (a reply, a prompt, the final reaction).
   */
  work: number;
  /**
   * The rest that counts against the rate limit: reading state and roles, extra saves, 👀,
   * discovery (a conditional re-read answered 304 is free, and not counted).
   */
  overhead: number;
  /** Of all requests, those answered 304 (not counted against the rate limit). */
  notModified: number;
  /** Installation tokens asked for. */
  tokens: number;
  requests: string[];
  /** Wall time of the delivery (HTTP, signature check, the app's work, the fake's answers). */
  ms: number;
}

export interface ScenarioResult {
  /** The finished runs' deliveries are left out: the release run's, in order. */
  release: DeliveryCost[];
  /** The first delivery after the restart (the merge of the release's pull request). */
  afterRestart: DeliveryCost[];
  /** An /approve on a second issue with no history, for comparison. */
  freshApprove: DeliveryCost;
  /**
   * Deliveries the app answers without a request (a bot's comment): HTTP, the signature check
   * and Probot's routing — the floor every delivery pays.
   */
  floor: DeliveryCost[];
  finishedRuns: number;
  comments: number;
  tokensIssued: number;
  fake: FakeGitHub;
}

const EFFECT = new WeakSet<RecordedRequest>();

/**
 * Tags the requests made while the app performs an effect (the port's `perform`), so each
 * delivery's requests can be split into effect, work and overhead. Returns the undo.
 */
function tagEffects(fake: FakeGitHub): () => void {
  const original = OctokitPort.prototype.perform;
  OctokitPort.prototype.perform = async function (this: OctokitPort, ...args) {
    const from = fake.requests.length;
    try {
      return await original.apply(this, args);
    } finally {
      for (const r of fake.requests.slice(from)) EFFECT.add(r);
    }
  };
  return () => {
    OctokitPort.prototype.perform = original;
  };
}

function costOf(
  kind: string,
  requests: readonly RecordedRequest[],
  status: Set<string>,
  ms: number,
): DeliveryCost {
  let effect = 0;
  let work = 0;
  let saved = false;
  let tokens = 0;
  for (const r of requests) {
    const path = r.path.split("?")[0] ?? "";
    if (EFFECT.has(r)) effect++;
    else if (/\/access_tokens$/.test(path)) tokens++;
    else if (r.method === "PATCH" && status.has(path.replace(/^.*\/comments\//, "")) && !saved)
      saved = true;
    else if (r.method === "POST" && /\/issues\/[0-9]+\/comments$/.test(path)) work++;
    else if (
      r.method === "POST" &&
      path.endsWith("/reactions") &&
      (r.body as { content?: string })?.content !== "eyes"
    )
      work++;
  }
  if (saved) work++;
  return {
    kind,
    total: requests.length,
    effect,
    work,
    overhead:
      requests.length -
      effect -
      work -
      requests.filter((r) => !EFFECT.has(r) && r.status === 304).length,
    notModified: requests.filter((r) => r.status === 304).length,
    tokens,
    requests: requests.map(
      (r) =>
        `${r.method} ${r.path.split("?")[0]?.replace("/repos/Codertocat/Hello-World", "")}${r.status === 304 ? " (304)" : ""}`,
    ),
    ms,
  };
}

/** Delivers the queued comment events one by one, recording what each cost. */
async function drainCosts(h: Harness, fake: FakeGitHub, out: DeliveryCost[]): Promise<void> {
  for (let ev = h.takeEvent(); ev; ev = h.takeEvent()) {
    const byApp = Boolean(ev.comment.performed_via_github_app);
    const from = fake.requests.length;
    const t0 = performance.now();
    await h.deliver("issue_comment", h.commentPayload(ev));
    const ms = performance.now() - t0;
    const made = fake.requests.slice(from);
    const kind = !byApp
      ? "command"
      : ev.action === "created"
        ? "app comment"
        : made.some((r) => EFFECT.has(r))
          ? "step"
          : made.length === 0
            ? "earlier save"
            : "continuation";
    out.push(costOf(kind, made, statusIds(fake), ms));
  }
}

function statusIds(fake: FakeGitHub): Set<string> {
  const ids = new Set<string>();
  for (const issue of fake.issues.keys())
    for (const c of fake.statusComments(issue)) ids.add(String(c.id));
  return ids;
}

async function measured(
  fake: FakeGitHub,
  kind: string,
  work: () => Promise<unknown>,
): Promise<DeliveryCost> {
  const from = fake.requests.length;
  const t0 = performance.now();
  await work();
  const ms = performance.now() - t0;
  return costOf(kind, fake.requests.slice(from), statusIds(fake), ms);
}

export async function requestScenario(
  o: { finishedRuns: number; comments: number; floorSamples?: number } = {
    finishedRuns: 50,
    comments: 1000,
  },
): Promise<ScenarioResult> {
  const clock = makeClock();
  const fake = new FakeGitHub({
    ...EXAMPLE_REPO,
    clock,
    files: {
      "README.md": "# hello\n",
      ".github/playbooks/release.yaml": RELEASE,
      ".github/playbooks/quick.yaml": QUICK,
    },
  });
  fake.permissions.set("alice", "write");
  fake.permissions.set("carol", "maintain");
  fake.install();
  const untag = tagEffects(fake);
  const h = new ServedHarness(fake, clock);
  try {
    await h.start();
    const issue = fake.openIssue("Release 1.0", "Time to ship.", "alice").number;
    fake.seedComments(issue, o.comments);
    for (let i = 0; i < o.finishedRuns; i++) await h.comment(issue, "alice", "/run quick");

    const release: DeliveryCost[] = [];
    release.push(await measured(fake, "start", () => h.label(issue, "playbook:release", "alice")));
    await drainCosts(h, fake, release);
    fake.postAs(issue, "carol", "/approve");
    await drainCosts(h, fake, release);

    // The process restarts while the run waits for the merge: its memory is gone.
    await h.start();
    const pull = [...fake.pulls.values()].at(-1);
    if (!pull) throw new Error("the release opened no pull request");
    const afterRestart = [await measured(fake, "merge", () => h.closePull(pull.number, true))];
    await drainCosts(h, fake, afterRestart);

    // The same approval on an issue with no history, on the warm process.
    const fresh = fake.openIssue("Release 2.0", "", "alice").number;
    await h.label(fresh, "playbook:release", "alice");
    await h.drain();
    fake.postAs(fresh, "carol", "/approve");
    const ev = h.takeEvent();
    if (!ev) throw new Error("no /approve event");
    const freshApprove = await measured(fake, "command", () =>
      h.deliver("issue_comment", h.commentPayload(ev)),
    );
    await h.drain();
    const floor: DeliveryCost[] = [];
    for (let i = 0; i < (o.floorSamples ?? 1); i++) {
      const bot = fake.postAs(fresh, "dependabot[bot]", "/approve");
      fake.events.length = 0;
      floor.push(
        await measured(fake, "ignored", () =>
          h.deliver("issue_comment", h.commentPayload({ action: "created", comment: bot })),
        ),
      );
    }
    return {
      release,
      floor,
      afterRestart,
      freshApprove,
      finishedRuns: o.finishedRuns,
      comments: o.comments,
      tokensIssued: fake.tokensIssued,
      fake,
    };
  } finally {
    untag();
    await h.stop();
    fake.uninstall();
  }
}
