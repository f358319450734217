/* global fetch */
// Alerts through the HTTP route: POST /alerts/alertmanager on a loopback server (node:http on
// 127.0.0.1, real requests with fetch), the real alertsHandler, AlertTriage and the bundled
// playbooks (the default triage playbook, `resolve: close`), with an in-memory issues port that answers like GitHub (no network to GitHub; each
// port call stands for one REST request). Measures alerts per second for new alerts, repeats and
// re-fires, and GitHub requests per alert for each kind. Run after `npm run build`.
import { createServer } from "node:http";
import { alertsHandler } from "../dist/adapters/alerts/http.js";
import { AlertTriage } from "../dist/runtime/alert-triage.js";
import { bundledPlaybooks } from "../dist/adapters/local/library.js";
import { MemoryCoordination } from "../dist/adapters/coordination/memory.js";
import { fmt, now, percentile, progress, settle, table } from "./lib/common.mjs";

/** GitHub's issues of one repository in memory; every call counted (one REST request each). */
class MemoryIssues {
  issues = new Map();
  calls = 0;
  byName = {};
  next = 1;
  nextComment = 1;
  count(name) {
    this.calls++;
    this.byName[name] = (this.byName[name] ?? 0) + 1;
  }
  view(i) {
    return { ...i };
  }
  async listAlertIssues() {
    this.count("listAlertIssues");
    // One request per page of 100.
    const pages = Math.max(1, Math.ceil(this.issues.size / 100));
    this.calls += pages - 1;
    return [...this.issues.values()].map((i) => this.view(i));
  }
  async getIssue(n) {
    this.count("getIssue");
    return this.view(this.issues.get(n));
  }
  async createIssue(title, body) {
    this.count("createIssue");
    const i = {
      number: this.next++,
      url: `https://github.com/acme/ops/issues/${this.next}`,
      title,
      body,
      state: "open",
      stateReason: null,
      closedAt: null,
    };
    this.issues.set(i.number, i);
    return this.view(i);
  }
  async comment() {
    this.count("comment");
    return String(this.nextComment++);
  }
  async updateComment() {
    this.count("updateComment");
  }
  async reopen(n) {
    this.count("reopen");
    Object.assign(this.issues.get(n), { state: "open", closedAt: null });
  }
  async close(n, reason) {
    this.count("close");
    Object.assign(this.issues.get(n), {
      state: "closed",
      stateReason: reason,
      closedAt: new Date().toISOString(),
    });
  }
}

const TOKEN = "bench-token";
const config = {
  sources: {
    alertmanager: {
      auth: { kind: "bearer", secrets: [TOKEN], signatureHeader: "authorization" },
      issuesPerMinute: 1_000_000,
    },
  },
  routes: [{ matchers: [], repo: "acme/ops" }],
  reopenWindowMs: 86_400_000,
  maxBodyBytes: 1024 * 1024,
};

const playbooks = (await bundledPlaybooks()).map((k) => ({ playbook: k.playbook, hash: k.id }));

async function rig() {
  const port = new MemoryIssues();
  const triage = new AlertTriage({
    coordination: new MemoryCoordination(),
    issues: () => port,
    playbooks: async () => playbooks,
    startRun: async () => undefined,
    now: () => Date.now(),
    reopenWindowMs: config.reopenWindowMs,
    issuesPerMinute: () => 1_000_000,
  });
  const handler = alertsHandler({ config, handle: (a, repo) => triage.handle(a, repo) });
  const server = createServer((req, res) => void handler(req, res));
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { port, url: `http://127.0.0.1:${server.address().port}/alerts/alertmanager`, server };
}

function payload(fps, { status = "firing", startsAt = "2026-03-01T08:59:00Z" } = {}) {
  return JSON.stringify({
    version: "4",
    groupKey: "{}:{}",
    truncatedAlerts: 0,
    status,
    receiver: "bench",
    groupLabels: {},
    commonLabels: { env: "prod", severity: "critical" },
    commonAnnotations: {},
    externalURL: "http://alertmanager:9093",
    alerts: fps.map((fp) => ({
      status,
      labels: { alertname: "DiskFull", instance: `i-${fp}` },
      annotations: { summary: "disk above 90%", description: "the data volume is filling up" },
      startsAt,
      endsAt: "0001-01-01T00:00:00Z",
      generatorURL: "http://prometheus:9090/graph",
      fingerprint: fp,
    })),
  });
}

async function send(url, body) {
  const t0 = now();
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
    body,
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`status ${res.status}`);
  return now() - t0;
}

/** Send `bodies` with `concurrency` requests in flight; alerts/s and request latency. */
async function run(url, bodies, perRequest, concurrency = 16) {
  const latencies = [];
  let i = 0;
  const t0 = now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (i < bodies.length) latencies.push(await send(url, bodies[i++]));
    }),
  );
  const ms = now() - t0;
  return {
    alertsPerSecond: (bodies.length * perRequest) / (ms / 1000),
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
  };
}

const PER_REQUEST = 10;
const REQUESTS = 400;
const fp = (n) => n.toString(16).padStart(16, "0");
const groups = Array.from({ length: REQUESTS }, (_, r) =>
  Array.from({ length: PER_REQUEST }, (_, i) => fp(r * PER_REQUEST + i)),
);

// Throughput: one keyspace of 4,000 alerts, first new, then repeated, then re-fired.
progress("throughput");
const t = await rig();
// Warm-up on other keys.
await run(
  t.url,
  groups.slice(0, 20).map((g) => payload(g.map((x) => `w${x}`))),
  PER_REQUEST,
);
settle();
const rows = [];
for (const [kind, bodies] of [
  ["new (opens an issue)", groups.map((g) => payload(g))],
  ["repeat (same firing)", groups.map((g) => payload(g))],
  ["re-fire (new startsAt)", groups.map((g) => payload(g, { startsAt: "2026-03-01T10:00:00Z" }))],
  ["resolve (resolve: close)", groups.map((g) => payload(g, { status: "resolved" }))],
]) {
  const r = await run(t.url, bodies, PER_REQUEST);
  rows.push([kind, Math.round(r.alertsPerSecond).toLocaleString("en"), fmt(r.p50), fmt(r.p95)]);
  settle();
}
t.server.close();

// GitHub requests per alert: each kind on a fresh repository, 100 alerts of distinct keys.
progress("requests per alert");
const c = await rig();
const keys = Array.from({ length: 100 }, (_, i) => fp(0x100000 + i));
const perAlert = [];
for (const [kind, body] of [
  ["new (the first one lists the repository's alert issues)", payload(keys)],
  ["repeat", payload(keys)],
  ["re-fire, first (comment)", payload(keys, { startsAt: "2026-03-01T10:00:00Z" })],
  ["re-fire, later (edit the comment)", payload(keys, { startsAt: "2026-03-01T11:00:00Z" })],
  ["resolve (comment + close)", payload(keys, { status: "resolved" })],
  ["re-fire after close (reopen + comment)", payload(keys, { startsAt: "2026-03-01T12:00:00Z" })],
]) {
  const before = { ...c.port.byName };
  const calls0 = c.port.calls;
  await send(c.url, body);
  const diff = Object.entries(c.port.byName)
    .map(([k, v]) => [k, v - (before[k] ?? 0)])
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} ${(v / keys.length).toFixed(2)}`)
    .join(", ");
  perAlert.push([kind, ((c.port.calls - calls0) / keys.length).toFixed(2), diff]);
}
c.server.close();

console.log(
  [
    "## alerts.mjs",
    "",
    `Alertmanager notifications of ${PER_REQUEST} alerts POSTed to \`/alerts/alertmanager\` on a loopback server (${REQUESTS} requests, 16 in flight, bearer auth, schema check, routing, triage with the bundled playbooks). GitHub is an in-memory issues port that answers at once, so the figures are the app's own cost; every port call stands for one REST request.`,
    "",
    table(["alerts", "alerts/s", "request p50 (ms)", "request p95 (ms)"], rows),
    "",
    "GitHub requests per alert (100 alerts of distinct keys in one notification):",
    "",
    table(["alert", "requests/alert", "by kind"], perAlert, "lrl"),
    "",
  ].join("\n"),
);
