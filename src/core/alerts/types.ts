import type { AlertSource } from "../format/types.js";

/** One alert, whatever sent it: what selection, dedupe and the triage issue work with. */
export interface NormalizedAlert {
  source: AlertSource;
  /** Stable per alert: the dedupe key (Alertmanager/Grafana fingerprint, the generic dedup_key, a GitHub alert's id). */
  key: string;
  status: "firing" | "resolved";
  title: string;
  summary: string;
  severity: Severity;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  links: { text: string; url: string }[];
  /** When this firing began: a new value for an open issue means the alert fired again. */
  startsAt?: string;
  /** The repository the alert is about (GitHub's own alerts); other sources are routed by config. */
  repo?: string;
  /** A GitHub alert closed as won't-fix or false positive: close as not planned. */
  notPlanned?: boolean;
}

export const SEVERITIES = ["critical", "high", "medium", "low", "info", "unknown"] as const;
export type Severity = (typeof SEVERITIES)[number];

/** Severity words of many senders, mapped onto one scale. */
export function normaliseSeverity(value: string | undefined | null): Severity {
  const v = (value ?? "").toLowerCase().trim();
  if (["critical", "crit", "page", "p1", "emergency", "fatal"].includes(v)) return "critical";
  if (["high", "error", "err", "major", "p2"].includes(v)) return "high";
  if (["medium", "warning", "warn", "moderate", "p3"].includes(v)) return "medium";
  if (["low", "minor", "note", "p4"].includes(v)) return "low";
  if (["info", "informational", "none", "p5", "notice"].includes(v)) return "info";
  return "unknown";
}

function strings(o: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (o && typeof o === "object")
    for (const [k, v] of Object.entries(o))
      if (typeof v === "string" || typeof v === "number" || typeof v === "boolean")
        out[k] = String(v);
  return out;
}

export { strings as stringMap };
