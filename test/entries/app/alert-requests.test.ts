import nock from "nock";
import { beforeAll, describe, expect, it } from "vitest";
import { alertScenario, type AlertScenario } from "./alert-scenario.js";

/**
 * What an alert costs in GitHub requests through the app as deployed: the HTTP route, the
 * repository found through the app's installation, triage, the issue, and the run it starts.
 */
describe("GitHub requests per alert, through the served app", () => {
  let r: AlertScenario;
  beforeAll(async () => {
    nock.disableNetConnect();
    r = await alertScenario({ alerts: 10, notifications: 2 });
  }, 120_000);

  const cost = (kind: string) => {
    const c = r.costs.find((x) => x.kind === kind);
    if (!c) throw new Error(`no ${kind}`);
    return c;
  };

  it("a new alert opens an issue and starts the best-matching playbook on it", () => {
    const issues = [...r.fake.issues.values()].filter((i) => !i.pull_request);
    expect(issues).toHaveLength(20);
    // Each issue carries its run's status comment with a signed state block.
    const comments = [...r.fake.comments.values()];
    for (const issue of issues)
      expect(
        comments.some((c) => c.issue === issue.number && c.body.includes("playbook-bot:state")),
      ).toBe(true);
    const c = cost("new");
    expect(c.byRoute["POST /issues"]).toBeCloseTo(1);
    expect(c.byRoute["POST /issues/:n/comments"]).toBeCloseTo(1);
    // The repository's installation is asked for once, however many alerts arrive together.
    expect(c.byRoute["GET /installation"]).toBeCloseTo(1 / 20);
    expect(c.perAlert).toBeLessThan(8);
  });

  it("a repeat costs no write; a re-fire one comment, then an edit; a resolve a comment", () => {
    const writes = (kind: string) =>
      Object.entries(cost(kind).byRoute)
        .filter(([k]) => !k.startsWith("GET "))
        .reduce((n, [, v]) => n + v, 0);
    expect(writes("repeat")).toBe(0);
    expect(cost("repeat").perAlert).toBeCloseTo(1);
    expect(cost("re-fire").byRoute["POST /issues/:n/comments"]).toBeCloseTo(1);
    expect(cost("re-fire again").byRoute["PATCH /issues/comments/:n"]).toBeCloseTo(1);
    expect(cost("re-fire again").byRoute["POST /issues/:n/comments"]).toBeUndefined();
    expect(cost("resolve").byRoute["POST /issues/:n/comments"]).toBeCloseTo(1);
  });
});
