import type { IncomingMessage, ServerResponse } from "node:http";
import { Ajv, type ValidateFunction } from "ajv";
import { rateLimitRetryAfter } from "../github/octokit-port.js";
import { doOnce, type Coordination, type LockOptions } from "../../runtime/coordination.js";
import { MemoryCoordination } from "../coordination/memory.js";
import { verifyRequest } from "./auth.js";
import { Held, HttpRefusal, readCapped, type ReadLimits } from "../capped-body.js";
import { routeAlert, type AlertsConfig, type ExternalSource } from "./config.js";
import { GENERIC_ALERT_SCHEMA, PROMETHEUS_STYLE_SCHEMA } from "../../core/alerts/generic-schema.js";
import {
  fromGeneric,
  fromPrometheusStyle,
  type GenericAlert,
  type PromMessage,
} from "./sources.js";
import type { TriageOutcome } from "../../runtime/alert-triage.js";
import type { NormalizedAlert } from "../../core/alerts/types.js";

const ajv = new Ajv({ strict: false, allErrors: true, allowUnionTypes: true });
const validators: Record<ExternalSource, ValidateFunction> = {
  generic: ajv.compile(GENERIC_ALERT_SCHEMA),
  alertmanager: ajv.compile(PROMETHEUS_STYLE_SCHEMA),
  grafana: ajv.compile(PROMETHEUS_STYLE_SCHEMA),
};

export interface AlertRouteDeps {
  config: AlertsConfig;
  /** Triage one alert for a repository (AlertTriage.handle, with whatever the app needs first). */
  handle: (alert: NormalizedAlert, repo: string) => Promise<TriageOutcome>;
  now?: () => number;
  log?: (line: string) => void;
  /** Where handled event ids are remembered, shared by replicas (default: this handler's memory). */
  coordination?: Coordination;
  lock?: LockOptions;
  /**
   * Told the outcomes decided here, before triage (which reports its own): `rejected`
   * (credentials), `invalid` (size, type or format), `duplicate` (an event id handled before) and
   * `unrouted` (no route names a repository), with how many alerts each concerns.
   */
  observe?: (
    source: string,
    outcome: "rejected" | "invalid" | "duplicate" | "unrouted",
    count: number,
  ) => void;
}

/** How long a handled alert event id is remembered. */
const EVENT_TTL_MS = 7 * 24 * 3_600_000;

/** A refusal with its status (and headers); a body's refusals are the same kind. */
const HttpError = HttpRefusal;
type HttpError = HttpRefusal;

/** Unverified bytes held at once by all alert requests together, unless the config says. */
export const MAX_UNVERIFIED_ALERT_BYTES = 32 * 1024 * 1024;
/** How long an alert's body may take to arrive, unless the config says. */
export const ALERT_BODY_TIMEOUT_MS = 15_000;

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** A GitHub rate limit reached while handling: the sender should come back later (Alertmanager retries 5xx only). */
function rateLimit(err: unknown): HttpError | undefined {
  const retryAfter = rateLimitRetryAfter(err);
  if (retryAfter === undefined) return undefined;
  return new HttpError(503, "GitHub is rate-limiting this app; retry later", {
    "retry-after": retryAfter || "60",
  });
}

/**
 * `POST /alerts/<source>`: credentials are checked on the raw bytes before anything parses them;
 * then the body is parsed, checked against its schema, routed to a repository by the config (never
 * by the payload alone) and handed to triage. 2xx only once every alert is handled.
 */
export function alertsHandler(deps: AlertRouteDeps) {
  // An event id counts as seen once its alert was handled: the sender's retry of a failure is
  // handled again, not answered "duplicate".
  const events = deps.coordination ?? new MemoryCoordination();
  const log = deps.log ?? (() => undefined);
  // As the webhook route: what senders without credentials hold is bounded in all and in time.
  const limits: ReadLimits = {
    max: deps.config.maxBodyBytes,
    held: new Held(deps.config.maxUnverifiedBytes ?? MAX_UNVERIFIED_ALERT_BYTES),
    timeoutMs: deps.config.bodyTimeoutMs ?? ALERT_BODY_TIMEOUT_MS,
  };
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    const m = /^\/alerts\/([a-z]+)\/?$/.exec(path);
    if (!m) return false;
    const source = m[1] as ExternalSource;
    try {
      if (req.method !== "POST") throw new HttpError(405, "use POST", { allow: "POST" });
      // Own keys only: `/alerts/constructor` is not a source.
      const configured = Object.hasOwn(deps.config.sources, source)
        ? deps.config.sources[source]
        : undefined;
      if (!configured) throw new HttpError(404, `no alert source '${source}' is configured`);
      if (!/^application\/json\b/i.test(String(req.headers["content-type"] ?? "")))
        throw new HttpError(415, "send application/json");
      const mine = { bytes: 0 };
      let body: Buffer;
      try {
        body = await readCapped(req, limits, { bytes: 0 }, mine);
      } finally {
        // Held only while unverified: what is checked next is bounded by the cap alone.
        limits.held.bytes -= mine.bytes;
      }
      if (!verifyRequest(configured.auth, req.headers, body, deps.now?.() ?? Date.now())) {
        log(`alerts/${source}: rejected credentials`);
        deps.observe?.(source, "rejected", 1);
        throw new HttpError(401, "missing or invalid credentials");
      }
      let payload: unknown;
      try {
        payload = JSON.parse(body.toString("utf8"));
      } catch (err) {
        throw new HttpError(400, `the body is not JSON: ${(err as Error).message}`);
      }
      const validate = validators[source];
      if (!validate(payload)) {
        const reasons = (validate.errors ?? [])
          .slice(0, 5)
          .map((e) => `${e.instancePath || "(body)"} ${e.message ?? "is invalid"}`);
        throw new HttpError(
          400,
          `the alert does not fit the ${source} format: ${reasons.join("; ")}`,
        );
      }
      const handleAll = async (alerts: NormalizedAlert[]) => {
        const unrouted: string[] = [];
        const work: Promise<TriageOutcome>[] = [];
        for (const alert of alerts) {
          const repo = routeAlert(deps.config, alert.labels);
          if (!repo) unrouted.push(alert.key);
          else work.push(deps.handle(alert, repo));
        }
        deps.observe?.(source, "unrouted", unrouted.length);
        const settled = await Promise.allSettled(work);
        for (const s of settled) {
          if (s.status === "rejected") {
            throw rateLimit(s.reason) ?? s.reason;
          }
        }
        const outcomes = settled.map((s) => (s as PromiseFulfilledResult<TriageOutcome>).value);
        return { unrouted, outcomes };
      };
      if (source === "generic") {
        const g = payload as GenericAlert;
        const id = `alert-event:${source}:${g.event_id}`;
        const done = g.event_id
          ? await doOnce(events, id, id, EVENT_TTL_MS, () => handleAll([fromGeneric(g)]), deps.lock)
          : { duplicate: false as const, value: await handleAll([fromGeneric(g)]) };
        if (done.duplicate) deps.observe?.(source, "duplicate", 1);
        if (done.duplicate) send(res, 200, { received: 1, duplicate: true });
        else send(res, 200, { received: 1, truncated: 0, ...done.value });
        return true;
      }
      const alerts = fromPrometheusStyle(source, payload as PromMessage);
      const result = await handleAll(alerts);
      const truncated = (payload as PromMessage).truncatedAlerts ?? 0;
      send(res, 200, { received: alerts.length, truncated, ...result });
      return true;
    } catch (err) {
      const e =
        err instanceof HttpError
          ? err
          : (rateLimit(err) ?? new HttpError(500, "the alert could not be handled; retry later"));
      if (!(err instanceof HttpError) && e.status === 500)
        log(`alerts/${source}: ${(err as Error).message}`);
      // A configured source's body refused before any alert was read (404 and 405 come earlier:
      // their source is whatever a sender wrote).
      if (err instanceof HttpError && [400, 413, 415].includes(e.status))
        deps.observe?.(source, "invalid", 1);
      send(res, e.status, { error: e.message }, e.headers);
      return true;
    }
  };
}
