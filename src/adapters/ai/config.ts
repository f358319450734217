import { MockAiAdapter, type AiAdapter } from "../../runtime/ai.js";
import {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_TIMEOUT_MS,
  OpenAiCompatibleAdapter,
  type AiProviderKind,
  type OpenAiCompatibleConfig,
} from "./openai.js";

/**
 * The AI adapter a deployment configured through its environment; the app, `playbook-bot run`
 * and `resume` build theirs here. Without PLAYBOOK_AI_PROVIDER it is the mock, which needs
 * nothing. A bad configuration throws AiConfigError at start, naming the variable (never its
 * value when the value is a secret).
 *
 * - PLAYBOOK_AI_PROVIDER: `mock` (default), `openai`, `github-models`, `azure`, `ollama`
 * - PLAYBOOK_AI_MODEL: the model (Azure: the deployment's name)
 * - PLAYBOOK_AI_BASE_URL: the API's base URL (Azure: the resource's endpoint)
 * - PLAYBOOK_AI_API_KEY: the key (GitHub Models: falls back to GITHUB_TOKEN)
 * - PLAYBOOK_AI_API_VERSION: Azure's api-version
 * - PLAYBOOK_AI_TIMEOUT_MS, PLAYBOOK_AI_MAX_ATTEMPTS: per request, and attempts per ask
 */
export class AiConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AiConfigError";
  }
}

export const AI_PROVIDERS = ["mock", "openai", "github-models", "azure", "ollama"] as const;
export type AiProvider = (typeof AI_PROVIDERS)[number];

export const AZURE_API_VERSION = "2024-10-21";

const DEFAULTS: Record<AiProviderKind, { baseURL?: string; model?: string }> = {
  openai: { baseURL: "https://api.openai.com/v1", model: "gpt-4.1-mini" },
  "github-models": { baseURL: "https://models.github.ai/inference", model: "openai/gpt-4.1-mini" },
  azure: {},
  ollama: { baseURL: "http://localhost:11434/v1" },
};

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name]?.trim();
  return v === undefined || v === "" ? undefined : v;
}

function integer(
  env: NodeJS.ProcessEnv,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const v = value(env, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new AiConfigError(`${name} must be a whole number from ${min} to ${max} (it is '${v}')`);
  return n;
}

/** The adapter's settings from the environment, checked; undefined for the mock. */
export function aiConfigFromEnv(env: NodeJS.ProcessEnv): OpenAiCompatibleConfig | undefined {
  const provider = (value(env, "PLAYBOOK_AI_PROVIDER") ?? "mock").toLowerCase();
  if (!(AI_PROVIDERS as readonly string[]).includes(provider))
    throw new AiConfigError(
      `PLAYBOOK_AI_PROVIDER is '${value(env, "PLAYBOOK_AI_PROVIDER")}'; use one of: ${AI_PROVIDERS.join(", ")}`,
    );
  if (provider === "mock") return undefined;
  const kind = provider as AiProviderKind;
  const defaults = DEFAULTS[kind];

  const model = value(env, "PLAYBOOK_AI_MODEL") ?? defaults.model;
  if (model === undefined)
    throw new AiConfigError(
      `PLAYBOOK_AI_MODEL is not set; the ${kind} provider needs it${kind === "azure" ? " (the deployment's name)" : " (e.g. llama3.2)"}`,
    );
  if (!/^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,199}$/.test(model))
    throw new AiConfigError(
      "PLAYBOOK_AI_MODEL is not a model name (letters, digits and . _ : / @ -)",
    );

  const base = value(env, "PLAYBOOK_AI_BASE_URL") ?? defaults.baseURL;
  if (base === undefined)
    throw new AiConfigError(
      "PLAYBOOK_AI_BASE_URL is not set; the azure provider needs the resource's endpoint, e.g. https://<name>.openai.azure.com",
    );
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new AiConfigError("PLAYBOOK_AI_BASE_URL is not a URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new AiConfigError("PLAYBOOK_AI_BASE_URL must start with https://");
  if (url.username || url.password)
    throw new AiConfigError(
      "PLAYBOOK_AI_BASE_URL must not carry credentials; put the key in PLAYBOOK_AI_API_KEY",
    );

  let keyVariable = "PLAYBOOK_AI_API_KEY";
  let apiKey = value(env, "PLAYBOOK_AI_API_KEY");
  if (apiKey === undefined && kind === "github-models") {
    apiKey = value(env, "GITHUB_TOKEN");
    keyVariable = "GITHUB_TOKEN";
  }
  if (apiKey === undefined && kind !== "ollama")
    throw new AiConfigError(
      kind === "github-models"
        ? "PLAYBOOK_AI_API_KEY or GITHUB_TOKEN must be set for github-models (in a workflow: GITHUB_TOKEN with permissions: models: read)"
        : `PLAYBOOK_AI_API_KEY is not set; the ${kind} provider needs it`,
    );
  // A key goes over TLS, except to this machine.
  if (url.protocol === "http:" && apiKey !== undefined && !LOOPBACK.has(url.hostname))
    throw new AiConfigError(
      "PLAYBOOK_AI_BASE_URL is http:// to another machine, which would send the key in clear; use https://",
    );

  const config: OpenAiCompatibleConfig = {
    provider: kind,
    model,
    baseURL: base.replace(/\/+$/, ""),
    keyVariable,
    timeoutMs: integer(env, "PLAYBOOK_AI_TIMEOUT_MS", 1_000, 3_600_000) ?? DEFAULT_TIMEOUT_MS,
    maxAttempts: integer(env, "PLAYBOOK_AI_MAX_ATTEMPTS", 1, 10) ?? DEFAULT_MAX_ATTEMPTS,
  };
  if (apiKey !== undefined) config.apiKey = apiKey;
  if (kind === "azure") {
    const version = value(env, "PLAYBOOK_AI_API_VERSION") ?? AZURE_API_VERSION;
    if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}(-preview)?$/.test(version))
      throw new AiConfigError(
        `PLAYBOOK_AI_API_VERSION is '${version}'; write a date such as ${AZURE_API_VERSION} (or …-preview)`,
      );
    config.apiVersion = version;
  }
  return config;
}

/** The adapter the environment configures: the mock unless PLAYBOOK_AI_PROVIDER names another. */
export function aiAdapterFromEnv(env: NodeJS.ProcessEnv = process.env): AiAdapter {
  const config = aiConfigFromEnv(env);
  return config ? new OpenAiCompatibleAdapter(config) : new MockAiAdapter();
}
