import type { Inbox, InboxWorkerOptions } from "../../runtime/inbox.js";
import { MemoryInbox } from "./memory.js";
import { RedisInbox } from "./redis.js";

export { MemoryInbox } from "./memory.js";
export { RedisInbox } from "./redis.js";
export {
  webhookRoute,
  BODY_TIMEOUT_MS,
  MAX_UNVERIFIED_BYTES,
  MAX_WEBHOOK_BYTES,
} from "./webhook-route.js";
import { BODY_TIMEOUT_MS, MAX_UNVERIFIED_BYTES, MAX_WEBHOOK_BYTES } from "./webhook-route.js";

/** The inbox's settings from the environment (INBOX_*), with the shared Redis when there is one. */
export interface InboxSettings {
  redis?: { url: string; prefix: string };
  /** Seconds an entry of a worker that stopped touching it waits before another claims it. */
  claimAfterMs: number;
  worker: Pick<InboxWorkerOptions, "concurrency" | "maxAttempts" | "retryBaseMs" | "retryCapMs">;
  /** What the webhook route reads before a delivery's signature is checked. */
  route: { maxBytes: number; maxUnverifiedBytes: number; bodyTimeoutMs: number };
}

export class InboxConfigError extends Error {}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number, unit = 1): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new InboxConfigError(`${name} must be a positive number, not '${raw.slice(0, 20)}'.`);
  return Math.round(n * unit);
}

/**
 * INBOX_CONCURRENCY (deliveries worked on at once per replica, 8), INBOX_MAX_ATTEMPTS (tries
 * before a delivery is dead, 8), INBOX_RETRY_BASE and INBOX_RETRY_CAP (seconds: the first retry's
 * delay, doubling up to the cap; 1 and 300), INBOX_CLAIM_TIMEOUT (seconds an entry of a replica
 * that died waits before another replica takes it, 30; Redis only); and the webhook route's
 * limits on bodies not yet verified: WEBHOOK_MAX_BYTES (one body, 2 MiB), WEBHOOK_UNVERIFIED_BYTES
 * (all bodies being read at once, 16 MiB), WEBHOOK_BODY_TIMEOUT (seconds a body may take, 15).
 */
export function readInboxSettings(
  env: NodeJS.ProcessEnv,
  redis?: { url: string; prefix: string },
): InboxSettings {
  return {
    ...(redis ? { redis } : {}),
    claimAfterMs: positive(env, "INBOX_CLAIM_TIMEOUT", 30_000, 1000),
    worker: {
      concurrency: positive(env, "INBOX_CONCURRENCY", 8),
      maxAttempts: positive(env, "INBOX_MAX_ATTEMPTS", 8),
      retryBaseMs: positive(env, "INBOX_RETRY_BASE", 1_000, 1000),
      retryCapMs: positive(env, "INBOX_RETRY_CAP", 300_000, 1000),
    },
    route: {
      maxBytes: positive(env, "WEBHOOK_MAX_BYTES", MAX_WEBHOOK_BYTES),
      maxUnverifiedBytes: positive(env, "WEBHOOK_UNVERIFIED_BYTES", MAX_UNVERIFIED_BYTES),
      bodyTimeoutMs: positive(env, "WEBHOOK_BODY_TIMEOUT", BODY_TIMEOUT_MS, 1000),
    },
  };
}

/** Redis Streams when the replicas share a Redis, else this process's memory. */
export function openInbox(settings: Pick<InboxSettings, "redis" | "claimAfterMs">): Inbox {
  if (!settings.redis) return new MemoryInbox();
  return new RedisInbox({
    url: settings.redis.url,
    prefix: settings.redis.prefix,
    claimAfterMs: settings.claimAfterMs,
  });
}
