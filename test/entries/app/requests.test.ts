import nock from "nock";
import { beforeAll, describe, expect, it } from "vitest";
import { requestScenario, type ScenarioResult } from "./request-scenario.js";

/**
 * What each webhook delivery costs in GitHub requests, through the app as it is deployed (signed
 * deliveries over HTTP, installation tokens asked for), on an issue with a 1,000-comment thread
 * and 50 finished runs. Overhead is every request besides the step's effect, the run's one save
 * and the answer people see.
 */
describe("GitHub requests per delivery", () => {
  let r: ScenarioResult;
  beforeAll(async () => {
    nock.disableNetConnect();
    r = await requestScenario({ finishedRuns: 50, comments: 1000 });
  }, 120_000);

  it("a start, a command and every step cost at most 2 requests of overhead", () => {
    const kinds = new Set(r.release.map((d) => d.kind));
    expect([...kinds].sort()).toEqual(
      ["app comment", "command", "continuation", "earlier save", "start", "step"].sort(),
    );
    // Nine steps with effects ran, each in its own delivery: six before the restart, three after.
    expect(r.release.filter((d) => d.kind === "step")).toHaveLength(6);
    expect(r.afterRestart.filter((d) => d.kind === "step")).toHaveLength(3);
    for (const d of r.release)
      expect(d.overhead, `${d.kind}: ${d.requests.join(", ")}`).toBeLessThanOrEqual(2);
    expect(Math.max(...r.release.map((d) => d.overhead))).toBe(2);
  });

  it("the app's own comments and the edits of its earlier saves cost nothing", () => {
    const free = r.release.filter((d) => d.kind === "app comment" || d.kind === "earlier save");
    expect(free.length).toBeGreaterThan(8);
    for (const d of free) expect(d.requests).toEqual([]);
  });

  it("neither the thread's length nor the finished runs cost anything: no listing, no old status comment read", () => {
    const all = r.release.flatMap((d) => d.requests);
    expect(all.filter((q) => q.startsWith("GET /issues/1/comments"))).toEqual([]);
    // The app's server believes its own sealed states: no approving comment is read again.
    expect(all.filter((q) => /^GET \/issues\/comments\//.test(q))).toEqual([]);
    // The same approval on an issue without history costs the same.
    const approve = r.release.find((d) => d.kind === "command");
    // (A role asked before may be answered 304 in one and not the other: count those too.)
    expect((approve?.overhead ?? 0) + (approve?.notModified ?? 0)).toBe(
      r.freshApprove.overhead + r.freshApprove.notModified,
    );
    expect(approve?.total).toBe(r.freshApprove.total);
  });

  it("a comment step posts its comment without looking through the thread", () => {
    // Its only effect request is the comment itself (before and after the restart).
    const comments = [...r.release, ...r.afterRestart].filter(
      (d) => d.kind === "step" && d.effect === 1 && d.requests.includes("POST /issues/1/comments"),
    );
    expect(comments).toHaveLength(2);
    for (const d of comments)
      expect(d.requests.filter((q) => q.startsWith("GET /issues/1/comments"))).toEqual([]);
  });

  it("one permission lookup per person per delivery", () => {
    for (const d of [...r.release, ...r.afterRestart, r.freshApprove]) {
      const lookups = d.requests.filter((q) => q.includes("/permission"));
      expect(new Set(lookups).size).toBe(lookups.length);
    }
  });

  it("after a restart the run is found from the thread's last page, and one token is asked per process", () => {
    const [merge] = r.afterRestart;
    const listings = merge?.requests.filter((q) => q.startsWith("GET /issues/1/comments")) ?? [];
    // The newest status comment's sealed index names the open runs: two listing requests (the
    // first page names the last; the last holds it), not the eleven pages of the thread.
    expect(listings).toHaveLength(2);
    expect(merge?.tokens).toBe(1);
    expect(r.tokensIssued).toBe(2);
    // After that first delivery, the restarted process costs what the first one did.
    for (const d of r.afterRestart.slice(1))
      expect(d.overhead, `${d.kind}: ${d.requests.join(", ")}`).toBeLessThanOrEqual(2);
    // And the run finished: merged, closed, labels taken off.
    const issue = r.fake.issues.get(1);
    expect(issue?.state).toBe("closed");
    expect(issue?.labels).not.toContain("releasing");
  });
});
