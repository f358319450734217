import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { durationMs } from "../../core/engine/policy.js";
import { DURATION_PATTERN } from "../../core/format/schema.js";
import { formatPath, loadSourceText, parsePointer } from "../../core/format/source.js";
import { matches, parseMatchers, type LabelMatcher } from "../../core/alerts/matchers.js";

export class AlertsConfigError extends Error {}

const envNames = {
  anyOf: [
    { type: "string", pattern: "^[A-Z_][A-Z0-9_]*$" },
    {
      type: "array",
      minItems: 1,
      maxItems: 2,
      items: { type: "string", pattern: "^[A-Z_][A-Z0-9_]*$" },
    },
  ],
};

/** The deployment's alert settings (`ALERTS_CONFIG`): sources, their credentials by env name, routes. */
export const ALERTS_CONFIG_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["sources", "routes"],
  properties: {
    sources: {
      type: "object",
      additionalProperties: false,
      properties: Object.fromEntries(
        ["alertmanager", "grafana", "generic"].map((s) => [
          s,
          {
            type: "object",
            additionalProperties: false,
            required: ["auth"],
            properties: {
              auth: {
                type: "object",
                additionalProperties: false,
                properties: {
                  bearer_token_env: envNames,
                  hmac_secret_env: envNames,
                  signature_header: { type: "string" },
                  timestamp_header: { type: "string" },
                },
              },
              issues_per_minute: { type: "integer", minimum: 1, maximum: 10000 },
            },
          },
        ]),
      ),
    },
    routes: {
      type: "array",
      minItems: 1,
      items: {
        type: "object",
        additionalProperties: false,
        required: ["repo"],
        properties: {
          match: { type: "object", additionalProperties: { type: "string" } },
          repo: { type: "string", pattern: "^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$" },
        },
      },
    },
    reopen_window: { type: "string", pattern: DURATION_PATTERN },
    max_body_bytes: { type: "integer", minimum: 1024, maximum: 26214400 },
  },
} as const;

export type ExternalSource = "alertmanager" | "grafana" | "generic";

export interface SourceAuth {
  kind: "bearer" | "hmac";
  /** Current and, during rotation, previous secret. */
  secrets: string[];
  signatureHeader: string;
  timestampHeader?: string;
}

export interface AlertsConfig {
  sources: Partial<Record<ExternalSource, { auth: SourceAuth; issuesPerMinute: number }>>;
  routes: { matchers: LabelMatcher[]; repo: string }[];
  reopenWindowMs: number;
  maxBodyBytes: number;
  /** Unverified bytes held at once by all alert requests (default 32 MiB). */
  maxUnverifiedBytes?: number;
  /** How long a body may take to arrive, from its headers: 408 after (default 15 s). */
  bodyTimeoutMs?: number;
}

const DEFAULT_SIGNATURE_HEADER: Record<ExternalSource, string> = {
  alertmanager: "authorization",
  grafana: "x-grafana-alerting-signature",
  generic: "x-hub-signature-256",
};

/** Parse and check the config; secrets are read from the environment here, and a missing one stops the server. */
export function parseAlertsConfig(
  file: string,
  text: string,
  env: NodeJS.ProcessEnv,
): AlertsConfig {
  const loaded = loadSourceText(file, text);
  if (!loaded.ok) {
    const p = loaded.problems[0];
    throw new AlertsConfigError(`${file}:${p?.span.line}:${p?.span.column}: ${p?.message}`);
  }
  const doc = loaded.document;
  const validate = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true }).compile(
    ALERTS_CONFIG_SCHEMA,
  );
  if (!validate(doc.value)) {
    const lines = (validate.errors ?? [])
      .filter((e) => e.keyword !== "anyOf")
      .slice(0, 5)
      .map((e) => {
        const path = parsePointer(e.instancePath);
        const unknown =
          e.keyword === "additionalProperties"
            ? String((e.params as { additionalProperty: string }).additionalProperty)
            : undefined;
        const extra = unknown !== undefined ? ` ('${unknown}')` : "";
        // An unknown field is shown on its own name, not on the mapping that holds it.
        const s = doc.span(
          unknown !== undefined ? [...path, unknown] : path,
          unknown !== undefined,
        );
        return `${file}:${s.line}:${s.column}: ${formatPath(path)}: ${e.message ?? "invalid"}${extra}`;
      });
    throw new AlertsConfigError(lines.join("\n"));
  }
  const raw = doc.value as {
    sources: Partial<
      Record<
        ExternalSource,
        {
          auth: {
            bearer_token_env?: string | string[];
            hmac_secret_env?: string | string[];
            signature_header?: string;
            timestamp_header?: string;
          };
          issues_per_minute?: number;
        }
      >
    >;
    routes: { match?: Record<string, string>; repo: string }[];
    reopen_window?: string;
    max_body_bytes?: number;
  };
  const at = (path: (string | number)[]): string => {
    const s = doc.span(path);
    return `${file}:${s.line}:${s.column}`;
  };
  const config: AlertsConfig = {
    sources: {},
    routes: [],
    reopenWindowMs: durationMs(raw.reopen_window ?? "24h"),
    maxBodyBytes: raw.max_body_bytes ?? 1024 * 1024,
  };
  for (const [name, src] of Object.entries(raw.sources) as [
    ExternalSource,
    NonNullable<(typeof raw.sources)[ExternalSource]>,
  ][]) {
    const a = src.auth;
    if ((a.bearer_token_env === undefined) === (a.hmac_secret_env === undefined)) {
      throw new AlertsConfigError(
        `${at(["sources", name, "auth"])}: sources.${name}.auth: give exactly one of bearer_token_env or hmac_secret_env`,
      );
    }
    if (name === "alertmanager" && a.hmac_secret_env !== undefined) {
      throw new AlertsConfigError(
        `${at(["sources", name, "auth", "hmac_secret_env"])}: sources.alertmanager.auth: Alertmanager cannot sign requests; use bearer_token_env (http_config.authorization)`,
      );
    }
    const names = [a.bearer_token_env ?? a.hmac_secret_env ?? []].flat();
    const secrets = names.map((n) => {
      const v = env[n];
      if (!v)
        throw new AlertsConfigError(
          `${at(["sources", name, "auth", a.bearer_token_env !== undefined ? "bearer_token_env" : "hmac_secret_env"])}: sources.${name}: environment variable ${n} is not set (secrets never go in the file)`,
        );
      return v;
    });
    const auth: SourceAuth = {
      kind: a.bearer_token_env !== undefined ? "bearer" : "hmac",
      secrets,
      signatureHeader: (a.signature_header ?? DEFAULT_SIGNATURE_HEADER[name]).toLowerCase(),
    };
    if (a.timestamp_header) auth.timestampHeader = a.timestamp_header.toLowerCase();
    config.sources[name] = { auth, issuesPerMinute: src.issues_per_minute ?? 30 };
  }
  raw.routes.forEach((r, i) => {
    const { matchers, errors } = parseMatchers(r.match);
    if (errors.length)
      throw new AlertsConfigError(
        `${at(["routes", i, "match"])}: routes[${i}].match: ${errors.join("; ")}`,
      );
    config.routes.push({ matchers, repo: r.repo });
  });
  return config;
}

export function loadAlertsConfig(file: string, env: NodeJS.ProcessEnv): AlertsConfig {
  return parseAlertsConfig(file, readFileSync(file, "utf8"), env);
}

/** The repository an alert goes to: the first route whose matchers fit its labels. */
export function routeAlert(
  config: AlertsConfig,
  labels: Record<string, string>,
): string | undefined {
  return config.routes.find((r) => r.matchers.every((m) => matches(m, labels)))?.repo;
}
