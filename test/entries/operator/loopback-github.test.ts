import { afterEach, describe, expect, it } from "vitest";
import { LoopbackGitHub, operatorRepo, routeOf } from "../../helpers/replicas.js";

/** The bench's fake GitHub over HTTP: its faults and counts, checked with plain requests. */
let github: LoopbackGitHub | undefined;
afterEach(async () => {
  await github?.stop();
  github = undefined;
});

async function started(...installations: number[]): Promise<LoopbackGitHub> {
  github = new LoopbackGitHub(installations.map((i) => operatorRepo(i)));
  await github.start();
  return github;
}

function call(
  g: LoopbackGitHub,
  method: string,
  path: string,
  options: { token?: string; body?: unknown } = {},
): Promise<Response> {
  return fetch(`http://${g.host}/api/v3${path}`, {
    method,
    headers: {
      "content-type": "application/json",
      ...(options.token ? { authorization: `token ${options.token}` } : {}),
    },
    ...(options.body ? { body: JSON.stringify(options.body) } : {}),
  });
}

async function tokenOf(g: LoopbackGitHub, installation: number): Promise<string> {
  const res = await fetch(
    `http://${g.host}/api/v3/app/installations/${installation}/access_tokens`,
    {
      method: "POST",
      headers: { authorization: "Bearer a.jwt.here" },
    },
  );
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

const COMMENTS = "/repos/Codertocat/Hello-World/issues/1/comments";

describe("the loopback GitHub of the operator bench", () => {
  it("performs a POST, then answers 502: the comment exists though the app is told it failed", async () => {
    const g = await started(2);
    g.fake.openIssue("One", "", "alice");
    g.failAfterWrite({ method: "POST", path: /\/comments$/ });
    const token = await tokenOf(g, 2);
    const first = await call(g, "POST", COMMENTS, { token, body: { body: "hello" } });
    expect(first.status).toBe(502);
    expect([...g.fake.comments.values()].map((c) => c.body)).toEqual(["hello"]);
    // Once only: the next one is answered as GitHub would.
    expect((await call(g, "POST", COMMENTS, { token, body: { body: "again" } })).status).toBe(201);
    expect(g.seen.filter((r) => r.faults?.includes("fail-after-write"))).toHaveLength(1);
  });

  it("refuses with a secondary rate limit (403, retry-after) without performing the request", async () => {
    const g = await started(2);
    g.fake.openIssue("One", "", "alice");
    g.secondaryRateLimit({ method: "POST" }, 7);
    const res = await call(g, "POST", COMMENTS, { body: { body: "hello" } });
    expect(res.status).toBe(403);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(((await res.json()) as { message: string }).message).toMatch(/secondary rate limit/);
    expect(g.fake.comments.size).toBe(0);
  });

  it("holds a matching answer for N ms, and only matching ones", async () => {
    const g = await started(2);
    g.hang({ method: "GET", path: /\/issues\/1$/ }, 400);
    g.fake.openIssue("One", "", "alice");
    let t0 = Date.now();
    expect((await call(g, "GET", "/repos/Codertocat/Hello-World/issues/1")).status).toBe(200);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(390);
    t0 = Date.now();
    expect((await call(g, "GET", COMMENTS)).status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(390);
  });

  it("applies every matching fault (late and 502 together), and a share of requests when asked", async () => {
    const g = await started(2);
    g.fake.openIssue("One", "", "alice");
    g.hang({ method: "POST" }, 300, 1).failAfterWrite({ method: "POST" }, 503, 1);
    const t0 = Date.now();
    expect((await call(g, "POST", COMMENTS, { body: { body: "slow" } })).status).toBe(503);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    expect(g.seen.at(-1)?.faults).toEqual(["hang", "fail-after-write"]);
    expect(g.fake.comments.size).toBe(1);

    g.failAfterWrite({ method: "GET" }, 502, Infinity, 0.5);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await call(g, "GET", COMMENTS)).status);
    const failed = statuses.filter((st) => st === 502).length;
    // About half (the odds of falling outside 5..35 are below one in a million).
    expect(failed).toBeGreaterThanOrEqual(5);
    expect(failed).toBeLessThanOrEqual(35);
    expect(failed + statuses.filter((st) => st === 200).length).toBe(40);
  });

  it("serves one fake per installation and counts requests and writes by installation and route", async () => {
    const g = await started(2, 3);
    g.fakes[0]!.openIssue("One", "", "alice");
    g.fakes[1]!.openIssue("One", "", "alice");
    const [t2, t3] = [await tokenOf(g, 2), await tokenOf(g, 3)];
    expect(t2).not.toBe(t3);
    await call(g, "POST", COMMENTS, { token: t2, body: { body: "a" } });
    await call(g, "POST", "/repos/Codertocat3/Hello-World/issues/1/comments", {
      token: t3,
      body: { body: "b" },
    });
    await call(g, "GET", "/repos/Codertocat3/Hello-World/issues/1/comments", { token: t3 });
    expect([...g.fakes[0]!.comments.values()].map((c) => c.body)).toEqual(["a"]);
    expect([...g.fakes[1]!.comments.values()].map((c) => c.body)).toEqual(["b"]);
    const counts = g.countByInstallation();
    // Each token was minted with the app's JWT, counted against its installation.
    expect(counts.get(2)).toEqual({ requests: 2, writes: 2 });
    expect(counts.get(3)).toEqual({ requests: 3, writes: 2 });
    expect(g.countByRoute()).toMatchObject({
      "POST /repos/:owner/:repo/issues/:n/comments": 2,
      "GET /repos/:owner/:repo/issues/:n/comments": 1,
      "POST /app/installations/:n/access_tokens": 2,
    });
    expect(g.writeTimes(3)).toHaveLength(2);
    const installations = (await (await call(g, "GET", "/app/installations")).json()) as {
      id: number;
    }[];
    expect(installations.map((i) => i.id)).toEqual([2, 3]);
  });

  it("names routes without ids, SHAs, refs or file paths", () => {
    expect(routeOf("/repos/o/r/issues/12/comments?per_page=100")).toBe(
      "/repos/:owner/:repo/issues/:n/comments",
    );
    expect(routeOf("/repos/o/r/git/ref/heads/playbook/bench-3")).toBe(
      "/repos/:owner/:repo/git/ref/:ref",
    );
    expect(routeOf("/repos/o/r/contents/.github/playbooks/a.yaml?ref=master")).toBe(
      "/repos/:owner/:repo/contents/:path",
    );
    expect(routeOf("/repos/o/r/collaborators/alice/permission")).toBe(
      "/repos/:owner/:repo/collaborators/:user/permission",
    );
    expect(routeOf(`/repos/o/r/git/commits/${"a".repeat(40)}`)).toBe(
      "/repos/:owner/:repo/git/commits/:sha",
    );
  });
});
