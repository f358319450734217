import { register } from "prom-client";
import { describe, expect, it } from "vitest";
import { AppMetrics } from "../../../src/adapters/metrics/metrics.js";
import { serve, testConfig } from "../../helpers/alerts.js";

async function value(m: AppMetrics, line: string): Promise<number | undefined> {
  const found = (await m.registry.metrics()).split("\n").find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe("AppMetrics", () => {
  it("keeps each app's metrics in a registry of its own, never the global one", async () => {
    const a = new AppMetrics();
    const b = new AppMetrics();
    a.eventsHandled.inc({ event: "issues.labeled" });
    expect(await value(a, 'playbook_bot_events_handled_total{event="issues.labeled"}')).toBe(1);
    expect(await value(b, 'playbook_bot_events_handled_total{event="issues.labeled"}')).toBe(
      undefined,
    );
    expect(await register.metrics()).not.toContain("playbook_bot_");
  });

  it("counts an Octokit's requests once however often it is observed, and keeps the rate-limit headroom", async () => {
    const m = new AppMetrics();
    const after: ((r: unknown, o: unknown) => void)[] = [];
    const error: ((e: unknown, o: unknown) => unknown)[] = [];
    const octokit = {
      hook: {
        after: (_: string, fn: (r: unknown, o: unknown) => void) => after.push(fn),
        error: (_: string, fn: (e: unknown, o: unknown) => unknown) => error.push(fn),
      },
    };
    m.observeOctokit(octokit);
    m.observeOctokit(octokit);
    expect(after).toHaveLength(1);
    after[0]?.(
      { status: 200, headers: { "x-ratelimit-remaining": "99", "x-ratelimit-resource": "core" } },
      { method: "GET" },
    );
    expect(() =>
      error[0]?.(
        { status: 404, response: { status: 404, headers: { "x-ratelimit-remaining": "98" } } },
        { method: "post" },
      ),
    ).toThrow();
    expect(() => error[0]?.(new Error("socket hang up"), { method: "PATCH" })).toThrow();
    // What @octokit/request makes of a failed fetch: status 500, but no answer came.
    const dns = Object.assign(new Error("getaddrinfo ENOTFOUND api.github.com"), { status: 500 });
    expect(() => error[0]?.(dns, { method: "PATCH" })).toThrow();
    expect(await value(m, 'playbook_bot_github_requests_total{method="GET",status="200"}')).toBe(1);
    expect(await value(m, 'playbook_bot_github_requests_total{method="POST",status="404"}')).toBe(
      1,
    );
    expect(
      await value(m, 'playbook_bot_github_requests_total{method="PATCH",status="error"}'),
    ).toBe(2);
    expect(await m.registry.metrics()).not.toContain('status="500"');
    expect(await value(m, 'playbook_bot_github_rate_limit_remaining{resource="core"}')).toBe(98);
  });

  it("counts the alert route's outcomes before triage", async () => {
    const m = new AppMetrics();
    const routes = await serve({
      config: testConfig(),
      handle: () => Promise.reject(new Error("not reached")),
      observe: (source, outcome, count) => m.alert(source, outcome, count),
    });
    try {
      const post = (body: string, headers: Record<string, string>) =>
        fetch(`${routes.url}/alerts/generic`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body,
        });
      expect((await post("{}", { "x-hub-signature-256": "sha256=00" })).status).toBe(401);
      expect((await post("{}", { "content-type": "text/plain" })).status).toBe(415);
    } finally {
      await routes.close();
    }
    expect(await value(m, 'playbook_bot_alerts_total{source="generic",outcome="rejected"}')).toBe(
      1,
    );
    expect(await value(m, 'playbook_bot_alerts_total{source="generic",outcome="invalid"}')).toBe(1);
  });
});
