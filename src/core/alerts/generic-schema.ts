/**
 * The generic alert format (version 1), published as JSON Schema for senders: draft-07, as the
 * playbook schema is, so one validator and every editor read both.
 */
export const GENERIC_ALERT_SCHEMA = {
  $schema: "http://json-schema.org/draft-07/schema#",
  $id: "https://playbook-bot.dev/schema/alert.generic.v1.schema.json",
  title: "Playbook Bot generic alert (v1)",
  type: "object",
  additionalProperties: false,
  required: ["version", "dedup_key", "status", "title"],
  properties: {
    version: { const: "1" },
    event_id: {
      type: "string",
      maxLength: 255,
      description: "Unique per delivery; repeats are ignored.",
    },
    dedup_key: {
      type: "string",
      minLength: 1,
      maxLength: 255,
      description: "Groups firings and resolves of one alert.",
    },
    status: { enum: ["firing", "resolved"] },
    title: { type: "string", minLength: 1, maxLength: 1024 },
    description: { type: "string", maxLength: 65536 },
    severity: {
      type: "string",
      maxLength: 32,
      description: "critical, high, medium, low, info (or warning, error, P1–P5).",
    },
    source: { type: "string", maxLength: 255 },
    labels: {
      type: "object",
      additionalProperties: { type: "string", maxLength: 1024 },
      maxProperties: 64,
    },
    annotations: {
      type: "object",
      additionalProperties: { type: "string", maxLength: 8192 },
      maxProperties: 64,
    },
    links: {
      type: "array",
      maxItems: 20,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["href"],
        properties: {
          href: { type: "string", pattern: "^https?://" },
          text: { type: "string", maxLength: 255 },
        },
      },
    },
    starts_at: { type: "string", maxLength: 64 },
    ends_at: { type: ["string", "null"], maxLength: 64 },
    source_url: { type: "string", pattern: "^https?://" },
  },
} as const;

/** The parts of Alertmanager's and Grafana's payloads we rely on; everything else is passed over. */
export const PROMETHEUS_STYLE_SCHEMA = {
  type: "object",
  required: ["alerts"],
  properties: {
    version: { type: "string" },
    status: { type: "string" },
    truncatedAlerts: { type: "integer", minimum: 0 },
    alerts: {
      type: "array",
      maxItems: 1000,
      items: {
        type: "object",
        required: ["labels"],
        properties: {
          status: { enum: ["firing", "resolved"] },
          labels: { type: "object", additionalProperties: { type: "string" } },
          annotations: { type: "object", additionalProperties: { type: "string" } },
          fingerprint: { type: "string" },
          startsAt: { type: "string" },
        },
      },
    },
  },
} as const;
