import { createHash } from "node:crypto";
import { normaliseSeverity, stringMap, type NormalizedAlert } from "../../core/alerts/types.js";

/** Alertmanager webhook (version 4) or Grafana: the same shape per alert. */
interface PromAlert {
  status?: string;
  labels?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  startsAt?: string;
  generatorURL?: string;
  fingerprint?: string;
  silenceURL?: string;
  dashboardURL?: string;
  panelURL?: string;
  values?: Record<string, number>;
}

export interface PromMessage {
  version?: string;
  status?: string;
  truncatedAlerts?: number;
  externalURL?: string;
  commonLabels?: Record<string, unknown>;
  commonAnnotations?: Record<string, unknown>;
  alerts?: PromAlert[];
}

function labelKey(labels: Record<string, string>): string {
  return createHash("sha256")
    .update(JSON.stringify(Object.entries(labels).sort()))
    .digest("hex")
    .slice(0, 16);
}

/**
 * Alerts of an Alertmanager or Grafana notification, one per alert, keyed by their fingerprint
 * (stable per label set; the group key is not). A truncated list says nothing about the missing
 * alerts: nothing is ever inferred from absence.
 */
export function fromPrometheusStyle(
  source: "alertmanager" | "grafana",
  msg: PromMessage,
): NormalizedAlert[] {
  return (msg.alerts ?? []).map((a) => {
    const labels = { ...stringMap(msg.commonLabels), ...stringMap(a.labels) };
    const annotations = { ...stringMap(msg.commonAnnotations), ...stringMap(a.annotations) };
    const links: { text: string; url: string }[] = [];
    if (a.generatorURL)
      links.push({ text: source === "grafana" ? "alert rule" : "source", url: a.generatorURL });
    if (a.silenceURL) links.push({ text: "silence", url: a.silenceURL });
    if (a.dashboardURL) links.push({ text: "dashboard", url: a.dashboardURL });
    if (a.panelURL) links.push({ text: "panel", url: a.panelURL });
    if (annotations.runbook_url) links.push({ text: "runbook", url: annotations.runbook_url });
    if (msg.externalURL) links.push({ text: source, url: msg.externalURL });
    const alertname = labels.alertname ?? "alert";
    const alert: NormalizedAlert = {
      source,
      key: `${source}:${a.fingerprint ?? labelKey(labels)}`,
      status: a.status === "resolved" ? "resolved" : "firing",
      title: annotations.summary ? `${alertname}: ${annotations.summary}` : alertname,
      summary: annotations.description ?? annotations.summary ?? "",
      severity: normaliseSeverity(labels.severity),
      labels,
      annotations,
      links,
    };
    if (a.startsAt) alert.startsAt = a.startsAt;
    return alert;
  });
}

/** The generic format (version 1): one alert per request, keyed by its dedup_key. */
export interface GenericAlert {
  version: "1";
  dedup_key: string;
  status: "firing" | "resolved";
  title: string;
  description?: string;
  severity?: string;
  source?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  links?: { href: string; text?: string }[];
  starts_at?: string;
  source_url?: string;
  event_id?: string;
}

export function fromGeneric(g: GenericAlert): NormalizedAlert {
  const links = (g.links ?? []).map((l) => ({ text: l.text ?? "link", url: l.href }));
  if (g.source_url) links.unshift({ text: g.source ?? "source", url: g.source_url });
  const alert: NormalizedAlert = {
    source: "generic",
    key: `generic:${g.dedup_key}`,
    status: g.status,
    title: g.title,
    summary: g.description ?? "",
    severity: normaliseSeverity(g.severity),
    labels: { ...(g.labels ?? {}), ...(g.source ? { source: g.source } : {}) },
    annotations: g.annotations ?? {},
    links,
  };
  if (g.starts_at) alert.startsAt = g.starts_at;
  return alert;
}

type Repo = { id: number; full_name: string; default_branch?: string };

/**
 * Whether a code scanning event is about the default branch. Code scanning keeps an alert per
 * ref: a fork's pull request gets alerts of its own in its merge ref (created, and "fixed" when
 * it drops the code), which must neither open nor resolve the repository's triage issue. An alert
 * reaches the default branch by `appeared_in_branch` there. A person's dismissal or reopening
 * names no ref: it is about the alert itself.
 */
function onDefaultBranch(payload: { ref?: string; repository: Repo }): boolean {
  const ref = payload.ref ?? "";
  const branch = payload.repository.default_branch;
  return ref === "" || (branch !== undefined && ref === `refs/heads/${branch}`);
}

/**
 * GitHub's own security alerts, by the alert's state (the truth), not the action name. The
 * secret of a secret-scanning alert is never read or echoed: only its type is.
 */
export function fromGitHubAlert(
  event: string,
  payload: { action: string; alert: Record<string, unknown>; repository: Repo; ref?: string },
): NormalizedAlert | undefined {
  if (event === "code_scanning_alert" && !onDefaultBranch(payload)) return undefined;
  const a = payload.alert;
  const repo = payload.repository;
  const number = Number(a.number);
  const state = String(a.state ?? "");
  const url = String(a.html_url ?? "");
  const base = {
    key: `github:${event}:${repo.id}:${number}`,
    repo: repo.full_name,
    source: "github" as const,
    links: url ? [{ text: "alert", url }] : [],
  };
  if (event === "code_scanning_alert") {
    const rule = (a.rule ?? {}) as Record<string, unknown>;
    const tool = (a.tool ?? {}) as Record<string, unknown>;
    const instance = (a.most_recent_instance ?? {}) as {
      location?: { path?: string; start_line?: number };
      message?: { text?: string };
    };
    const alert: NormalizedAlert = {
      ...base,
      status: state === "open" ? "firing" : "resolved",
      title: `Code scanning: ${String(rule.description ?? rule.name ?? rule.id ?? "alert")}`,
      summary: instance.message?.text ?? String(rule.description ?? ""),
      severity: normaliseSeverity(String(rule.security_severity_level ?? rule.severity ?? "")),
      labels: {
        event,
        tool: String(tool.name ?? ""),
        rule: String(rule.id ?? ""),
        ...(instance.location?.path ? { path: instance.location.path } : {}),
      },
      annotations: {},
    };
    if (state === "dismissed")
      alert.notPlanned = ["false positive", "won't fix", "used in tests"].includes(
        String(a.dismissed_reason ?? ""),
      );
    if (
      payload.action === "reopened" ||
      payload.action === "reopened_by_user" ||
      payload.action === "appeared_in_branch"
    )
      alert.startsAt = String(a.updated_at ?? a.created_at ?? "");
    else if (a.created_at) alert.startsAt = String(a.created_at);
    return alert;
  }
  if (event === "dependabot_alert") {
    const advisory = (a.security_advisory ?? {}) as Record<string, unknown>;
    const dep = (a.dependency ?? {}) as {
      package?: { ecosystem?: string; name?: string };
      manifest_path?: string;
    };
    const alert: NormalizedAlert = {
      ...base,
      status: state === "open" ? "firing" : "resolved",
      title: `Dependabot: ${String(advisory.summary ?? "vulnerable dependency")} (${dep.package?.name ?? "?"})`,
      summary: String(advisory.description ?? "").slice(0, 2000),
      severity: normaliseSeverity(String(advisory.severity ?? "")),
      labels: {
        event,
        ecosystem: dep.package?.ecosystem ?? "",
        package: dep.package?.name ?? "",
        ghsa: String(advisory.ghsa_id ?? ""),
        manifest: dep.manifest_path ?? "",
      },
      annotations: {},
    };
    if (state === "dismissed" || state === "auto_dismissed") alert.notPlanned = true;
    alert.startsAt = String(
      payload.action === "reopened" ||
        payload.action === "reintroduced" ||
        payload.action === "auto_reopened"
        ? (a.updated_at ?? "")
        : (a.created_at ?? ""),
    );
    return alert;
  }
  if (event === "secret_scanning_alert") {
    const resolution = String(a.resolution ?? "");
    // The webhook's alert has no `state` (only the REST alert does): open until it has a resolution.
    const open = a.state !== undefined && a.state !== null ? state === "open" : resolution === "";
    const alert: NormalizedAlert = {
      ...base,
      status: open ? "firing" : "resolved",
      title: `Secret scanning: ${String(a.secret_type_display_name ?? a.secret_type ?? "secret")} exposed`,
      summary: `A ${String(a.secret_type_display_name ?? a.secret_type ?? "secret")} was found in the repository${a.publicly_leaked ? " and leaked publicly" : ""}. Revoke it and rotate it.`,
      severity: a.publicly_leaked || a.validity === "active" ? "critical" : "high",
      labels: {
        event,
        secret_type: String(a.secret_type ?? ""),
        validity: String(a.validity ?? "unknown"),
      },
      annotations: {},
    };
    if (["false_positive", "wont_fix", "used_in_tests"].includes(resolution))
      alert.notPlanned = true;
    alert.startsAt = String(
      payload.action === "reopened" ? (a.updated_at ?? "") : (a.created_at ?? ""),
    );
    return alert;
  }
  return undefined;
}
