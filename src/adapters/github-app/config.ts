import { createHmac } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { resolve } from "node:path";

export class AppConfigError extends Error {}

export interface AppConfig {
  appId: number;
  webhookSecret: string;
  /** Signs the state blocks; by default derived from the webhook secret. */
  stateSecret: string;
  /** `<slug>[bot]`, when known: comments by this login are this app's. */
  botLogin?: string;
  /**
   * The Redis that replicas share (REDIS_URL, REDIS_PREFIX); without it, coordination stays in
   * this process's memory and only one replica may run.
   */
  redis?: { url: string; prefix: string };
  /**
   * How often the reconcile sweep looks for work nobody did (RECONCILE_INTERVAL, in seconds;
   * 0 turns it off). Default: 120 s.
   */
  reconcileIntervalMs?: number;
}

const REDIS_PREFIX = /^[A-Za-z0-9:_.-]{1,64}$/;

/** REDIS_URL and REDIS_PREFIX, checked; the URL's password is never repeated in an error. */
function readRedis(env: NodeJS.ProcessEnv): AppConfig["redis"] {
  const url = env.REDIS_URL?.trim();
  if (!url) return undefined;
  let scheme: string;
  try {
    scheme = new URL(url).protocol;
  } catch {
    throw new AppConfigError(
      "REDIS_URL is not a URL: write it as redis://[user:password@]host:port[/db] (or rediss:// for TLS).",
    );
  }
  if (scheme !== "redis:" && scheme !== "rediss:")
    throw new AppConfigError(
      `REDIS_URL must start with redis:// or rediss://, not ${scheme.slice(0, 20)}//.`,
    );
  const prefix = env.REDIS_PREFIX?.trim() || "playbook-bot:";
  if (!REDIS_PREFIX.test(prefix))
    throw new AppConfigError(
      "REDIS_PREFIX may have 1 to 64 letters, digits and the characters : _ . - (default playbook-bot:).",
    );
  return { url, prefix };
}

/** A separate key for state blocks, so the webhook secret itself never signs anything else. */
export function deriveStateSecret(webhookSecret: string): string {
  return createHmac("sha256", webhookSecret).update("playbook-bot state v1").digest("hex");
}

/**
 * The app's settings from the environment. A missing webhook secret stops the app: Probot would
 * otherwise check signatures against the public string "development".
 */
export function readAppConfig(env: NodeJS.ProcessEnv): AppConfig {
  const webhookSecret = env.WEBHOOK_SECRET ?? "";
  if (webhookSecret.trim() === "") {
    throw new AppConfigError(
      "WEBHOOK_SECRET is not set: refusing to start (without it any sender could forge webhooks). Set it to the secret configured in the GitHub App.",
    );
  }
  const appId = Number(env.APP_ID ?? "0");
  if (!Number.isInteger(appId) || appId <= 0)
    throw new AppConfigError("APP_ID must be the GitHub App's numeric id.");
  const config: AppConfig = {
    appId,
    webhookSecret,
    stateSecret: env.STATE_SECRET?.trim() || deriveStateSecret(webhookSecret),
  };
  if (env.APP_SLUG) config.botLogin = `${env.APP_SLUG}[bot]`;
  const redis = readRedis(env);
  if (redis) config.redis = redis;
  const interval = env.RECONCILE_INTERVAL?.trim();
  if (interval) {
    const seconds = Number(interval);
    if (!Number.isInteger(seconds) || seconds < 0 || seconds > 86_400)
      throw new AppConfigError(
        "RECONCILE_INTERVAL must be a whole number of seconds from 0 (no sweep) to 86400.",
      );
    config.reconcileIntervalMs = seconds * 1000;
  }
  return config;
}

/**
 * Loads `.env` from `dir` beneath the environment: a variable the environment sets (even to an
 * empty string) keeps its value. `unsupported` when this Node has no `process.loadEnvFile`.
 */
export function loadDotEnv(dir = process.cwd()): "loaded" | "absent" | "unsupported" {
  const file = resolve(dir, ".env");
  if (!existsSync(file)) return "absent";
  const load = (process as { loadEnvFile?: (path: string) => void }).loadEnvFile;
  if (typeof load !== "function") return "unsupported";
  load.call(process, file);
  return "loaded";
}

/**
 * How `npm start` begins: `serve` the app; without APP_ID and a private key, the `playground` (a
 * local sandbox with an in-memory GitHub, see src/entries/playground), or — asked for with
 * `npm run setup` — Probot's `setup` flow, which registers the app from app.yml (GitHub's
 * manifest flow) and writes its id, key and webhook secret to `.env`. Half a configuration is
 * refused, saying what is missing; so is starting without credentials in production.
 */
export function startMode(
  env: NodeJS.ProcessEnv,
  dir = process.cwd(),
  setup = false,
): "serve" | "setup" | "playground" {
  const appId = env.APP_ID?.trim();
  const keyPath = env.PRIVATE_KEY_PATH?.trim();
  const key = env.PRIVATE_KEY?.trim() || keyPath;
  // Probot also takes the one .pem file of the working directory.
  const pems = readdirSync(dir).filter((f) => f.endsWith(".pem"));
  if (appId) {
    if (keyPath && !env.PRIVATE_KEY?.trim() && !existsSync(resolve(dir, keyPath)))
      throw new AppConfigError(`PRIVATE_KEY_PATH names ${keyPath}, which does not exist.`);
    if (!key && pems.length !== 1)
      throw new AppConfigError(
        "APP_ID is set but there is no private key: set PRIVATE_KEY (the PEM, newlines as \\n) or PRIVATE_KEY_PATH (the .pem file downloaded from the app's settings).",
      );
    return "serve";
  }
  if (key)
    throw new AppConfigError(
      "a private key is set but APP_ID is not: set APP_ID to the GitHub App's numeric id (shown on its settings page).",
    );
  if (env.NODE_ENV === "production")
    throw new AppConfigError(
      "APP_ID is not set, and neither the playground nor the setup flow that registers the app is offered with NODE_ENV=production: register the app from app.yml, then set APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, and WEBHOOK_SECRET.",
    );
  return setup ? "setup" : "playground";
}
