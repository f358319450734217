import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Probot } from "probot";
import { afterEach, describe, expect, it, vi } from "vitest";
import { githubError } from "../../../src/adapters/github/octokit-port.js";
import {
  deadlineFetch,
  GitHubReachability,
  GitHubRequestTimeout,
  githubPacing,
  rateLimitWaitMs,
  withRequestTimeout,
  type PacingOptions,
} from "../../../src/adapters/github/octokit-pacing.js";
import { example } from "../../entries/app/harness.js";

/** One request as the loopback GitHub saw it: when it arrived (ms since the test began). */
interface Seen {
  method: string;
  path: string;
  auth: string;
  at: number;
}

type Answer = { status: number; headers?: Record<string, string>; body?: unknown } | "hang";

/** GitHub on loopback: answers by `answer` (200 `{}` by default), after `delayMs`. */
class LoopbackGitHub {
  readonly seen: Seen[] = [];
  answer: (req: Seen, nth: number) => Answer = () => ({ status: 200, body: {} });
  delayMs = 0;
  private server: Server | undefined;
  private readonly began = Date.now();
  private readonly hung: ServerResponse[] = [];

  async start(): Promise<string> {
    this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on("end", () => {
        const seen: Seen = {
          method: req.method ?? "GET",
          path: req.url ?? "/",
          auth: String(req.headers.authorization ?? ""),
          at: Date.now() - this.began,
        };
        this.seen.push(seen);
        const answer = this.answer(
          seen,
          this.seen.filter((s) => s.method === seen.method && s.path === seen.path).length,
        );
        if (answer === "hang") {
          this.hung.push(res);
          return;
        }
        setTimeout(() => {
          res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
          res.end(JSON.stringify(answer.body ?? {}));
        }, this.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const res of this.hung.splice(0)) res.destroy();
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function github(): Promise<{ gh: LoopbackGitHub; baseUrl: string }> {
  const gh = new LoopbackGitHub();
  const baseUrl = await gh.start();
  cleanup.push(() => gh.stop());
  return { gh, baseUrl };
}

/** A paced installation Octokit against the loopback GitHub (unauthenticated: no token needed). */
function pacedOctokit(baseUrl: string, installation: number, options: PacingOptions) {
  const { Octokit } = githubPacing(options);
  return new Octokit({ baseUrl, auth: { installationId: installation } });
}

/** A fetch that notes when each request is handed to it: the moment of sending. */
function recordingFetch() {
  const began = Date.now();
  const calls: Seen[] = [];
  const fetchAndNote: typeof fetch = (input, init) => {
    const url = new URL(
      typeof input === "string" ? input : input instanceof URL ? input.href : input.url,
    );
    const headers = new Headers(init?.headers);
    calls.push({
      method: init?.method ?? "GET",
      path: url.pathname,
      auth: headers.get("authorization") ?? "",
      at: Date.now() - began,
    });
    return fetch(input, init);
  };
  return { calls, fetch: fetchAndNote };
}

const key = generateKeyPairSync("rsa", {
  modulusLength: 2048,
  privateKeyEncoding: { type: "pkcs1", format: "pem" },
  publicKeyEncoding: { type: "spki", format: "pem" },
}).privateKey;

describe("pacing per installation", () => {
  it("two installations' comments go out together while each installation's own are paced", async () => {
    const { gh, baseUrl } = await github();
    gh.answer = (req) =>
      req.path.endsWith("/access_tokens")
        ? {
            status: 201,
            body: {
              token: `ghs_token${/installations\/(\d+)/.exec(req.path)?.[1]}`,
              expires_at: new Date(Date.now() + 3_600_000).toISOString(),
              permissions: { issues: "write" },
              repository_selection: "all",
            },
          }
        : { status: 201, body: { id: 1 } };
    const pacing = githubPacing({ contentIntervalMs: 600, writeIntervalMs: 100 });
    const sent = recordingFetch();
    const probot = new Probot({
      appId: 4242,
      privateKey: key,
      secret: "s",
      baseUrl,
      Octokit: pacing.Octokit,
      request: { fetch: sent.fetch },
      logLevel: "fatal",
    });
    // Each delivery's context.octokit (Probot's event Octokit) writes three comments.
    probot.on("issues.labeled", async (context) => {
      for (let i = 0; i < 3; i++)
        await context.octokit.rest.issues.createComment(context.issue({ body: `${i}` }));
    });
    const event = (installation: number, id: string) => {
      const payload = example("issues", "labeled");
      payload.installation = { id: installation };
      return probot.receive({ id, name: "issues", payload } as never);
    };
    // Tokens first (Probot caches them): the comments' times then show the pacing alone.
    for (const installation of [1, 2]) await (await probot.auth(installation)).request("GET /zen");
    await Promise.all([event(1, "one"), event(2, "two")]);

    const comments = (token: string) =>
      sent.calls
        .filter(
          (s) => s.method === "POST" && s.path.endsWith("/comments") && s.auth.includes(token),
        )
        .map((s) => s.at);
    expect(gh.seen.filter((s) => s.path.endsWith("/comments"))).toHaveLength(6);
    const first = comments("ghs_token1");
    const second = comments("ghs_token2");
    expect(first).toHaveLength(3);
    expect(second).toHaveLength(3);
    // Within one installation: content creation 600 ms apart (less the jitter between the
    // limiter's start and the sending, on a busy machine).
    for (const times of [first, second])
      for (let i = 1; i < times.length; i++)
        expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(450);
    // Across installations: neither waited for the other's pacing.
    for (let i = 0; i < 3; i++) expect(Math.abs(first[i]! - second[i]!)).toBeLessThan(300);
  }, 20_000);
});

describe("deadlines start when a request is sent", () => {
  it("a write queued behind the pacing longer than the deadline still gets its whole deadline", async () => {
    const { gh, baseUrl } = await github();
    gh.delayMs = 150;
    const sent = recordingFetch();
    const { Octokit } = githubPacing({ timeoutMs: 250, writeIntervalMs: 300 });
    const octokit = new Octokit({
      baseUrl,
      auth: { installationId: 7 },
      request: { fetch: sent.fetch },
    });
    const began = Date.now();
    const writes = await Promise.all(
      [1, 2, 3].map((n) =>
        octokit.request("PATCH /repos/{owner}/{repo}/issues/{issue_number}", {
          owner: "o",
          repo: "r",
          issue_number: n,
          title: "t",
        }),
      ),
    );
    expect(writes.map((w) => w.status)).toEqual([200, 200, 200]);
    // The third was sent after about 600 ms in the queue (Bottleneck's timers may fire a few ms
    // early: well over the 250 ms deadline all the same) and still had its answer, which took 150 ms.
    const at = sent.calls.map((s) => s.at);
    expect(at[2]! - at[0]!).toBeGreaterThanOrEqual(500);
    expect(gh.seen).toHaveLength(3);
    expect(Date.now() - began).toBeGreaterThan(250 + 500);
  }, 10_000);

  it("a request GitHub leaves unanswered fails at its deadline as GH-TIMEOUT", async () => {
    const { gh, baseUrl } = await github();
    gh.answer = () => "hang";
    const octokit = pacedOctokit(baseUrl, 7, { timeoutMs: 300 });
    const began = Date.now();
    const err = await octokit.request("GET /repos/{owner}/{repo}", { owner: "o", repo: "r" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    const took = Date.now() - began;
    expect(err).toBeInstanceOf(GitHubRequestTimeout);
    expect(err).toMatchObject({ status: 504, timeout: true });
    expect(String((err as Error).message)).toMatch(
      /did not answer GET .*\/repos\/o\/r within 300 ms/,
    );
    expect(took).toBeGreaterThanOrEqual(295);
    expect(took).toBeLessThan(1500);
    // Not sent again: a timeout is not retried.
    expect(gh.seen).toHaveLength(1);
    expect(githubError(err, "read the repository").code).toBe("GH-TIMEOUT");
  });

  it("withRequestTimeout gives any Octokit the deadline from the moment of sending", async () => {
    const { gh, baseUrl } = await github();
    gh.answer = () => "hang";
    const { Octokit } = await import("@octokit/core");
    const octokit = withRequestTimeout(new Octokit({ baseUrl }), 200);
    const err = await octokit.request("GET /x").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ status: 504, timeout: true });
  });
});

describe("an answered request lets its deadline go", () => {
  it("reads the body within the deadline and leaves no timer holding the answer", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const answer = new Response(JSON.stringify({ id: 1 }), {
      status: 201,
      statusText: "Created",
      headers: { "content-type": "application/json", etag: '"a"' },
    });
    Object.defineProperty(answer, "url", { value: "https://api.github.com/x" });
    const fetch = deadlineFetch(60_000, { fetch: async () => answer });
    const res = await fetch("https://api.github.com/x", { method: "POST" }).finally(() => {
      // A pending deadline would keep the answer (and all it reaches) for a minute.
      expect(vi.getTimerCount()).toBe(0);
      vi.useRealTimers();
    });
    expect(res).toMatchObject({
      status: 201,
      statusText: "Created",
      url: "https://api.github.com/x",
    });
    expect(res.headers.get("etag")).toBe('"a"');
    expect(await res.json()).toEqual({ id: 1 });
  });

  it("an answer without a body (304, 204) is passed on as one", async () => {
    const fetch = deadlineFetch(60_000, {
      fetch: async () => new Response(null, { status: 304, headers: { etag: '"b"' } }),
    });
    const res = await fetch("https://api.github.com/y");
    expect(res.status).toBe(304);
    expect(res.body).toBeNull();
  });

  it("a body that stops coming fails at the deadline as a timeout", async () => {
    const stalled = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new TextEncoder().encode('{"partial":'));
      },
    });
    const fetch = deadlineFetch(100, { fetch: async () => new Response(stalled) });
    await expect(fetch("https://api.github.com/z")).rejects.toBeInstanceOf(GitHubRequestTimeout);
  });
});

describe("network failures surface at once, with their cause", () => {
  it("ECONNREFUSED: no retry, no waiting for the deadline", async () => {
    const { gh, baseUrl } = await github();
    await gh.stop(); // nothing listens on the port any more
    const octokit = pacedOctokit(baseUrl, 7, { timeoutMs: 10_000, serverErrorBackoffMs: 1000 });
    const began = Date.now();
    const err = await octokit.request("GET /repos/{owner}/{repo}", { owner: "o", repo: "r" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(Date.now() - began).toBeLessThan(900);
    expect(err).toMatchObject({ unreachable: true, code: "ECONNREFUSED" });
    expect(String((err as Error).message)).toMatch(/could not be reached for GET .*ECONNREFUSED/);
    expect(githubError(err, "read the repository").code).toBe("GH-ERROR");
  });

  it("ENOTFOUND: the DNS failure fetch reports is the cause, at once", async () => {
    let calls = 0;
    const dnsFailure: typeof fetch = () => {
      calls += 1;
      // What Node's fetch rejects with when the name does not resolve.
      const cause = Object.assign(new Error("getaddrinfo ENOTFOUND github.invalid"), {
        code: "ENOTFOUND",
        hostname: "github.invalid",
      });
      return Promise.reject(new TypeError("fetch failed", { cause }));
    };
    const reachability = new GitHubReachability(2);
    const { Octokit } = githubPacing({ timeoutMs: 10_000, reachability });
    const octokit = new Octokit({
      baseUrl: "https://github.invalid",
      request: { fetch: dnsFailure },
    });
    const began = Date.now();
    for (let i = 0; i < 2; i++) {
      const err = await octokit.request("GET /zen").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: "ENOTFOUND", unreachable: true });
      expect((err as Error).cause).toBeInstanceOf(TypeError);
      expect(String((err as Error).message)).toContain("getaddrinfo ENOTFOUND github.invalid");
    }
    expect(Date.now() - began).toBeLessThan(900);
    expect(calls).toBe(2);
    expect(reachability.problem()).toMatch(/did not answer the last 2 requests .*ENOTFOUND/);
  });
});

describe("rate limits", () => {
  const secondary = {
    status: 403,
    headers: { "retry-after": "1" },
    body: { message: "You have exceeded a secondary rate limit. Please wait a few minutes." },
  };

  it("a 403 secondary rate limit with retry-after is sent again after that wait, and succeeds", async () => {
    const { gh, baseUrl } = await github();
    gh.answer = (req, nth) =>
      req.method === "POST" && nth === 1 ? secondary : { status: 201, body: { id: 9 } };
    const paused: number[] = [];
    const octokit = pacedOctokit(baseUrl, 7, { onRateLimit: (_k, ms) => paused.push(ms) });
    const began = Date.now();
    const created = await octokit.request(
      "POST /repos/{owner}/{repo}/issues/{issue_number}/comments",
      {
        owner: "o",
        repo: "r",
        issue_number: 1,
        body: "hi",
      },
    );
    expect(created.status).toBe(201);
    expect(paused).toEqual([1000]);
    const posts = gh.seen.filter((s) => s.method === "POST");
    expect(posts).toHaveLength(2);
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(990);
    expect(Date.now() - began).toBeGreaterThanOrEqual(990);
  }, 10_000);

  it("the installation's other requests wait out the pause too; another installation's do not", async () => {
    const { gh, baseUrl } = await github();
    gh.answer = (req, nth) =>
      req.path.includes("/limited") && nth === 1 ? secondary : { status: 200, body: {} };
    let paused: () => void = () => undefined;
    const pause = new Promise<void>((resolve) => (paused = resolve));
    const pacing = githubPacing({ onRateLimit: () => paused() });
    const seven = new pacing.Octokit({ baseUrl, auth: { installationId: 7 } });
    const eight = new pacing.Octokit({ baseUrl, auth: { installationId: 8 } });
    const limited = seven.request("GET /limited");
    await pause;
    await Promise.all([seven.request("GET /seven"), eight.request("GET /eight")]);
    await limited;
    const at = (path: string) => gh.seen.find((s) => s.path === path)!.at;
    expect(at("/seven") - at("/limited")).toBeGreaterThanOrEqual(990);
    expect(at("/eight") - at("/limited")).toBeLessThan(900);
  }, 10_000);

  it("fails with a clear error once GitHub still limits after the bounded retries", async () => {
    const { gh, baseUrl } = await github();
    gh.answer = () => ({ ...secondary, headers: { "retry-after": "0" } });
    const octokit = pacedOctokit(baseUrl, 7, { rateLimitRetries: 2 });
    const err = await octokit.request("GET /repos/{owner}/{repo}", { owner: "o", repo: "r" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(gh.seen).toHaveLength(3);
    expect(String((err as Error).message)).toMatch(
      /GitHub still rate-limited GET \/repos\/\{owner\}\/\{repo\} after 2 retries \(retry after 0 s\): You have exceeded a secondary rate limit/,
    );
    expect(githubError(err, "read the repository")).toMatchObject({ code: "GH-RATE-LIMITED" });
  });

  it("an exhausted quota is waited out until its reset (and a second), then the request succeeds", async () => {
    const { gh, baseUrl } = await github();
    const reset = Math.ceil(Date.now() / 1000) + 1;
    gh.answer = (_req, nth) =>
      nth === 1
        ? {
            status: 403,
            headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) },
            body: { message: "API rate limit exceeded for installation ID 7." },
          }
        : { status: 200, body: {} };
    const octokit = pacedOctokit(baseUrl, 7, {});
    expect((await octokit.request("GET /x")).status).toBe(200);
    expect(gh.seen).toHaveLength(2);
    // Not before the reset GitHub named (whole seconds), and a second past it.
    expect(Date.now()).toBeGreaterThanOrEqual(reset * 1000 + 1000 - 20);
  }, 10_000);

  it("an exhausted quota whose reset is further off than the app waits fails at once", async () => {
    const { gh, baseUrl } = await github();
    const reset = String(Math.floor(Date.now() / 1000) + 3600);
    gh.answer = () => ({
      status: 403,
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset },
      body: { message: "API rate limit exceeded for installation ID 7." },
    });
    const octokit = pacedOctokit(baseUrl, 7, {});
    const began = Date.now();
    const err = await octokit.request("GET /x").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(Date.now() - began).toBeLessThan(900);
    expect(gh.seen).toHaveLength(1);
    expect(githubError(err, "read").code).toBe("GH-RATE-LIMITED");
  });

  it("waits as GitHub's guidance says: retry-after, else until the reset, else a minute", () => {
    const now = 1_000_000_000_000;
    const err = (status: number, headers: Record<string, string>, message = "") => ({
      status,
      message,
      response: { headers },
    });
    expect(rateLimitWaitMs(err(429, { "retry-after": "30" }), now)).toBe(30_000);
    expect(
      rateLimitWaitMs(
        err(403, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(now / 1000 + 20) }),
        now,
      ),
    ).toBe(21_000);
    expect(rateLimitWaitMs(err(403, {}, "You have exceeded a secondary rate limit"), now)).toBe(
      60_000,
    );
    expect(rateLimitWaitMs(err(429, {}), now)).toBe(60_000);
    expect(rateLimitWaitMs(err(403, {}, "Resource not accessible by integration"), now)).toBe(
      undefined,
    );
    expect(rateLimitWaitMs(err(500, { "retry-after": "1" }), now)).toBe(undefined);
  });

  it("a server error is sent again after a backoff; a 404 is not", async () => {
    const { gh, baseUrl } = await github();
    gh.answer = (req, nth) =>
      req.path === "/flaky" && nth === 1
        ? { status: 502, body: { message: "Bad Gateway" } }
        : req.path === "/gone"
          ? { status: 404, body: { message: "Not Found" } }
          : { status: 200, body: {} };
    const octokit = pacedOctokit(baseUrl, 7, { serverErrorBackoffMs: 50 });
    expect((await octokit.request("GET /flaky")).status).toBe(200);
    await expect(octokit.request("GET /gone")).rejects.toMatchObject({ status: 404 });
    expect(gh.seen.map((s) => s.path)).toEqual(["/flaky", "/flaky", "/gone"]);
  });

  it("a creating request that says retries: 0 is not sent again after a 502 (its caller looks first)", async () => {
    const { gh, baseUrl } = await github();
    gh.answer = () => ({ status: 502, body: { message: "Bad Gateway" } });
    const octokit = pacedOctokit(baseUrl, 7, { serverErrorBackoffMs: 50 });
    await expect(
      octokit.request("POST /repos/o/r/issues/1/comments", { body: "x", request: { retries: 0 } }),
    ).rejects.toMatchObject({ status: 502 });
    expect(gh.seen.map((s) => s.path)).toEqual(["/repos/o/r/issues/1/comments"]);
  });
});

describe("GitHubReachability", () => {
  it("is unreachable after a streak of failures, reachable again once a request is answered", async () => {
    let answers = false;
    const r = new GitHubReachability(3, () => {
      if (answers) r.answered();
      else r.failed("connect ECONNREFUSED");
      return Promise.resolve();
    });
    r.failed("a");
    r.failed("b");
    expect(await r.check()).toBeUndefined();
    r.answered();
    r.failed("a");
    r.failed("b");
    r.failed("connect ECONNREFUSED 127.0.0.1:1");
    expect(r.problem()).toBe(
      "GitHub did not answer the last 3 requests (last: connect ECONNREFUSED 127.0.0.1:1)",
    );
    // The probe fails too: still unreachable (one more failure in the streak).
    expect(await r.check()).toMatch(/last 4 requests/);
    answers = true;
    expect(await r.check()).toBeUndefined();
  });
});
