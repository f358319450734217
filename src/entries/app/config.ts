import { createHmac } from "node:crypto";

export class AppConfigError extends Error {}

export interface AppConfig {
  appId: number;
  webhookSecret: string;
  /** Signs the state blocks; by default derived from the webhook secret. */
  stateSecret: string;
  /** `<slug>[bot]`, when known: comments by this login are this app's. */
  botLogin?: string;
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
  return config;
}
