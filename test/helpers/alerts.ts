/**
 * Helpers for the alert pipeline tests: an in-memory AlertIssuesPort that answers like GitHub and
 * counts every call, payload builders in the documented Alertmanager (v4) and Grafana shapes,
 * request signing, and a loopback HTTP server around the alerts handler.
 */
import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { AlertsConfig } from "../../src/adapters/alerts/config.js";
import { alertsHandler, type AlertRouteDeps } from "../../src/adapters/alerts/http.js";
import type { AlertIssue, AlertIssuesPort } from "../../src/runtime/alert-triage.js";
import type { PlaybookBundle } from "../../src/core/steps/types.js";
import type { PlaybookDocument } from "../../src/core/format/types.js";
import { bundledPlaybooks } from "../../src/adapters/local/library.js";

export type PortCall = keyof AlertIssuesPort;

export interface MemoryIssue extends AlertIssue {
  labels: string[];
  comments: { id: string; body: string; edits: number }[];
}

/** GitHub's issues of one repository, in memory; every call is recorded by name. */
export class MemoryAlertIssues implements AlertIssuesPort {
  readonly issues = new Map<number, MemoryIssue>();
  readonly calls: { name: PortCall; args: unknown[] }[] = [];
  /** Consulted before every call: a thrown error replaces the answer. */
  fault: ((name: PortCall) => void) | undefined;
  private nextIssue = 1;
  private nextComment = 100;

  constructor(
    readonly repo = "acme/ops",
    readonly clock: () => number = () => Date.now(),
  ) {}

  private call(name: PortCall, args: unknown[]): void {
    this.calls.push({ name, args });
    this.fault?.(name);
  }

  count(name?: PortCall): number {
    return name ? this.calls.filter((c) => c.name === name).length : this.calls.length;
  }

  /** Calls other than reads. */
  writes(): { name: PortCall; args: unknown[] }[] {
    return this.calls.filter((c) => c.name !== "listAlertIssues" && c.name !== "getIssue");
  }

  private view(i: MemoryIssue): AlertIssue {
    return {
      number: i.number,
      url: i.url,
      title: i.title,
      body: i.body,
      state: i.state,
      stateReason: i.stateReason ?? null,
      closedAt: i.closedAt ?? null,
    };
  }

  issue(n: number): MemoryIssue {
    const i = this.issues.get(n);
    if (!i) throw Object.assign(new Error(`no issue ${n}`), { status: 404 });
    return i;
  }

  /** A person closes an issue. */
  closeAs(n: number, reason: "completed" | "not_planned", at = this.clock()): void {
    const i = this.issue(n);
    i.state = "closed";
    i.stateReason = reason;
    i.closedAt = new Date(at).toISOString();
  }

  async listAlertIssues(): Promise<AlertIssue[]> {
    this.call("listAlertIssues", []);
    await Promise.resolve();
    return [...this.issues.values()]
      .filter((i) => i.labels.includes("alert"))
      .map((i) => this.view(i));
  }

  async getIssue(number: number): Promise<AlertIssue> {
    this.call("getIssue", [number]);
    await Promise.resolve();
    return this.view(this.issue(number));
  }

  async createIssue(title: string, body: string, labels: string[]): Promise<AlertIssue> {
    this.call("createIssue", [title, body, labels]);
    await Promise.resolve();
    const number = this.nextIssue++;
    const i: MemoryIssue = {
      number,
      url: `https://github.com/${this.repo}/issues/${number}`,
      title,
      body,
      state: "open",
      stateReason: null,
      closedAt: null,
      labels: [...labels],
      comments: [],
    };
    this.issues.set(number, i);
    return this.view(i);
  }

  async comment(issue: number, body: string): Promise<string> {
    this.call("comment", [issue, body]);
    await Promise.resolve();
    const id = String(this.nextComment++);
    this.issue(issue).comments.push({ id, body, edits: 0 });
    return id;
  }

  async updateComment(id: string, body: string): Promise<void> {
    this.call("updateComment", [id, body]);
    await Promise.resolve();
    for (const i of this.issues.values())
      for (const c of i.comments)
        if (c.id === id) {
          c.body = body;
          c.edits++;
          return;
        }
    throw Object.assign(new Error(`no comment ${id}`), { status: 404 });
  }

  async reopen(issue: number): Promise<void> {
    this.call("reopen", [issue]);
    await Promise.resolve();
    const i = this.issue(issue);
    i.state = "open";
    i.stateReason = "reopened";
    i.closedAt = null;
  }

  async close(issue: number, reason: "completed" | "not_planned"): Promise<void> {
    this.call("close", [issue, reason]);
    await Promise.resolve();
    this.closeAs(issue, reason);
  }
}

/** A playbook bundle from a partial document (for selection and triage tests). */
export function bundle(doc: Partial<PlaybookDocument> & { id: string }): PlaybookBundle {
  return {
    playbook: { apiVersion: "playbook-bot/v1", steps: [], ...doc } as PlaybookDocument,
    hash: `hash-${doc.id}`,
  };
}

/** The bundled library as bundles (alert-high-error-rate, alert-triage and the rest). */
export async function libraryBundles(): Promise<PlaybookBundle[]> {
  return (await bundledPlaybooks()).map((k) => ({
    playbook: k.playbook as PlaybookDocument,
    hash: `hash-${k.id}`,
  }));
}

export interface PromAlertInput {
  status?: "firing" | "resolved";
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  fingerprint?: string;
  startsAt?: string;
}

/** An Alertmanager webhook (version 4) as notify/webhook sends it (alert-anchors §2.1). */
export function alertmanagerPayload(
  alerts: PromAlertInput[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const firing = alerts.some((a) => (a.status ?? "firing") === "firing");
  return {
    version: "4",
    groupKey: '{}/{severity="critical"}:{alertname="HighErrorRate"}',
    truncatedAlerts: 0,
    status: firing ? "firing" : "resolved",
    receiver: "playbook-bot",
    groupLabels: { alertname: alerts[0]?.labels.alertname ?? "X" },
    commonLabels: {},
    commonAnnotations: {},
    externalURL: "http://alertmanager.example:9093",
    alerts: alerts.map((a) => ({
      status: a.status ?? "firing",
      labels: a.labels,
      annotations: a.annotations ?? {},
      startsAt: a.startsAt ?? "2026-03-01T08:59:00Z",
      endsAt: a.status === "resolved" ? "2026-03-01T09:30:00Z" : "0001-01-01T00:00:00Z",
      generatorURL: "http://prometheus.example:9090/graph?g0.expr=up",
      fingerprint: a.fingerprint ?? "0123456789abcdef",
    })),
    ...extra,
  };
}

/** A Grafana unified alerting webhook (version 1) with its extras (alert-anchors §2.2). */
export function grafanaPayload(
  alerts: PromAlertInput[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const firing = alerts.some((a) => (a.status ?? "firing") === "firing");
  return {
    receiver: "playbook-bot",
    status: firing ? "firing" : "resolved",
    orgId: 1,
    alerts: alerts.map((a) => ({
      status: a.status ?? "firing",
      labels: a.labels,
      annotations: a.annotations ?? {},
      startsAt: a.startsAt ?? "2026-03-01T08:59:00Z",
      endsAt: "0001-01-01T00:00:00Z",
      generatorURL: "https://grafana.example/alerting/grafana/abc/view",
      fingerprint: a.fingerprint ?? "57c6d9296de2ad39",
      silenceURL: "https://grafana.example/alerting/silence/new?matcher=alertname%3DX",
      dashboardURL: "https://grafana.example/d/dash",
      panelURL: "https://grafana.example/d/dash?viewPanel=1",
      values: { B: 44.2, C: 1 },
      valueString: "[ var='B' labels={} value=44.2 ]",
    })),
    groupLabels: {},
    commonLabels: {},
    commonAnnotations: {},
    externalURL: "https://grafana.example/",
    version: "1",
    groupKey: "{}:{}",
    truncatedAlerts: 0,
    title: "[FIRING:1] X",
    state: firing ? "alerting" : "ok",
    message: "**Firing**",
    ...extra,
  };
}

export function hmacHex(secret: string, data: string | Buffer): string {
  return createHmac("sha256", secret).update(data).digest("hex");
}

/** A test config: the three external sources, routes as given. */
export function testConfig(over: Partial<AlertsConfig> = {}): AlertsConfig {
  return {
    sources: {
      alertmanager: {
        auth: { kind: "bearer", secrets: ["am-token"], signatureHeader: "authorization" },
        issuesPerMinute: 1000,
      },
      grafana: {
        auth: {
          kind: "hmac",
          secrets: ["grafana-new", "grafana-old"],
          signatureHeader: "x-grafana-alerting-signature",
          timestampHeader: "x-grafana-alerting-signature-timestamp",
        },
        issuesPerMinute: 1000,
      },
      generic: {
        auth: { kind: "hmac", secrets: ["generic-secret"], signatureHeader: "x-hub-signature-256" },
        issuesPerMinute: 1000,
      },
    },
    routes: [{ matchers: [], repo: "acme/ops" }],
    reopenWindowMs: 24 * 3_600_000,
    maxBodyBytes: 64 * 1024,
    ...over,
  };
}

/** The alerts handler on a loopback server (port 0); `url` is its base, `close` stops it. */
export async function serve(
  deps: AlertRouteDeps,
): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const handler = alertsHandler(deps);
  const server = createServer((req, res) => {
    void handler(req, res).then((handled) => {
      if (!handled) {
        res.writeHead(404, { "content-type": "text/plain" });
        res.end("not an alert route");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
