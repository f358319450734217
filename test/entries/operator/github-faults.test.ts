import { describe, expect, it } from "vitest";
import {
  commentsWith,
  delivered,
  noteOf,
  OperatorBench,
  operatorSuite,
  operatorRepo,
  waitFor,
} from "../../helpers/replicas.js";

/**
 * GitHub misbehaving under two real `npm start` replicas sharing a real redis-server: a role
 * lookup that hangs past the request deadline, a 502 after a creation took effect, a secondary
 * rate limit on writes for a while. Every run completes with no person's help, every delivery is
 * answered at once, and nothing is done twice.
 */
const suite = operatorSuite();

const COMMENT = "playbook:approve-comment";

/** Labels each issue, waits for every checkpoint to be announced and every delivery answered. */
async function announced(b: OperatorBench, issues: number[], label = COMMENT): Promise<void> {
  await Promise.all(issues.map((n) => b.label(n, label, "alice")));
  await waitFor("every checkpoint to be announced", () => issues.every((n) => b.announced(n)), {
    timeoutMs: 90_000,
    everyMs: 100,
  });
  await b.settled();
}

async function completed(b: OperatorBench, issues: number[], timeoutMs: number): Promise<number> {
  const since = Date.now();
  await waitFor(
    "every run to complete",
    () => issues.every((n) => b.runOf(n)?.status === "completed"),
    { timeoutMs, everyMs: 200 },
  );
  await b.settled();
  return Date.now() - since;
}

describe("operator: GitHub misbehaves", () => {
  it("a role lookup that hangs 40 s: the /approve is answered 202 at once, and the run goes on afterwards with one approval", async () => {
    const b = await suite.start({ fakes: operatorRepo(), replicas: 2 });
    const issue = b.openIssue("Slow roles").number;
    await announced(b, [issue]);

    b.github.hang({ method: "GET", path: /\/collaborators\/carol\/permission/ }, 40_000, 1);
    const sentFrom = b.deliveries.length;
    b.comment(issue, "carol", "/approve");
    await b.settled();
    const approve = b.deliveries
      .slice(sentFrom)
      .find((d) => d.event === "issue_comment.created" && d.issue === issue);
    expect(approve?.status).toBe(202);
    expect(approve!.answeredAt! - approve!.sentAt).toBeLessThan(5_000);

    const tookMs = await completed(b, [issue], 150_000);
    process.stderr.write(`role lookup hung 40 s → run completed ${tookMs} ms after the 202\n`);
    const hung = b.github.seen.filter((r) => r.faults?.includes("hang"));
    expect(hung).toHaveLength(1);
    const approveComment = [...b.fake.comments.values()].find(
      (c) => c.issue === issue && c.body === "/approve",
    )!;
    const rockets = b.fake.reactions.filter(
      (r) => r.commentId === approveComment.id && r.content === "rocket",
    );
    expect(rockets).toHaveLength(1);
    expect(commentsWith(b.fake, issue, noteOf(issue))).toHaveLength(1);
    expect(b.fake.statusComments(issue)).toHaveLength(1);
    // The abandoned lookup was the app's own deadline (30 s), not GitHub's answer 40 s later.
    expect(tookMs).toBeGreaterThan(25_000);
  }, 240_000);

  it("502 after a comment and after a pull request were made: one comment, one pull request", async () => {
    const b = await suite.start({ fakes: operatorRepo(), replicas: 2 });
    const commented = b.openIssue("Comment, told it failed").number;
    const pulled = b.openIssue("Pull request, told it failed").number;
    await announced(b, [commented]);
    await announced(b, [pulled], "playbook:approve-pull");

    // After the approval the next comment created on the first issue is the comment step's.
    b.github.failAfterWrite({ method: "POST", path: new RegExp(`/issues/${commented}/comments$`) });
    b.github.failAfterWrite({ method: "POST", path: /\/pulls$/ });
    b.comment(commented, "carol", "/approve");
    b.comment(pulled, "carol", "/approve");
    const tookMs = await completed(b, [commented, pulled], 150_000);
    process.stderr.write(
      `502 after a comment and a pull request → runs completed in ${tookMs} ms\n`,
    );

    const failed = b.github.seen.filter((r) => r.faults?.includes("fail-after-write"));
    expect(failed.map((r) => r.route).sort()).toEqual([
      "/repos/:owner/:repo/issues/:n/comments",
      "/repos/:owner/:repo/pulls",
    ]);
    expect(failed.every((r) => r.status === 502)).toBe(true);
    expect(commentsWith(b.fake, commented, noteOf(commented))).toHaveLength(1);
    expect(
      [...b.fake.pulls.values()].filter((p) => p.head.startsWith(`playbook/bench-${pulled}`)),
    ).toHaveLength(1);
    for (const n of [commented, pulled]) expect(b.fake.statusComments(n)).toHaveLength(1);
  }, 240_000);

  it("a secondary rate limit on every write for 20 s: every run completes, nothing twice", async () => {
    const b = await suite.start({ fakes: operatorRepo(), replicas: 2 });
    const issues = [1, 2, 3].map((i) => b.openIssue(`Limited ${i}`).number);
    await announced(b, issues);

    for (const method of ["POST", "PATCH", "PUT", "DELETE"])
      b.github.secondaryRateLimit({ method }, 5, Infinity);
    const limitedAt = Date.now();
    for (const n of issues) b.comment(n, "carol", "/approve");
    await waitFor("the limit to be 20 s old", () => Date.now() - limitedAt >= 20_000, {
      timeoutMs: 25_000,
      everyMs: 250,
    });
    b.github.clearFaults();
    const refused = b.github.seen.filter((r) => r.faults?.includes("secondary-limit"));
    const tookMs = await completed(b, issues, 240_000);
    process.stderr.write(
      `403 secondary limit on writes for 20 s (${refused.length} refused) → runs completed ${tookMs} ms after it lifted\n`,
    );
    expect(refused.length).toBeGreaterThan(0);
    for (const n of issues) {
      expect(commentsWith(b.fake, n, noteOf(n))).toHaveLength(1);
      expect(b.fake.statusComments(n)).toHaveLength(1);
    }
    expect(b.deliveries.filter((d) => !delivered(d))).toEqual([]);
  }, 360_000);
});
