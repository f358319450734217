import { MemoryCoordination } from "../../../src/adapters/coordination/memory.js";
import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { AlertsConfig } from "../../../src/adapters/alerts/config.js";
import { parseMatchers } from "../../../src/core/alerts/matchers.js";
import { AlertTriage } from "../../../src/runtime/alert-triage.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import {
  alertmanagerPayload,
  bundle,
  grafanaPayload,
  hmacHex,
  libraryBundles,
  MemoryAlertIssues,
  serve,
  testConfig,
} from "../../helpers/alerts.js";

const T0 = Date.parse("2026-03-01T09:00:00Z");

interface Rig {
  url: string;
  clock: { now: number };
  ports: Map<string, MemoryAlertIssues>;
  port: (repo?: string) => MemoryAlertIssues;
  calls: () => number;
  logs: string[];
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

async function rig(
  options: {
    config?: Partial<AlertsConfig>;
    playbooks?: PlaybookBundle[];
    startRun?: () => Promise<void>;
  } = {},
): Promise<Rig> {
  const clock = { now: T0 };
  const config = testConfig(options.config);
  const ports = new Map<string, MemoryAlertIssues>();
  const port = (repo = "acme/ops") => {
    let p = ports.get(repo);
    if (!p) {
      p = new MemoryAlertIssues(repo, () => clock.now);
      ports.set(repo, p);
    }
    return p;
  };
  const triage = new AlertTriage({
    coordination: new MemoryCoordination(),
    issues: port,
    playbooks: () => Promise.resolve(options.playbooks ?? []),
    startRun: options.startRun ?? (() => Promise.resolve()),
    now: () => clock.now,
    reopenWindowMs: config.reopenWindowMs,
    issuesPerMinute: (s) => config.sources[s as "generic"]?.issuesPerMinute ?? 30,
  });
  const logs: string[] = [];
  const server = await serve({
    config,
    handle: (alert, repo) => triage.handle(alert, repo),
    now: () => clock.now,
    log: (l) => logs.push(l),
  });
  closers.push(server.close);
  return {
    url: server.url,
    clock,
    ports,
    port,
    calls: () => [...ports.values()].reduce((n, p) => n + p.calls.length, 0),
    logs,
  };
}

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: Record<string, unknown>;
}

async function post(
  url: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
  method = "POST",
): Promise<Reply> {
  const res = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(method === "GET" ? {} : { body }),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    json = { text };
  }
  return { status: res.status, headers: Object.fromEntries(res.headers), json };
}

const amAuth = { authorization: "Bearer am-token" };
function postAm(r: Rig, payload: unknown): Promise<Reply> {
  return post(`${r.url}/alerts/alertmanager`, JSON.stringify(payload), amAuth);
}

function grafanaHeaders(body: string, secret = "grafana-new", ts = T0 / 1000) {
  return {
    "x-grafana-alerting-signature": hmacHex(secret, `${ts}:${body}`),
    "x-grafana-alerting-signature-timestamp": String(ts),
  };
}

function postGeneric(r: Rig, payload: unknown, secret = "generic-secret"): Promise<Reply> {
  const body = JSON.stringify(payload);
  return post(`${r.url}/alerts/generic`, body, {
    "x-hub-signature-256": `sha256=${hmacHex(secret, body)}`,
  });
}

const generic = (over: Record<string, unknown> = {}) => ({
  version: "1",
  dedup_key: "checkout-latency:eu",
  status: "firing",
  title: "Checkout p99 latency > 2s",
  severity: "critical",
  labels: { service: "checkout" },
  ...over,
});

const one = (labels: Record<string, string> = { alertname: "X" }, fp = "0000000000000001") =>
  alertmanagerPayload([{ labels, fingerprint: fp }]);

describe("POST /alerts/<source>: credentials before anything else", () => {
  it("missing or wrong bearer token: 401 and no GitHub request", async () => {
    const r = await rig();
    const body = JSON.stringify(one());
    for (const headers of [
      {} as Record<string, string>,
      { authorization: "Bearer wrong" },
      { authorization: "Basic YW06dG9rZW4=" },
    ]) {
      const res = await post(`${r.url}/alerts/alertmanager`, body, headers);
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ error: "missing or invalid credentials" });
    }
    expect(r.calls()).toBe(0);
    expect(r.logs).toEqual(Array(3).fill("alerts/alertmanager: rejected credentials"));
  });

  it("a bad signature is refused before the body is parsed (malformed JSON → 401, not 400)", async () => {
    const r = await rig();
    const res = await post(`${r.url}/alerts/generic`, "{not json", {
      "x-hub-signature-256": `sha256=${hmacHex("wrong", "{not json")}`,
    });
    expect(res.status).toBe(401);
    const bad = await post(`${r.url}/alerts/grafana`, JSON.stringify(grafanaPayload([])), {
      "x-grafana-alerting-signature": "00".repeat(32),
      "x-grafana-alerting-signature-timestamp": String(T0 / 1000),
    });
    expect(bad.status).toBe(401);
    expect(r.calls()).toBe(0);
  });

  it("rotation: the previous Grafana secret still works", async () => {
    const r = await rig();
    const body = JSON.stringify(grafanaPayload([{ labels: { alertname: "CPU" } }]));
    const res = await post(`${r.url}/alerts/grafana`, body, grafanaHeaders(body, "grafana-old"));
    expect(res.status).toBe(200);
    expect(r.port().count("createIssue")).toBe(1);
    const unknown = await post(
      `${r.url}/alerts/grafana`,
      body,
      grafanaHeaders(body, "grafana-older"),
    );
    expect(unknown.status).toBe(401);
  });

  it("a Grafana timestamp more than 5 minutes away: 401", async () => {
    const r = await rig();
    const body = JSON.stringify(grafanaPayload([{ labels: { alertname: "CPU" } }]));
    for (const ts of [T0 / 1000 - 301, T0 / 1000 + 301]) {
      const res = await post(
        `${r.url}/alerts/grafana`,
        body,
        grafanaHeaders(body, "grafana-new", ts),
      );
      expect(res.status).toBe(401);
    }
    expect(r.calls()).toBe(0);
    const ok = await post(
      `${r.url}/alerts/grafana`,
      body,
      grafanaHeaders(body, "grafana-new", T0 / 1000 - 290),
    );
    expect(ok.status).toBe(200);
  });
});

describe("POST /alerts/<source>: request checks", () => {
  it("malformed JSON (signed): 400 with the parser's reason", async () => {
    const r = await rig();
    const res = await post(`${r.url}/alerts/alertmanager`, '{"alerts": [', amAuth);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatch(/^the body is not JSON: .+/);
    expect(r.calls()).toBe(0);
  });

  it("a schema violation: 400 naming the field", async () => {
    const r = await rig();
    const missing = await postGeneric(r, { version: "1", status: "firing", title: "x" });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toMatch(
      /^the alert does not fit the generic format: .*must have required property 'dedup_key'/,
    );
    const badStatus = await postGeneric(r, generic({ status: "trigger" }));
    expect(badStatus.json.error).toMatch(/\/status must be equal to one of the allowed values/);
    const am = await postAm(r, { alerts: [{ labels: { severity: 3 } }] });
    expect(am.status).toBe(400);
    expect(am.json.error).toMatch(
      /alertmanager format: \/alerts\/0\/labels\/severity must be string/,
    );
    const noAlerts = await postAm(r, { version: "4" });
    expect(noAlerts.json.error).toMatch(/\(body\) must have required property 'alerts'/);
    expect(r.calls()).toBe(0);
  });

  it("no content type: 415", async () => {
    const r = await rig();
    const res = await fetch(`${r.url}/alerts/alertmanager`, {
      method: "POST",
      headers: amAuth,
      body: new Uint8Array(Buffer.from(JSON.stringify(one()))),
    });
    expect(res.status).toBe(415);
  });

  it("wrong content type: 415", async () => {
    const r = await rig();
    const res = await post(`${r.url}/alerts/alertmanager`, JSON.stringify(one()), {
      ...amAuth,
      "content-type": "text/plain",
    });
    expect(res.status).toBe(415);
    expect(res.json.error).toBe("send application/json");
  });

  it("a body over the limit: 413, declared or streamed", async () => {
    const r = await rig({ config: { maxBodyBytes: 2048 } });
    const big = JSON.stringify(one({ alertname: "X", pad: "x".repeat(4000) }));
    const res = await post(`${r.url}/alerts/alertmanager`, big, amAuth);
    expect(res.status).toBe(413);
    expect(res.json.error).toBe("the body is larger than 2048 bytes (the route's cap)");
    // Chunked, without a content length: cut off while streaming.
    const { port } = new URL(r.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port,
          path: "/alerts/alertmanager",
          method: "POST",
          headers: {
            ...amAuth,
            "content-type": "application/json",
            "transfer-encoding": "chunked",
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.write(big.slice(0, 1500));
      setTimeout(() => req.end(big.slice(1500)), 20);
    });
    expect(status).toBe(413);
    expect(r.calls()).toBe(0);
  });

  it("an unknown or unconfigured source: 404; GET: 405 with Allow; other paths are not ours", async () => {
    const r = await rig({
      config: { sources: { alertmanager: testConfig().sources.alertmanager } },
    });
    const unknown = await post(`${r.url}/alerts/pagerduty`, "{}", amAuth);
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toBe("no alert source 'pagerduty' is configured");
    expect((await post(`${r.url}/alerts/grafana`, "{}")).status).toBe(404);
    const get = await post(`${r.url}/alerts/alertmanager`, "", amAuth, "GET");
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe("POST");
    // Names of Object's own properties are not sources either.
    const proto = await post(`${r.url}/alerts/constructor`, "{}", amAuth);
    expect(proto.status).toBe(404);
    const other = await post(`${r.url}/alerts/Alert-Manager/x`, "{}", amAuth);
    expect(other.json).toEqual({ text: "not an alert route" });
    const query = await postAm(r, one());
    expect(query.status).toBe(200);
  });
});

describe("POST /alerts/<source>: triage through the route", () => {
  it("500 alerts, 5 fingerprints, 50 concurrent requests: 5 issues, one edited re-fire comment each", async () => {
    const r = await rig();
    const fps = ["f0", "f1", "f2", "f3", "f4"].map((f) => f.padEnd(16, "0"));
    const requests = Array.from({ length: 50 }, (_, req) =>
      alertmanagerPayload(
        Array.from({ length: 10 }, (_, i) => {
          const n = req * 10 + i;
          return {
            labels: { alertname: "HighErrorRate", shard: String(n % 5) },
            fingerprint: fps[n % 5] as string,
            // Each alert is a new firing cycle.
            startsAt: new Date(T0 + n * 1000).toISOString(),
          };
        }),
      ),
    );
    const replies = await Promise.all(requests.map((p) => postAm(r, p)));
    expect(replies.every((x) => x.status === 200)).toBe(true);
    const outcomes = replies.flatMap((x) => x.json.outcomes as { action: string }[]);
    expect(outcomes).toHaveLength(500);
    expect(outcomes.filter((o) => o.action === "opened")).toHaveLength(5);
    expect(outcomes.filter((o) => o.action === "refired")).toHaveLength(495);
    const port = r.port();
    expect(port.count("createIssue")).toBe(5);
    expect(port.count("comment")).toBe(5);
    expect(port.count("updateComment")).toBe(490);
    let total = 0;
    for (const issue of port.issues.values()) {
      expect(issue.comments).toHaveLength(1);
      const m = /^🔁 Fired again, (\d+) times/.exec(issue.comments[0]?.body ?? "");
      expect(m).not.toBeNull();
      total += Number(m?.[1]);
    }
    expect(total).toBe(495);
    expect(
      [...port.issues.values()].map((i) => i.comments[0]?.body.match(/\d+ times/)?.[0]),
    ).toEqual(Array(5).fill("99 times"));
  });

  it("a repeat that changes nothing: no call but the read", async () => {
    const r = await rig();
    expect((await postAm(r, one())).status).toBe(200);
    const mark = r.port().calls.length;
    const again = await postAm(r, one());
    expect(again.json.outcomes).toEqual([
      { key: "alertmanager:0000000000000001", action: "repeat", issue: 1 },
    ]);
    expect(
      r
        .port()
        .calls.slice(mark)
        .map((c) => c.name),
    ).toEqual(["getIssue"]);
  });

  it("resolve under `resolve: close` closes; a re-fire within the window reopens", async () => {
    const r = await rig({ playbooks: await libraryBundles() });
    await postAm(r, one());
    r.clock.now += 10 * 60_000;
    const resolved = await postAm(
      r,
      alertmanagerPayload([
        { status: "resolved", labels: { alertname: "X" }, fingerprint: "0000000000000001" },
      ]),
    );
    expect(resolved.json.outcomes).toEqual([
      { key: "alertmanager:0000000000000001", action: "closed", issue: 1 },
    ]);
    expect(r.port().issue(1)).toMatchObject({ state: "closed", stateReason: "completed" });
    r.clock.now += 60 * 60_000;
    const refire = await postAm(
      r,
      alertmanagerPayload([
        {
          labels: { alertname: "X" },
          fingerprint: "0000000000000001",
          startsAt: "2026-03-01T10:10:00Z",
        },
      ]),
    );
    expect((refire.json.outcomes as { action: string }[])[0]?.action).toBe("reopened");
    expect(r.port().issue(1).state).toBe("open");
    expect(r.port().count("createIssue")).toBe(1);
  });

  it("an issue closed as not planned is not reopened", async () => {
    const r = await rig();
    await postAm(r, one());
    r.port().closeAs(1, "not_planned");
    const refire = await postAm(
      r,
      alertmanagerPayload([
        {
          labels: { alertname: "X" },
          fingerprint: "0000000000000001",
          startsAt: "2026-03-01T10:00:00Z",
        },
      ]),
    );
    expect(refire.status).toBe(200);
    expect(r.port().issue(1).state).toBe("closed");
    expect(r.port().count("reopen")).toBe(0);
    expect(
      r
        .port()
        .writes()
        .map((c) => c.name),
    ).toEqual(["createIssue"]);
  });

  it("storm: issues_per_minute 3 and 10 distinct alerts → 3 issues and 1 digest listing 7", async () => {
    const base = testConfig();
    const r = await rig({
      config: {
        sources: {
          ...base.sources,
          alertmanager: {
            ...(base.sources.alertmanager as NonNullable<typeof base.sources.alertmanager>),
            issuesPerMinute: 3,
          },
        },
      },
    });
    const res = await postAm(
      r,
      alertmanagerPayload(
        Array.from({ length: 10 }, (_, i) => ({
          labels: { alertname: `Alert${i}` },
          fingerprint: `${i}`.padStart(16, "0"),
        })),
      ),
    );
    expect(res.status).toBe(200);
    const port = r.port();
    expect(port.count("createIssue")).toBe(4);
    const digests = [...port.issues.values()].filter((i) => i.labels.includes("alert-storm"));
    expect(digests).toHaveLength(1);
    expect(digests[0]?.comments).toHaveLength(1);
    const rows = (digests[0]?.comments[0]?.body ?? "").split("\n").filter((l) => /Alert\d/.test(l));
    expect(rows).toHaveLength(7);
    const normal = [...port.issues.values()].filter((i) => !i.labels.includes("alert-storm"));
    expect(normal).toHaveLength(3);
    // The digest lists exactly the alerts that have no issue of their own.
    const opened = normal.map((i) => /Alert\d/.exec(i.title)?.[0]);
    for (const row of rows) expect(opened).not.toContain(/Alert\d/.exec(row)?.[0]);
  });

  it("a GitHub rate limit: 503 with the Retry-After GitHub gave", async () => {
    const r = await rig();
    r.port().fault = (name) => {
      if (name === "createIssue")
        throw Object.assign(new Error("You have exceeded a secondary rate limit"), {
          status: 403,
          response: { headers: { "retry-after": "30" } },
        });
    };
    const res = await postAm(r, one());
    expect(res.status).toBe(503);
    expect(res.headers["retry-after"]).toBe("30");
    expect(res.json.error).toBe("GitHub is rate-limiting this app; retry later");
    // 429 and an exhausted primary limit: 503 too, 60 s by default.
    r.port().fault = () => {
      throw Object.assign(new Error("x"), {
        status: 403,
        response: { headers: { "x-ratelimit-remaining": "0" } },
      });
    };
    const primary = await postAm(r, one({ alertname: "Y" }, "0000000000000002"));
    expect(primary.status).toBe(503);
    expect(primary.headers["retry-after"]).toBe("60");
    r.port().fault = () => {
      throw Object.assign(new Error("API rate limit exceeded for installation"), { status: 403 });
    };
    const byMessage = await postAm(r, one({ alertname: "W" }, "0000000000000004"));
    expect(byMessage.status).toBe(503);
    expect(byMessage.headers["retry-after"]).toBe("60");
    r.port().fault = () => {
      throw Object.assign(new Error("x"), { status: 429 });
    };
    expect((await postAm(r, one({ alertname: "Z" }, "0000000000000003"))).status).toBe(503);
  });

  it("other failures: 500, logged; a plain 403 is not a rate limit", async () => {
    const r = await rig();
    r.port().fault = () => {
      throw Object.assign(new Error("Resource not accessible by integration"), { status: 403 });
    };
    const res = await postAm(r, one());
    expect(res.status).toBe(500);
    expect(res.json.error).toBe("the alert could not be handled; retry later");
    expect(r.logs).toEqual(["alerts/alertmanager: Resource not accessible by integration"]);
  });

  it("routing: the first matching route of the config, never the payload", async () => {
    const { matchers } = parseMatchers({ team: "payments", env: "!=dev" });
    const r = await rig({
      config: {
        routes: [
          { matchers, repo: "acme/payments" },
          { matchers: parseMatchers({ team: "=~.+" }).matchers, repo: "acme/ops" },
        ],
      },
    });
    const res = await postAm(
      r,
      alertmanagerPayload(
        [
          { labels: { alertname: "A", repo: "evil/target" }, fingerprint: "a".repeat(16) },
          { labels: { alertname: "B", env: "prod" }, fingerprint: "b".repeat(16) },
          { labels: { alertname: "C", team: "search" }, fingerprint: "c".repeat(16) },
          { labels: { alertname: "D" }, fingerprint: "d".repeat(16) },
        ],
        { commonLabels: { team: "payments" }, hints: { repo: "evil/target" } },
      ),
    );
    expect(res.status).toBe(200);
    expect(res.json.unrouted).toEqual([]);
    expect([...r.ports.keys()].sort()).toEqual(["acme/ops", "acme/payments"]);
    expect(r.port("acme/payments").count("createIssue")).toBe(3);
    expect(r.port("acme/ops").count("createIssue")).toBe(1);
    expect(r.ports.has("evil/target")).toBe(false);
    // Labels of its own that no route fits: not routed, reported.
    const none = await postAm(
      r,
      alertmanagerPayload([{ labels: { alertname: "E" }, fingerprint: "e".repeat(16) }]),
    );
    expect(none.json).toMatchObject({
      received: 1,
      unrouted: ["alertmanager:" + "e".repeat(16)],
      outcomes: [],
    });
  });

  it("the response reports truncated alerts; nothing is inferred about them", async () => {
    const r = await rig();
    const res = await postAm(
      r,
      alertmanagerPayload([{ labels: { alertname: "X" } }], { truncatedAlerts: 12 }),
    );
    expect(res.json).toMatchObject({ received: 1, truncated: 12 });
    expect(r.port().count("createIssue")).toBe(1);
  });

  it("generic: an event_id seen before is a duplicate, with no GitHub call", async () => {
    const r = await rig();
    const first = await postGeneric(r, generic({ event_id: "evt-1" }));
    expect(first.json).toMatchObject({ received: 1, outcomes: [{ action: "opened", issue: 1 }] });
    const mark = r.calls();
    const dup = await postGeneric(r, generic({ event_id: "evt-1", title: "changed" }));
    expect(dup.json).toEqual({ received: 1, duplicate: true });
    expect(r.calls()).toBe(mark);
    // Without an event_id: the triage's own dedupe (a repeat).
    const noId = await postGeneric(r, generic());
    expect((noId.json.outcomes as { action: string }[])[0]?.action).toBe("repeat");
  });

  it("generic: an event that failed is handled again on its retry, and its playbook starts once", async () => {
    let attempts = 0;
    const r = await rig({
      playbooks: [bundle({ id: "alert-triage" })],
      // GitHub answers 502 once while the playbook starts.
      startRun: () =>
        ++attempts === 1
          ? Promise.reject(Object.assign(new Error("Bad Gateway"), { status: 502 }))
          : Promise.resolve(),
    });
    const failed = await postGeneric(r, generic({ event_id: "evt-9" }));
    expect(failed.status).toBe(500);
    expect(r.port().count("createIssue")).toBe(1);
    // The sender retries: not a duplicate, not a repeat — the start is done now.
    const retried = await postGeneric(r, generic({ event_id: "evt-9" }));
    expect(retried.status).toBe(200);
    expect(retried.json).toMatchObject({
      outcomes: [{ action: "opened", issue: 1, playbook: "alert-triage" }],
    });
    expect(attempts).toBe(2);
    expect(r.port().count("createIssue")).toBe(1);
    // Once handled, the same event is a duplicate; the next firing is a repeat, with no new start.
    expect((await postGeneric(r, generic({ event_id: "evt-9" }))).json).toEqual({
      received: 1,
      duplicate: true,
    });
    const again = await postGeneric(r, generic({ event_id: "evt-10" }));
    expect((again.json.outcomes as { action: string }[])[0]?.action).toBe("repeat");
    expect(attempts).toBe(2);
  });
});
