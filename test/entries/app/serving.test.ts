import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import { GitHubReachability } from "../../../src/adapters/github/octokit-pacing.js";
import { Serving } from "../../../src/adapters/github-app/serving.js";
import type { Coordination } from "../../../src/runtime/coordination.js";
import { Writable } from "node:stream";
import { pino } from "pino";
import { Probot as RealProbot } from "probot";
import type { Probot } from "probot";

/** A request and a response that records what the handler answered. */
function call(method: string, url: string, headers: Record<string, string> = {}) {
  const answer = { status: 0, body: "", headers: {} as Record<string, string> };
  const res = {
    writeHead(status: number, h: Record<string, string> = {}) {
      answer.status = status;
      answer.headers = h;
      return res;
    },
    end(b?: string) {
      answer.body = b ?? "";
    },
    once() {
      return res;
    },
  } as unknown as ServerResponse;
  return { req: { method, url, headers } as unknown as IncomingMessage, res, answer };
}

/** A Probot stand-in with what `attach` wraps. */
function fakeApp(): Probot {
  return {
    log: { child: () => fakeApp().log, info() {}, warn() {}, debug() {} },
    on() {},
    onAny() {},
    auth: async () => ({ hook: { after() {}, error() {} } }),
  } as unknown as Probot;
}

describe("Serving", () => {
  it("is ready once attached and its store answers; not while the store fails or while draining", async () => {
    const serving = new Serving();
    const starting = call("GET", "/readyz");
    expect(await serving.routes(starting.req, starting.res)).toBe(true);
    expect(starting.answer.status).toBe(503);
    expect(JSON.parse(starting.answer.body)).toEqual({ status: "starting" });

    const store = new MemoryCoordination();
    serving.attach(fakeApp(), store);
    const ready = call("GET", "/readyz?probe=1");
    await serving.routes(ready.req, ready.res);
    expect(ready.answer.status).toBe(200);

    const broken = new Serving();
    broken.attach(fakeApp(), {
      kind: "redis",
      get: () => Promise.reject(new Error("connection refused")),
    } as unknown as Coordination);
    const unready = call("GET", "/readyz");
    await broken.routes(unready.req, unready.res);
    expect(unready.answer.status).toBe(503);
    expect(JSON.parse(unready.answer.body).reason).toContain("connection refused");

    serving.drain();
    const stopping = call("GET", "/readyz");
    await serving.routes(stopping.req, stopping.res);
    expect(stopping.answer.status).toBe(503);
    expect(JSON.parse(stopping.answer.body)).toEqual({ status: "stopping" });
  });

  it("is not ready while GitHub does not answer (a streak of failures), and ready once it answers", async () => {
    const serving = new Serving();
    serving.attach(fakeApp(), new MemoryCoordination());
    let githubAnswers = false;
    const github: GitHubReachability = new GitHubReachability(3, async () => {
      if (githubAnswers) github.answered();
      else github.failed("connect ECONNREFUSED 127.0.0.1:443");
    });
    serving.addReadinessCheck(() => github.check());
    const readyz = async () => {
      const c = call("GET", "/readyz");
      await serving.routes(c.req, c.res);
      return {
        status: c.answer.status,
        body: JSON.parse(c.answer.body) as Record<string, unknown>,
      };
    };
    for (let i = 0; i < 3; i++) {
      expect((await readyz()).status).toBe(200);
      github.failed("getaddrinfo ENOTFOUND api.github.com");
    }
    expect(await readyz()).toEqual({
      status: 503,
      body: {
        status: "unready",
        reason:
          "GitHub did not answer the last 4 requests (last: connect ECONNREFUSED 127.0.0.1:443)",
      },
    });
    githubAnswers = true;
    expect(await readyz()).toEqual({ status: 200, body: { status: "ready", store: "memory" } });
  });

  it("answers deliveries and alerts 503 while draining, and lets other requests through", async () => {
    const serving = new Serving();
    serving.attach(fakeApp(), new MemoryCoordination());
    const before = call("POST", "/api/github/webhooks", { "x-github-event": "issues" });
    expect(await serving.routes(before.req, before.res)).toBe(false);
    serving.drain();
    for (const [url, headers] of [
      ["/api/github/webhooks", { "x-github-event": "issues" }],
      ["/alerts/generic", {}],
    ] as const) {
      const c = call("POST", url, headers);
      expect(await serving.routes(c.req, c.res)).toBe(true);
      expect(c.answer.status).toBe(503);
      expect(c.answer.headers["retry-after"]).toBe("30");
    }
    const other = call("GET", "/healthz");
    expect(await serving.routes(other.req, other.res)).toBe(false);
    expect(await serving.settle(10)).toEqual([]);
  });

  it("serves /metrics in Prometheus' text format", async () => {
    const serving = new Serving();
    const c = call("GET", "/metrics");
    expect(await serving.routes(c.req, c.res)).toBe(true);
    expect(c.answer.status).toBe(200);
    expect(c.answer.headers["content-type"]).toMatch(/^text\/plain/);
    expect(c.answer.body).toContain("# TYPE playbook_bot_queue_depth gauge");
    expect(c.answer.body).toContain('playbook_bot_queue_depth{state="waiting"} 0');
  });

  it("is not ready while a readiness check (the inbox) gives a reason", async () => {
    const serving = new Serving();
    serving.attach(fakeApp(), new MemoryCoordination());
    let reason: string | undefined = "the inbox's Redis at redis://r:6379 does not answer";
    serving.addReadinessCheck(() => Promise.resolve(reason));
    const down = call("GET", "/readyz");
    await serving.routes(down.req, down.res);
    expect(down.answer.status).toBe(503);
    expect(JSON.parse(down.answer.body)).toEqual({ status: "unready", reason });
    reason = undefined;
    const up = call("GET", "/readyz");
    await serving.routes(up.req, up.res);
    expect(up.answer.status).toBe(200);
  });

  it("a handler's failure is logged (by Probot) without the delivery's payload", async () => {
    const lines: string[] = [];
    const out = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const probot = new RealProbot({
      githubToken: "test",
      secret: "s",
      log: pino({ level: "debug" }, out),
    });
    const serving = new Serving();
    await probot.load((app: Probot) => {
      serving.attach(app, new MemoryCoordination());
      app.on("issues", () => Promise.reject(new Error("the role lookup hung")));
    });
    const marker = "PAYLOAD-MARKER-not-in-logs";
    await expect(
      probot.webhooks.receive({
        id: "failing-1",
        name: "issues",
        payload: { action: "opened", issue: { body: marker } },
      } as unknown as Parameters<typeof probot.webhooks.receive>[0]),
    ).rejects.toThrow("the role lookup hung");
    const logged = lines.join("");
    expect(logged).toContain("the role lookup hung");
    expect(logged).toContain('"id":"failing-1"');
    expect(logged).not.toContain(marker);
  });
});
