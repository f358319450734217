import { describe, expect, it } from "vitest";
import {
  delivered,
  failedAfterAnswer,
  noteOf,
  OperatorBench,
  operatorSuite,
  operatorRepo,
  waitFor,
} from "../../helpers/replicas.js";

/**
 * The operator's view: real `npm start` replicas (dist/, built by `npm test`'s pretest) sharing a
 * real redis-server, in front of a fake GitHub on loopback that delivers the events the app causes.
 */
const suite = operatorSuite();

const LABEL = "playbook:approve-comment";

/** Approves each issue once its checkpoint is announced; resolves when every run completed. */
async function approveAndComplete(b: OperatorBench, issues: number[], timeoutMs: number) {
  const approved = new Set<number>();
  await waitFor(
    "every run to complete",
    () => {
      for (const n of issues)
        if (!approved.has(n) && b.announced(n)) {
          approved.add(n);
          b.comment(n, "carol", "/approve");
        }
      return issues.every((n) => b.runOf(n)?.status === "completed");
    },
    { timeoutMs, everyMs: 100 },
  );
  return approved;
}

describe("operator: two replicas and Redis", () => {
  it("three issues labelled and approved complete once each, with each effect once", async () => {
    const b = await suite.start({ fakes: operatorRepo(), replicas: 2 });
    const issues = Array.from({ length: 3 }, (_, i) => b.openIssue(`Change ${i}`).number);
    const labels = await Promise.all(issues.map((n) => b.label(n, LABEL, "alice")));
    // 200, or 202 when the app's work outlasts the webhook middleware's 9 s (GitHub counts both).
    expect(labels.filter(delivered)).toHaveLength(3);
    // Deliveries went to both replicas.
    expect(new Set(labels.map((d) => d.replica))).toEqual(new Set([0, 1]));

    const approved = await approveAndComplete(b, issues, 60_000);
    expect([...approved].sort()).toEqual([...issues].sort());
    await b.settled();

    for (const n of issues) {
      const comments = [...b.fake.comments.values()].filter((c) => c.issue === n);
      expect(comments.filter((c) => c.body.includes(noteOf(n)))).toHaveLength(1);
      expect(b.fake.statusComments(n)).toHaveLength(1);
    }
    // GitHub saw every delivery answered 2xx, and no replica logged a failed one.
    expect(b.deliveries.filter((d) => !delivered(d))).toEqual([]);
    expect(failedAfterAnswer(b.deliveries, b.logs())).toEqual([]);
    // The fake counted the comment step's writes: one POST per issue besides the status and prompt.
    const byInstallation = b.github.countByInstallation();
    expect(byInstallation.get(2)?.writes).toBeGreaterThanOrEqual(issues.length * 3);
    expect(b.github.countByRoute()["POST /app/installations/:n/access_tokens"]).toBeGreaterThan(0);
    // RSS was sampled all along: a Node process holds tens of MiB.
    for (const r of b.replicas)
      expect(Math.min(...r.rss.map((x) => x.kib))).toBeGreaterThan(20_000);
  }, 90_000);

  it("a replica killed with kill -9 while idle is restarted and serves again", async () => {
    const b = await suite.start({ fakes: operatorRepo(), replicas: 2 });
    const [first, second] = b.replicas as [(typeof b.replicas)[0], (typeof b.replicas)[0]];
    await first.kill9();
    expect(first.running).toBe(false);
    // A delivery while it is down goes to the other replica, and the run goes on there.
    const during = b.openIssue("While one is down").number;
    expect((await b.label(during, LABEL, "alice")).replica).toBe(second.index);

    await first.restart();
    expect(first.starts).toBe(2);
    const after = b.openIssue("After the restart").number;
    const d = await b.label(after, LABEL, "alice", { to: first });
    expect(delivered(d)).toBe(true);
    // A replica killed with kill -9 may have held an issue's lock (a sweep's carry-on, say): the
    // lock's 30 s lease bounds that wait, so the bound here allows it on a loaded machine.
    await approveAndComplete(b, [during, after], 120_000);
    for (const n of [during, after])
      expect([...b.fake.comments.values()].filter((c) => c.body.includes(noteOf(n)))).toHaveLength(
        1,
      );
    // The restarted process took the delivery into the shared inbox; a replica (either) did it.
    expect(
      first.logs.some((l) => l.id === d.id && /accepted into the inbox/.test(String(l.msg))),
    ).toBe(true);
    expect(b.logs().some((l) => l.id === d.id && l.outcome === "handled")).toBe(true);
  }, 150_000);
});
