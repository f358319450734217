import { createRequire } from "node:module";
import type { components } from "@octokit/openapi-webhooks-types";
import { describe, expect, it } from "vitest";
import {
  fromGeneric,
  fromGitHubAlert,
  fromPrometheusStyle,
} from "../../../src/adapters/alerts/sources.js";
import { normaliseSeverity, SEVERITIES, stringMap } from "../../../src/core/alerts/types.js";
import { alertmanagerPayload, grafanaPayload } from "../../helpers/alerts.js";

type Definition = { name: string; examples: Record<string, unknown>[] };
const examples = createRequire(import.meta.url)(
  "@octokit/webhooks-examples/api.github.com/index.json",
) as Definition[];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Payload = Record<string, any>;

function example(name: string, action: string, index = 0): Payload {
  const found = examples.find((d) => d.name === name)?.examples.filter((e) => e.action === action)[
    index
  ];
  if (!found) throw new Error(`no example ${name}.${action}[${index}]`);
  return structuredClone(found) as Payload;
}

function gh(event: string, p: Payload) {
  return fromGitHubAlert(event, p as Parameters<typeof fromGitHubAlert>[1]);
}

describe("severity normalisation", () => {
  it.each([
    ["critical", "critical"],
    ["CRIT", "critical"],
    ["page", "critical"],
    ["P1", "critical"],
    ["fatal", "critical"],
    ["error", "high"],
    ["major", "high"],
    ["p2", "high"],
    ["warning", "medium"],
    [" Warn ", "medium"],
    ["moderate", "medium"],
    ["P3", "medium"],
    ["note", "low"],
    ["minor", "low"],
    ["p4", "low"],
    ["info", "info"],
    ["none", "info"],
    ["notice", "info"],
    ["P5", "info"],
    ["bogus", "unknown"],
    ["", "unknown"],
  ])("%j → %s", (input, expected) => {
    expect(normaliseSeverity(input)).toBe(expected);
  });

  it("treats missing values as unknown, and every result is on the scale", () => {
    expect(normaliseSeverity(undefined)).toBe("unknown");
    expect(normaliseSeverity(null)).toBe("unknown");
    for (const s of SEVERITIES) expect(normaliseSeverity(s)).toBe(s);
  });

  it("keeps only scalar values in a string map", () => {
    expect(stringMap({ a: "x", b: 2, c: true, d: { nested: 1 }, e: null, f: [1] })).toEqual({
      a: "x",
      b: "2",
      c: "true",
    });
    expect(stringMap(null)).toEqual({});
    expect(stringMap("text")).toEqual({});
  });
});

describe("Alertmanager (version 4)", () => {
  it("a firing alert: keyed by fingerprint, title from summary, links, severity", () => {
    const msg = alertmanagerPayload([
      {
        labels: { alertname: "HighErrorRate", service: "checkout", severity: "critical" },
        annotations: {
          summary: "5xx above 5%",
          description: "checkout returns 5xx on every route",
          runbook_url: "https://runbooks.example/5xx",
        },
        fingerprint: "a1b2c3d4e5f60718",
      },
    ]);
    const [a, ...rest] = fromPrometheusStyle("alertmanager", msg);
    expect(rest).toEqual([]);
    expect(a).toEqual({
      source: "alertmanager",
      key: "alertmanager:a1b2c3d4e5f60718",
      status: "firing",
      title: "HighErrorRate: 5xx above 5%",
      summary: "checkout returns 5xx on every route",
      severity: "critical",
      labels: { alertname: "HighErrorRate", service: "checkout", severity: "critical" },
      annotations: {
        summary: "5xx above 5%",
        description: "checkout returns 5xx on every route",
        runbook_url: "https://runbooks.example/5xx",
      },
      links: [
        { text: "source", url: "http://prometheus.example:9090/graph?g0.expr=up" },
        { text: "runbook", url: "https://runbooks.example/5xx" },
        { text: "alertmanager", url: "http://alertmanager.example:9093" },
      ],
      startsAt: "2026-03-01T08:59:00Z",
    });
  });

  it("a resolved alert keeps its key, so it finds the firing one's issue", () => {
    const firing = fromPrometheusStyle(
      "alertmanager",
      alertmanagerPayload([{ labels: { alertname: "X" }, fingerprint: "ffff000011112222" }]),
    );
    const resolved = fromPrometheusStyle(
      "alertmanager",
      alertmanagerPayload([
        { status: "resolved", labels: { alertname: "X" }, fingerprint: "ffff000011112222" },
      ]),
    );
    expect(resolved[0]?.status).toBe("resolved");
    expect(resolved[0]?.key).toBe(firing[0]?.key);
  });

  it("a grouped notification: one alert each, commonLabels merged under each alert's own", () => {
    const msg = alertmanagerPayload(
      [
        { labels: { alertname: "DiskFull", instance: "db-1" }, fingerprint: "1111111111111111" },
        {
          labels: { alertname: "DiskFull", instance: "db-2", severity: "critical" },
          fingerprint: "2222222222222222",
        },
        { labels: { alertname: "DiskFull", instance: "db-3" }, fingerprint: "3333333333333333" },
      ],
      {
        commonLabels: { alertname: "DiskFull", severity: "warning", team: "storage" },
        commonAnnotations: { summary: "disk above 90%" },
      },
    );
    const alerts = fromPrometheusStyle("alertmanager", msg);
    expect(alerts.map((a) => a.key)).toEqual([
      "alertmanager:1111111111111111",
      "alertmanager:2222222222222222",
      "alertmanager:3333333333333333",
    ]);
    expect(alerts.map((a) => a.labels.team)).toEqual(["storage", "storage", "storage"]);
    // The alert's own label wins over the common one.
    expect(alerts.map((a) => a.severity)).toEqual(["medium", "critical", "medium"]);
    expect(alerts.every((a) => a.title === "DiskFull: disk above 90%")).toBe(true);
    expect(alerts[1]?.summary).toBe("disk above 90%");
  });

  it("a truncated notification yields only the alerts listed, nothing inferred", () => {
    const msg = alertmanagerPayload(
      [{ labels: { alertname: "X" }, fingerprint: "aaaaaaaaaaaaaaaa" }],
      { truncatedAlerts: 42 },
    );
    const alerts = fromPrometheusStyle("alertmanager", msg);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.status).toBe("firing");
  });

  it("without a fingerprint, the key is a stable hash of the label set (order-independent)", () => {
    const one = fromPrometheusStyle("alertmanager", {
      alerts: [{ labels: { b: "2", a: "1" } }],
    })[0];
    const two = fromPrometheusStyle("alertmanager", {
      alerts: [{ labels: { a: "1", b: "2" } }],
    })[0];
    const other = fromPrometheusStyle("alertmanager", {
      alerts: [{ labels: { a: "1", b: "3" } }],
    })[0];
    expect(one?.key).toMatch(/^alertmanager:[0-9a-f]{16}$/);
    expect(one?.key).toBe(two?.key);
    expect(other?.key).not.toBe(one?.key);
    // No alertname, no summary: a plain title; no startsAt, no links.
    expect(one?.title).toBe("alert");
    expect(one?.summary).toBe("");
    expect(one?.links).toEqual([]);
    expect(one && "startsAt" in one).toBe(false);
    expect(fromPrometheusStyle("alertmanager", {})).toEqual([]);
  });
});

describe("Grafana (version 1)", () => {
  it("firing: fingerprint key, rule, silence, dashboard and panel links", () => {
    const msg = grafanaPayload(
      [
        {
          labels: { alertname: "CPU", grafana_folder: "infra", severity: "warning" },
          annotations: { summary: "CPU high" },
          fingerprint: "57c6d9296de2ad39",
        },
      ],
      { commonLabels: { grafana_folder: "infra", team: "platform" } },
    );
    const [a] = fromPrometheusStyle("grafana", msg);
    expect(a?.key).toBe("grafana:57c6d9296de2ad39");
    expect(a?.source).toBe("grafana");
    expect(a?.severity).toBe("medium");
    expect(a?.labels.team).toBe("platform");
    expect(a?.summary).toBe("CPU high");
    expect(a?.links.map((l) => l.text)).toEqual([
      "alert rule",
      "silence",
      "dashboard",
      "panel",
      "grafana",
    ]);
  });

  it("resolved, grouped and truncated", () => {
    const msg = grafanaPayload(
      [
        { status: "resolved", labels: { alertname: "A" }, fingerprint: "a000000000000001" },
        { status: "firing", labels: { alertname: "B" }, fingerprint: "b000000000000002" },
      ],
      { truncatedAlerts: 3 },
    );
    const alerts = fromPrometheusStyle("grafana", msg);
    expect(alerts.map((a) => [a.key, a.status])).toEqual([
      ["grafana:a000000000000001", "resolved"],
      ["grafana:b000000000000002", "firing"],
    ]);
  });
});

describe("generic (version 1)", () => {
  it("maps every field, the source URL first among the links", () => {
    const a = fromGeneric({
      version: "1",
      dedup_key: "checkout-latency:eu",
      status: "firing",
      title: "Checkout p99 latency > 2s",
      description: "p99 is 2.4s",
      severity: "P2",
      source: "uptime-kuma",
      labels: { service: "checkout" },
      annotations: { runbook_url: "https://r.example" },
      links: [{ href: "https://d.example", text: "dashboard" }, { href: "https://x.example" }],
      starts_at: "2026-03-01T10:00:00Z",
      source_url: "https://kuma.example/alert/1",
    });
    expect(a).toEqual({
      source: "generic",
      key: "generic:checkout-latency:eu",
      status: "firing",
      title: "Checkout p99 latency > 2s",
      summary: "p99 is 2.4s",
      severity: "high",
      labels: { service: "checkout", source: "uptime-kuma" },
      annotations: { runbook_url: "https://r.example" },
      links: [
        { text: "uptime-kuma", url: "https://kuma.example/alert/1" },
        { text: "dashboard", url: "https://d.example" },
        { text: "link", url: "https://x.example" },
      ],
      startsAt: "2026-03-01T10:00:00Z",
    });
  });

  it("minimal: defaults", () => {
    const a = fromGeneric({
      version: "1",
      dedup_key: "k",
      status: "resolved",
      title: "T",
      source_url: "https://s.example",
    });
    expect(a.summary).toBe("");
    expect(a.severity).toBe("unknown");
    expect(a.labels).toEqual({});
    expect(a.annotations).toEqual({});
    expect(a.links).toEqual([{ text: "source", url: "https://s.example" }]);
    expect("startsAt" in a).toBe(false);
  });
});

describe("GitHub code_scanning_alert (webhooks-examples)", () => {
  it("created: open → firing, keyed by repo id and number, rule severity error → high", () => {
    const p = example("code_scanning_alert", "created");
    p.ref = `refs/heads/${p.repository.default_branch}`; // the example's is a feature branch
    const a = gh("code_scanning_alert", p);
    expect(a).toMatchObject({
      source: "github",
      key: `github:code_scanning_alert:${p.repository.id}:${p.alert.number}`,
      repo: "Codertocat/Hello-World",
      status: "firing",
      severity: "high",
      startsAt: p.alert.created_at,
      links: [{ text: "alert", url: p.alert.html_url }],
    });
    expect(a?.title).toMatch(/^Code scanning: /);
    expect(a?.labels).toMatchObject({
      event: "code_scanning_alert",
      tool: "CodeQL",
      rule: "java/sql-injection",
    });
    expect(a?.notPlanned).toBeUndefined();
  });

  it("fixed: resolved, with the instance path as a label", () => {
    const p = example("code_scanning_alert", "fixed");
    p.ref = `refs/heads/${p.repository.default_branch}`; // the example's is a pull request's
    const a = gh("code_scanning_alert", p);
    expect(a?.status).toBe("resolved");
    expect(a?.labels.path).toBe("src/main/java/com/github/demo/service/BookService.java");
    expect(a?.notPlanned).toBeUndefined();
  });

  it("closed_by_user as a false positive: resolved and not planned", () => {
    const p = example("code_scanning_alert", "closed_by_user");
    expect(p.alert.state).toBe("dismissed");
    const a = gh("code_scanning_alert", p);
    expect(a?.status).toBe("resolved");
    expect(a?.notPlanned).toBe(true);
    // Dismissed for another reason: resolved, but not "not planned".
    p.alert.dismissed_reason = "fix_started";
    expect(gh("code_scanning_alert", p)?.notPlanned).toBe(false);
  });

  it("reopened: firing again, a new start from updated_at (note → low)", () => {
    const p = example("code_scanning_alert", "reopened");
    p.alert.updated_at = "2026-03-02T00:00:00Z";
    const a = gh("code_scanning_alert", p);
    expect(a?.status).toBe("firing");
    expect(a?.severity).toBe("low");
    expect(a?.startsAt).toBe("2026-03-02T00:00:00Z");
    p.action = "reopened_by_user";
    p.alert.updated_at = undefined;
    expect(gh("code_scanning_alert", p)?.startsAt).toBe(p.alert.created_at);
  });

  it("the state is the truth, not the action name", () => {
    const p = example("code_scanning_alert", "fixed");
    p.ref = `refs/heads/${p.repository.default_branch}`;
    p.action = "appeared_in_branch";
    p.alert.state = "fixed";
    expect(gh("code_scanning_alert", p)?.status).toBe("resolved");
  });

  it("only the default branch's: another ref's alert (a pull request's merge ref, a feature branch) is none of the repository's", () => {
    const created = example("code_scanning_alert", "created");
    expect(created.ref).toBe("refs/heads/code-feature");
    expect(gh("code_scanning_alert", created)).toBeUndefined();
    const fixed = example("code_scanning_alert", "fixed");
    expect(fixed.ref).toBe("refs/pull/11/merge");
    expect(gh("code_scanning_alert", fixed)).toBeUndefined();
    // Without a default branch to compare with, a ref is never taken for it.
    delete fixed.repository.default_branch;
    fixed.ref = "refs/heads/";
    expect(gh("code_scanning_alert", fixed)).toBeUndefined();
    // A person's dismissal names no ref: it is the alert's own.
    expect(
      gh("code_scanning_alert", example("code_scanning_alert", "closed_by_user"))?.status,
    ).toBe("resolved");
  });

  it("a sparse alert still normalises (no rule, no tool, no url)", () => {
    const a = gh("code_scanning_alert", {
      action: "created",
      alert: { number: 3, state: "open", rule: { security_severity_level: "critical" } },
      repository: { id: 9, full_name: "o/r" },
    });
    expect(a?.title).toBe("Code scanning: alert");
    expect(a?.severity).toBe("critical");
    expect(a?.links).toEqual([]);
    expect(a && "startsAt" in a).toBe(false);
  });
});

describe("GitHub dependabot_alert (webhooks-examples)", () => {
  it("created: firing, advisory severity, package labels", () => {
    const p = example("dependabot_alert", "created");
    const a = gh("dependabot_alert", p);
    expect(a).toMatchObject({
      key: `github:dependabot_alert:${p.repository.id}:20`,
      repo: "wolfy1339/pika-pack",
      status: "firing",
      severity: "medium",
      startsAt: p.alert.created_at,
    });
    expect(a?.title).toBe(`Dependabot: ${p.alert.security_advisory.summary} (semver)`);
    expect(a?.labels).toMatchObject({
      event: "dependabot_alert",
      package: "semver",
      ecosystem: p.alert.dependency.package.ecosystem,
      ghsa: p.alert.security_advisory.ghsa_id,
      manifest: p.alert.dependency.manifest_path,
    });
    expect(a?.summary.length).toBeLessThanOrEqual(2000);
  });

  it("fixed: resolved, completed", () => {
    const a = gh("dependabot_alert", example("dependabot_alert", "fixed"));
    expect(a?.status).toBe("resolved");
    expect(a?.notPlanned).toBeUndefined();
  });

  it("dismissed and auto_dismissed: not planned; reintroduced: a new start", () => {
    const p = example("dependabot_alert", "created");
    p.action = "dismissed";
    p.alert.state = "dismissed";
    expect(gh("dependabot_alert", p)).toMatchObject({ status: "resolved", notPlanned: true });
    p.alert.state = "auto_dismissed";
    expect(gh("dependabot_alert", p)?.notPlanned).toBe(true);
    p.action = "reintroduced";
    p.alert.state = "open";
    p.alert.updated_at = "2026-05-05T05:05:05Z";
    expect(gh("dependabot_alert", p)).toMatchObject({
      status: "firing",
      startsAt: "2026-05-05T05:05:05Z",
    });
  });

  it("a sparse alert still normalises", () => {
    const a = gh("dependabot_alert", {
      action: "created",
      alert: { number: 1, state: "open" },
      repository: { id: 1, full_name: "o/r" },
    });
    expect(a?.title).toBe("Dependabot: vulnerable dependency (?)");
    expect(a?.startsAt).toBe("");
    expect(a?.labels.package).toBe("");
  });
});

/*
 * @octokit/webhooks-examples has no secret_scanning_alert example. The payload below is built
 * from the documented fields (alert-anchors §3) and checked at compile time against
 * @octokit/openapi-webhooks-types (the generated types of GitHub's webhook OpenAPI; the JSON-schema
 * package @octokit/openapi-webhooks is not installed).
 */
type SecretCreated = components["schemas"]["webhook-secret-scanning-alert-created"];
type SecretResolved = components["schemas"]["webhook-secret-scanning-alert-resolved"];
const repository = example("dependabot_alert", "created").repository as SecretCreated["repository"];

const secretAlert = {
  number: 42,
  created_at: "2026-03-01T08:00:00Z",
  updated_at: "2026-03-01T08:00:00Z",
  url: "https://api.github.com/repos/wolfy1339/pika-pack/secret-scanning/alerts/42",
  html_url: "https://github.com/wolfy1339/pika-pack/security/secret-scanning/42",
  locations_url:
    "https://api.github.com/repos/wolfy1339/pika-pack/secret-scanning/alerts/42/locations",
  resolution: null,
  resolved_at: null,
  resolved_by: null,
  resolution_comment: null,
  secret_type: "github_personal_access_token",
  secret_type_display_name: "GitHub Personal Access Token",
  validity: "active",
  push_protection_bypassed: false,
  push_protection_bypassed_by: null,
  push_protection_bypassed_at: null,
  publicly_leaked: false,
  multi_repo: false,
  assigned_to: null,
} satisfies SecretCreated["alert"];

const secretCreated = {
  action: "created",
  alert: secretAlert,
  repository,
  installation: { id: 2, node_id: "MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMg==" },
} satisfies SecretCreated;

describe("GitHub secret_scanning_alert (built from the documented fields)", () => {
  it("created with an active token: firing, critical, keyed by number", () => {
    const a = gh("secret_scanning_alert", structuredClone(secretCreated));
    expect(a).toMatchObject({
      key: `github:secret_scanning_alert:${repository.id}:42`,
      status: "firing",
      severity: "critical",
      title: "Secret scanning: GitHub Personal Access Token exposed",
      labels: {
        event: "secret_scanning_alert",
        secret_type: "github_personal_access_token",
        validity: "active",
      },
      startsAt: "2026-03-01T08:00:00Z",
      links: [{ text: "alert", url: secretAlert.html_url }],
    });
    expect(a?.summary).not.toContain("leaked publicly");
  });

  it("inactive and not leaked: high; publicly leaked: critical and said so", () => {
    const p: Payload = structuredClone(secretCreated);
    p.alert.validity = "inactive";
    expect(gh("secret_scanning_alert", p)?.severity).toBe("high");
    p.alert.publicly_leaked = true;
    const a = gh("secret_scanning_alert", p);
    expect(a?.severity).toBe("critical");
    expect(a?.summary).toContain("leaked publicly");
  });

  it("resolved: revoked is completed; false_positive, wont_fix, used_in_tests are not planned", () => {
    const resolved = {
      ...structuredClone(secretCreated),
      action: "resolved",
      alert: { ...secretAlert, resolution: "revoked", resolved_at: "2026-03-01T09:00:00Z" },
    } satisfies SecretResolved;
    const a = gh("secret_scanning_alert", resolved);
    expect(a?.status).toBe("resolved");
    expect(a?.notPlanned).toBeUndefined();
    for (const r of ["false_positive", "wont_fix", "used_in_tests"] as const)
      expect(
        gh("secret_scanning_alert", { ...resolved, alert: { ...resolved.alert, resolution: r } })
          ?.notPlanned,
      ).toBe(true);
  });

  it("reopened: a new start from updated_at", () => {
    const p: Payload = structuredClone(secretCreated);
    p.action = "reopened";
    p.alert.updated_at = "2026-04-01T00:00:00Z";
    expect(gh("secret_scanning_alert", p)?.startsAt).toBe("2026-04-01T00:00:00Z");
  });

  it("never carries the secret, even when a payload has one", () => {
    const secret = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
    const p: Payload = structuredClone(secretCreated);
    p.alert.secret = secret;
    p.alert.resolution_comment = "fine";
    const a = gh("secret_scanning_alert", p);
    expect(JSON.stringify(a)).not.toContain(secret);
    expect(JSON.stringify(a)).not.toContain("ghp_");
    // A sparse one: defaults, never the value.
    const sparse = gh("secret_scanning_alert", {
      action: "created",
      alert: { number: 1, state: "open", secret },
      repository: { id: 1, full_name: "o/r" },
    });
    expect(sparse?.title).toBe("Secret scanning: secret exposed");
    expect(sparse?.labels.validity).toBe("unknown");
    expect(sparse?.severity).toBe("high");
    expect(sparse?.startsAt).toBe("");
    expect(JSON.stringify(sparse)).not.toContain(secret);
  });

  it("other events are not alerts", () => {
    expect(gh("repository_vulnerability_alert", structuredClone(secretCreated))).toBeUndefined();
  });
});
