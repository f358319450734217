import type { IncomingMessage, ServerResponse } from "node:http";
import type { InboxDelivery } from "../../runtime/inbox.js";
import { Held, HttpRefusal as Refusal, readCapped, type ReadLimits } from "../capped-body.js";
import { REPLAY_ID } from "../../runtime/reconcile.js";

/**
 * The largest body read before its signature can be checked (WEBHOOK_MAX_BYTES). GitHub caps a
 * payload at 25 MB, but the events the app subscribes to (app.yml) are far smaller: an issue's or
 * a comment's body is at most 65,536 characters, so a delivery is well under 1 MiB.
 */
export const MAX_WEBHOOK_BYTES = 2 * 1024 * 1024;

/**
 * The bytes of unverified bodies held at once across all connections (WEBHOOK_UNVERIFIED_BYTES):
 * past it a delivery is answered 503 with Retry-After, so senders without the secret cannot fill
 * the process's memory however many connections they open.
 */
export const MAX_UNVERIFIED_BYTES = 16 * 1024 * 1024;

/** How long a body may take to arrive, from its headers (WEBHOOK_BODY_TIMEOUT): 408 after. */
export const BODY_TIMEOUT_MS = 15_000;

/** The lines the route writes: fields first, as pino takes them. */
export interface RouteLog {
  info(fields: Record<string, unknown>, line: string): void;
  warn(fields: Record<string, unknown>, line: string): void;
}

export interface WebhookRouteOptions {
  /** Where GitHub posts deliveries (WEBHOOK_PATH, default `/api/github/webhooks`). */
  path: string;
  /** Whether `signature` (X-Hub-Signature-256) signs `body` with the webhook secret. */
  verify(body: string, signature: string): Promise<boolean>;
  /** Stores a checked delivery; a failure means it is not stored. */
  enqueue(delivery: InboxDelivery): Promise<void>;
  log: RouteLog;
  /** Larger bodies are refused with 413 (default MAX_WEBHOOK_BYTES). */
  maxBytes?: number;
  /** Unverified bytes held at once, all requests together (default MAX_UNVERIFIED_BYTES). */
  maxUnverifiedBytes?: number;
  /** A body not complete this long after its headers is refused with 408 (BODY_TIMEOUT_MS). */
  bodyTimeoutMs?: number;
  /** Told every answer's status (for metrics). */
  answered?: (status: number) => void;
}

const JSON_TYPE = /^\s*application\/json\s*(?:;|$)/i;
const REQUIRED = ["x-github-event", "x-hub-signature-256", "x-github-delivery"] as const;

/** A header as one bounded string (senders choose headers, and they reach the logs). */
function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  const one = Array.isArray(v) ? v[0] : v;
  return one === undefined ? undefined : one.slice(0, 200);
}

/** The payload, when the body is a JSON object (every GitHub event is one). */
function eventPayload(body: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new Refusal(400, "the body is not JSON");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    throw new Refusal(400, "the body is JSON but not an event: a webhook payload is a JSON object");
  return parsed as Record<string, unknown>;
}

/**
 * The webhook route: checks a delivery's headers, reads its body within the limits (its size, the
 * unverified bytes held at once, its time), checks its signature on the raw bytes, then stores it
 * in the inbox and answers 202 at once (workers do the work afterwards). The status codes are
 * @octokit/webhooks' own: 404 for another method, 415 for another content type, 400 for missing
 * headers or a bad signature; then 413 for a body past the cap, 408 for a body not complete in
 * time, 503 with Retry-After while unverified bodies fill the budget, 400 for a body that is not a
 * JSON object, and 503 when the inbox cannot store it (GitHub's redelivery then brings it again).
 * A refusal is logged by delivery id, event, size and reason.
 */
export function webhookRoute(options: WebhookRouteOptions) {
  const limits: ReadLimits = {
    max: options.maxBytes ?? MAX_WEBHOOK_BYTES,
    held: new Held(options.maxUnverifiedBytes ?? MAX_UNVERIFIED_BYTES),
    timeoutMs: options.bodyTimeoutMs ?? BODY_TIMEOUT_MS,
  };
  const path = options.path.replace(/\/+$/, "") || "/";
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const url = (req.url ?? "").split("?")[0] ?? "";
    if ((url.replace(/\/+$/, "") || "/") !== path) return false;
    const id = header(req, "x-github-delivery");
    const event = header(req, "x-github-event");
    const size = { bytes: 0 };
    // This request's share of the unverified bytes, given back once the body is checked (or not).
    const mine = { bytes: 0 };
    const release = () => {
      limits.held.bytes -= mine.bytes;
      mine.bytes = 0;
    };
    try {
      if (req.method !== "POST") throw new Refusal(404, `Unknown route: ${req.method} ${path}`);
      if (!JSON_TYPE.test(header(req, "content-type") ?? ""))
        throw new Refusal(
          415,
          'Unsupported "Content-Type" header value. Must be "application/json"',
        );
      const missing = REQUIRED.filter((h) => req.headers[h] === undefined);
      if (missing.length) throw new Refusal(400, `Required headers missing: ${missing.join(", ")}`);
      if (REPLAY_ID.test(id ?? ""))
        throw new Refusal(400, "a delivery id of the form the app gives its own replays");
      const body = (await readCapped(req, limits, size, mine)).toString("utf8");
      const signed = await options.verify(body, header(req, "x-hub-signature-256") ?? "");
      release();
      if (!signed) throw new Refusal(400, "signature does not match event payload and secret");
      const payload = eventPayload(body);
      const delivery = { id: id ?? "", name: event ?? "", payload };
      try {
        await options.enqueue(delivery);
      } catch (err) {
        throw new Refusal(503, `the inbox cannot store the delivery: ${(err as Error).message}`, {
          "retry-after": "30",
        });
      }
      options.log.info(
        { id, event, bytes: size.bytes },
        `delivery ${id} (${event}) accepted into the inbox`,
      );
      res.writeHead(202, { "content-type": "text/plain" });
      res.end("accepted\n");
      options.answered?.(202);
    } catch (err) {
      const refusal = err instanceof Refusal ? err : new Refusal(500, "the delivery was not read");
      options.log.warn(
        { id, event, bytes: size.bytes, status: refusal.status, reason: refusal.message },
        `delivery ${id ?? "(no id)"} (${event ?? "no event"}) refused with ${refusal.status}: ${refusal.message}`,
      );
      if (!res.headersSent) {
        res.writeHead(refusal.status, {
          "content-type": "application/json",
          ...refusal.headers,
        });
        res.end(JSON.stringify({ error: refusal.message }));
      }
      options.answered?.(refusal.status);
    } finally {
      release();
    }
    return true;
  };
}
