import type { Coordination, LockOptions } from "../../runtime/coordination.js";
import { MemoryCoordination } from "./memory.js";
import { RedisCoordination } from "./redis.js";

export { MemoryCoordination } from "./memory.js";
export { RedisCoordination, redactRedisUrl } from "./redis.js";

export interface CoordinationSettings {
  /** Redis for several replicas; absent: this process's memory (one replica only). */
  redis?: { url: string; prefix: string };
  lock?: LockOptions;
  log?: (level: "error" | "info", line: string) => void;
}

/** The store the settings name: Redis when a URL is given, else memory. Connects lazily. */
export function openCoordination(settings: CoordinationSettings = {}): Coordination {
  const lock = settings.lock ? { lock: settings.lock } : {};
  if (!settings.redis) return new MemoryCoordination(lock);
  return new RedisCoordination({
    url: settings.redis.url,
    prefix: settings.redis.prefix,
    ...lock,
    ...(settings.log ? { log: settings.log } : {}),
  });
}
