import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  AlertsConfigError,
  loadAlertsConfig,
  parseAlertsConfig,
  routeAlert,
} from "../../../src/adapters/alerts/config.js";

const ENV = {
  AM_TOKEN: "am-secret",
  GRAFANA_HMAC: "g-new",
  GRAFANA_HMAC_OLD: "g-old",
  GENERIC_HMAC: "gen",
};

const GOOD = `sources:
  alertmanager:
    auth: { bearer_token_env: AM_TOKEN }
    issues_per_minute: 5
  grafana:
    auth:
      hmac_secret_env: [GRAFANA_HMAC, GRAFANA_HMAC_OLD]
      timestamp_header: X-Grafana-Alerting-Signature-Timestamp
  generic:
    auth: { hmac_secret_env: GENERIC_HMAC, signature_header: X-Signature }
routes:
  - match: { team: payments, env: "!=dev" }
    repo: acme/payments
  - match: { service: "=~db-.*" }
    repo: acme/storage
  - repo: acme/ops
reopen_window: 2h30m
max_body_bytes: 2048
`;

function parseError(text: string, env: NodeJS.ProcessEnv = ENV): string {
  try {
    parseAlertsConfig("alerts.yaml", text, env);
  } catch (err) {
    expect(err).toBeInstanceOf(AlertsConfigError);
    return (err as Error).message;
  }
  throw new Error("expected an error");
}

describe("ALERTS_CONFIG parsing", () => {
  it("reads sources, secrets from the environment, routes and limits", () => {
    const c = parseAlertsConfig("alerts.yaml", GOOD, ENV);
    expect(c.sources.alertmanager).toEqual({
      auth: { kind: "bearer", secrets: ["am-secret"], signatureHeader: "authorization" },
      issuesPerMinute: 5,
    });
    expect(c.sources.grafana).toEqual({
      auth: {
        kind: "hmac",
        secrets: ["g-new", "g-old"],
        signatureHeader: "x-grafana-alerting-signature",
        timestampHeader: "x-grafana-alerting-signature-timestamp",
      },
      issuesPerMinute: 30,
    });
    expect(c.sources.generic?.auth.signatureHeader).toBe("x-signature");
    expect(c.reopenWindowMs).toBe(2.5 * 3_600_000);
    expect(c.maxBodyBytes).toBe(2048);
    expect(c.routes.map((r) => r.repo)).toEqual(["acme/payments", "acme/storage", "acme/ops"]);
  });

  it("defaults: 24h reopen window, 1 MiB bodies, the generic source's GitHub-style header", () => {
    const c = parseAlertsConfig(
      "a.yaml",
      "sources:\n  generic:\n    auth: { hmac_secret_env: GENERIC_HMAC }\nroutes:\n  - repo: o/r\n",
      ENV,
    );
    expect(c.reopenWindowMs).toBe(86_400_000);
    expect(c.maxBodyBytes).toBe(1024 * 1024);
    expect(c.sources.generic?.auth.signatureHeader).toBe("x-hub-signature-256");
    expect(c.sources.generic?.auth.timestampHeader).toBeUndefined();
  });

  it("routes by the first matching route, never by anything else", () => {
    const c = parseAlertsConfig("alerts.yaml", GOOD, ENV);
    expect(routeAlert(c, { team: "payments", env: "prod" })).toBe("acme/payments");
    expect(routeAlert(c, { team: "payments", env: "dev" })).toBe("acme/ops");
    expect(routeAlert(c, { service: "db-main", team: "payments" })).toBe("acme/payments");
    expect(routeAlert(c, { service: "db-main" })).toBe("acme/storage");
    expect(routeAlert(c, { repo: "evil/target" })).toBe("acme/ops");
    const noCatchAll = parseAlertsConfig(
      "a.yaml",
      "sources: {}\nroutes:\n  - match: { team: x }\n    repo: o/r\n",
      {},
    );
    expect(routeAlert(noCatchAll, { team: "y" })).toBeUndefined();
  });

  it("a YAML syntax error names file:line:col", () => {
    expect(parseError("sources:\n  grafana: [\nroutes: x\n")).toMatch(/^alerts\.yaml:\d+:\d+: /);
  });

  it("a schema error names file:line:col and the path", () => {
    const msg = parseError(
      "sources:\n  alertmanager:\n    auth: { bearer_token_env: AM_TOKEN }\n    issues_per_minute: 0\nroutes:\n  - repo: acme/ops\n",
    );
    expect(msg).toMatch(/^alerts\.yaml:4:\d+: .*issues_per_minute.*>= 1/);
  });

  it("an unknown key is named, at its line", () => {
    const msg = parseError(
      "sources:\n  pagerduty:\n    auth: { bearer_token_env: X }\nroutes:\n  - repo: acme/ops\n",
    );
    expect(msg).toMatch(/^alerts\.yaml:2:\d+: .*'pagerduty'/);
  });

  it("a bad repo and a bad env name are errors with positions, several at once", () => {
    const msg = parseError(
      "sources:\n  generic:\n    auth: { hmac_secret_env: lower-case }\nroutes:\n  - repo: not a repo\nreopen_window: soon\n",
    );
    const lines = msg.split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const l of lines) expect(l).toMatch(/^alerts\.yaml:\d+:\d+: /);
    expect(msg).toMatch(/alerts\.yaml:3:\d+: .*hmac_secret_env/);
    expect(msg).toMatch(/alerts\.yaml:5:\d+: .*repo/);
    expect(msg).toMatch(/alerts\.yaml:6:\d+: .*reopen_window/);
  });

  it("missing routes is an error", () => {
    expect(parseError("sources: {}\n")).toMatch(/^alerts\.yaml:1:1: .*routes/);
  });

  it("more than two secrets (rotation keeps two) is an error", () => {
    expect(
      parseError(
        "sources:\n  grafana:\n    auth: { hmac_secret_env: [A, B, C] }\nroutes:\n  - repo: o/r\n",
      ),
    ).toMatch(/^alerts\.yaml:3:\d+: .*hmac_secret_env: must NOT have more than 2 items$/m);
  });

  it("both or neither of bearer and hmac is an error", () => {
    expect(
      parseError(
        "sources:\n  grafana:\n    auth: { hmac_secret_env: A, bearer_token_env: B }\nroutes:\n  - repo: o/r\n",
        { A: "a", B: "b" },
      ),
    ).toMatch(/^alerts\.yaml:3:11: sources\.grafana\.auth: give exactly one/);
    expect(parseError("sources:\n  grafana:\n    auth: {}\nroutes:\n  - repo: o/r\n")).toMatch(
      /^alerts\.yaml:3:11: .*give exactly one/,
    );
  });

  it("Alertmanager with HMAC is refused: it cannot sign", () => {
    expect(
      parseError(
        "sources:\n  alertmanager:\n    auth: { hmac_secret_env: AM_TOKEN }\nroutes:\n  - repo: o/r\n",
      ),
    ).toMatch(
      /^alerts\.yaml:3:\d+: sources\.alertmanager\.auth: Alertmanager cannot sign requests/,
    );
  });

  it("a missing or empty environment variable stops the server, naming it (never the value)", () => {
    const msg = parseError(GOOD, { ...ENV, GRAFANA_HMAC_OLD: undefined });
    expect(msg).toMatch(
      /^alerts\.yaml:7:\d+: sources\.grafana: environment variable GRAFANA_HMAC_OLD is not set/,
    );
    expect(parseError(GOOD, { ...ENV, AM_TOKEN: "" })).toMatch(
      /^alerts\.yaml:3:\d+: .*AM_TOKEN is not set/,
    );
    expect(msg).not.toContain("g-new");
  });

  it("an invalid route regex is an error naming the route", () => {
    expect(
      parseError('sources: {}\nroutes:\n  - match: { service: "=~(unclosed" }\n    repo: o/r\n'),
    ).toMatch(/^alerts\.yaml:3:\d+: routes\[0\]\.match: label 'service': /);
  });

  it("loads from a file", () => {
    const dir = mkdtempSync(join(tmpdir(), "alerts-config-"));
    const file = join(dir, "alerts.yaml");
    writeFileSync(file, GOOD);
    expect(loadAlertsConfig(file, ENV).routes).toHaveLength(3);
  });
});
