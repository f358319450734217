import { describe, expect, it } from "vitest";
import {
  approveOrTimeOut,
  commentsWith,
  OperatorBench,
  operatorSuite,
  operatorRepo,
  timedOutNoteOf,
  waitFor,
  type Replica,
} from "../../helpers/replicas.js";

/**
 * A replica killed with kill -9 in the middle of the work, while GitHub holds its request: the
 * other replica finishes the run with no person's help, and each effect (a branch, a commit, a
 * pull request, a timeout's comment) happens once. Two real `npm start` replicas share a real
 * redis-server; the replica killed is the one whose connection the held request came on.
 */
const suite = operatorSuite();

const TIMEOUT_S = 20;

/** Waits until GitHub holds a request, then names the replica that sent it. */
async function holder(b: OperatorBench, what: string, timeoutMs: number): Promise<Replica> {
  await waitFor(what, () => b.github.held.length > 0, { timeoutMs, everyMs: 50 });
  const replica = b.replicaFrom(b.github.heldFrom[0]!);
  if (!replica) throw new Error(`no replica owns the connection of ${b.github.held[0]}`);
  return replica;
}

describe("operator: a replica killed with kill -9 mid-work", () => {
  it("killed while GitHub holds its pull-request creation: the other replica finishes the run, with one branch, one commit and one pull request", async () => {
    const b = await suite.start({
      fakes: operatorRepo(),
      replicas: 2,
      env: { INBOX_CLAIM_TIMEOUT: "5" },
    });
    const issue = b.openIssue("Open a pull request").number;
    await b.label(issue, "playbook:approve-pull", "alice");
    await waitFor("the checkpoint to be announced", () => b.announced(issue), {
      timeoutMs: 60_000,
    });
    await b.settled();

    b.github.hold = (method, path) => method === "POST" && /\/pulls$/.test(path.split("?")[0]!);
    b.comment(issue, "carol", "/approve");
    const victim = await holder(b, "the pull request's creation to be held", 90_000);
    const survivor = b.replicas.find((r) => r !== victim)!;
    await victim.kill9();
    const killedAt = Date.now();
    // GitHub performs the request it held although its sender is gone: the pull request exists,
    // and the run's state does not say so.
    b.github.release();
    await waitFor("the run to complete", () => b.runOf(issue)?.status === "completed", {
      timeoutMs: 120_000,
      everyMs: 200,
    });
    const tookMs = Date.now() - killedAt;
    process.stderr.write(`kill -9 mid pull-request creation → run completed: ${tookMs} ms\n`);

    const head = `playbook/bench-${issue}`;
    const pulls = [...b.fake.pulls.values()].filter((p) => p.head.startsWith(head));
    expect(pulls.map((p) => p.head)).toEqual([head]);
    const branches = [...b.fake.repo.refs.keys()].filter((r) => r.startsWith(`heads/${head}`));
    expect(branches).toEqual([`heads/${head}`]);
    const base = b.fake.repo.refs.get("heads/master")!;
    expect(b.fake.repo.ahead(base, b.fake.repo.refs.get(`heads/${head}`)!)).toHaveLength(1);
    expect(b.fake.statusComments(issue)).toHaveLength(1);
    expect(survivor.running && victim.running === false).toBe(true);
    // The held POST was the only creation request that went out, or the survivor's second one
    // was answered as already existing (422) and adopted: never a second pull request.
    expect(b.github.countByRoute()["POST /repos/:owner/:repo/pulls"]).toBeLessThanOrEqual(2);
    // The dead replica's inbox entry (INBOX_CLAIM_TIMEOUT 5 s) and issue lock (30 s lease) bound it.
    expect(tookMs).toBeLessThan(90_000);
  }, 240_000);

  it("killed while GitHub holds the request of a checkpoint's timeout tick: the timeout fires once, on the other replica", async () => {
    const b = await suite.start({
      fakes: operatorRepo(2, {
        ".github/playbooks/time-out.yaml": approveOrTimeOut(`${TIMEOUT_S}s`),
      }),
      replicas: 2,
    });
    const issue = b.openIssue("Nobody answers").number;
    await b.label(issue, "playbook:time-out", "alice");
    await waitFor("the checkpoint to be announced", () => b.announced(issue), {
      timeoutMs: 60_000,
    });
    // The announcement's save comes after the run started: its due time is at most this late.
    const dueAt = Date.now() + TIMEOUT_S * 1000;
    await waitFor(
      "the waiting label",
      () => b.fake.issues.get(issue)!.labels.includes("playbook-bot:waiting"),
      { timeoutMs: 30_000 },
    );
    await b.settled();

    // A tick reads the issue first; nothing else reads it once the checkpoint is announced.
    b.github.hold = (method, path) =>
      method === "GET" && path.split("?")[0]!.endsWith(`/issues/${issue}`);
    const victim = await holder(b, "the timeout's tick to be held", TIMEOUT_S * 1000 + 90_000);
    const heldAt = Date.now();
    await victim.kill9();
    b.github.release();
    await waitFor(
      "the timeout's comment",
      () => commentsWith(b.fake, issue, timedOutNoteOf(issue)).length > 0,
      { timeoutMs: 150_000, everyMs: 200 },
    );
    const firedAt = Date.now();
    await waitFor("the run to end", () => b.runOf(issue)?.status === "completed", {
      timeoutMs: 60_000,
    });
    await b.settled();
    process.stderr.write(
      `kill -9 mid timeout tick: tick held ${Math.round((heldAt - dueAt) / 1000)} s after due; fired on the other replica ${Math.round((firedAt - heldAt) / 1000)} s after the kill (${Math.round((firedAt - dueAt) / 1000)} s late)\n`,
    );
    // Once: one comment, one status comment, the label gone once nothing waits.
    expect(commentsWith(b.fake, issue, timedOutNoteOf(issue))).toHaveLength(1);
    expect(b.fake.statusComments(issue)).toHaveLength(1);
    await waitFor(
      "the waiting label to go",
      () => !b.fake.issues.get(issue)!.labels.includes("playbook-bot:waiting"),
      { timeoutMs: 30_000 },
    );
    // The wake-up's 30 s lease (not renewed by a dead replica) and the next 15 s poll bound the
    // delay (the dead replica's issue lock, a 30 s lease too, runs out meanwhile).
    expect(firedAt - heldAt).toBeLessThan(90_000);
  }, 330_000);
});
