import { performance } from "node:perf_hooks";
import type { AlertsConfig } from "../../../src/adapters/alerts/config.js";
import { alertmanagerPayload } from "../../helpers/alerts.js";
import type { FakeGitHub } from "../../helpers/fake-github.js";
import { installedRepository, makeClock, OWNER, REPO } from "./harness.js";
import { ServedHarness } from "./served.js";

/**
 * Alerts through the app as it is deployed: Alertmanager notifications POSTed to the served
 * app's `/alerts/alertmanager` route on loopback, routed to a repository the app finds through
 * its installation, triaged with the bundled playbooks, each new alert's issue opened and the
 * best-matching playbook started on it, GitHub answered by the fake (nock; no network). Shared
 * by the alert request tests and `bench/alerts-app.ts`.
 */

export const ALERT_TOKEN = "alertmanager-token";

export const ALERTS_CONFIG: AlertsConfig = {
  sources: {
    alertmanager: {
      auth: { kind: "bearer", secrets: [ALERT_TOKEN], signatureHeader: "authorization" },
      issuesPerMinute: 1_000_000,
    },
  },
  routes: [{ matchers: [], repo: `${OWNER}/${REPO}` }],
  reopenWindowMs: 24 * 3_600_000,
  maxBodyBytes: 1024 * 1024,
};

export type AlertKind = "new" | "repeat" | "re-fire" | "re-fire again" | "resolve";

export interface AlertCost {
  kind: AlertKind;
  alerts: number;
  /** GitHub requests while the app answered the POST, per alert. */
  perAlert: number;
  /** The same, with the webhook deliveries the app's own requests caused (a run's continuations). */
  perAlertWithDeliveries: number;
  /** Requests by method and route, per alert, for the POST itself. */
  byRoute: Record<string, number>;
  /** Wall time of the POSTs, alerts per second. */
  alertsPerSecond: number;
}

export interface AlertScenario {
  costs: AlertCost[];
  fake: FakeGitHub;
  harness: ServedHarness;
}

export function notification(
  keys: string[],
  opts: { status?: "firing" | "resolved"; startsAt?: string } = {},
): string {
  return JSON.stringify(
    alertmanagerPayload(
      keys.map((fingerprint) => ({
        labels: { alertname: "HighErrorRate", service: "payments", instance: `i-${fingerprint}` },
        annotations: { summary: "5xx above 5% for 10 minutes" },
        fingerprint,
        status: opts.status ?? "firing",
        ...(opts.startsAt ? { startsAt: opts.startsAt } : {}),
      })),
    ),
  );
}

function route(path: string): string {
  return path
    .replace(/\?.*$/, "")
    .replace(/\/[0-9]+(?=\/|$)/g, "/:n")
    .replace(/^\/repos\/[^/]+\/\.github(?=\/|$)/, "(org .github) ")
    .replace(/^\/repos\/[^/]+\/[^/]+/, "")
    .trim();
}

/** `alerts` alerts of distinct keys per notification, `notifications` notifications per kind. */
export async function alertScenario(
  opts: { alerts?: number; notifications?: number } = {},
): Promise<AlertScenario> {
  const perNotification = opts.alerts ?? 10;
  const notifications = opts.notifications ?? 1;
  const fake = installedRepository({}, {}, makeClock());
  const harness = new ServedHarness(fake, makeClock());
  harness.alerts = ALERTS_CONFIG;
  await harness.start();
  const keys = Array.from({ length: notifications }, (_, n) =>
    Array.from({ length: perNotification }, (_, i) =>
      (0x1000 + n * perNotification + i).toString(16).padStart(16, "0"),
    ),
  );
  const kinds: [AlertKind, (k: string[]) => string][] = [
    ["new", (k) => notification(k)],
    ["repeat", (k) => notification(k)],
    ["re-fire", (k) => notification(k, { startsAt: "2026-03-01T10:00:00Z" })],
    ["re-fire again", (k) => notification(k, { startsAt: "2026-03-01T11:00:00Z" })],
    ["resolve", (k) => notification(k, { status: "resolved" })],
  ];
  const costs: AlertCost[] = [];
  for (const [kind, body] of kinds) {
    const from = fake.requests.length;
    const t0 = performance.now();
    for (const k of keys) {
      const res = await harness.postAlert("alertmanager", body(k), {
        authorization: `Bearer ${ALERT_TOKEN}`,
      });
      if (res.status !== 200) throw new Error(`alert POST: HTTP ${res.status} ${res.text}`);
    }
    const ms = performance.now() - t0;
    const posted = fake.requests.slice(from);
    const count = perNotification * notifications;
    await harness.drain(10 * count);
    const all = fake.requests.length - from;

    const byRoute: Record<string, number> = {};
    for (const r of posted) {
      const key = `${r.method} ${route(r.path)}`;
      byRoute[key] = (byRoute[key] ?? 0) + 1 / count;
    }
    costs.push({
      kind,
      alerts: count,
      perAlert: posted.length / count,
      perAlertWithDeliveries: all / count,
      byRoute,
      alertsPerSecond: count / (ms / 1000),
    });
  }
  await harness.stop();
  await harness.close();
  fake.uninstall();
  return { costs, fake, harness };
}
