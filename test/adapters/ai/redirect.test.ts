import { afterEach, describe, expect, it } from "vitest";
import { AiAdapterError } from "../../../src/runtime/ai.js";
import { OpenAiCompatibleAdapter, type AiProviderKind } from "../../../src/adapters/ai/openai.js";
import { redirectingPair } from "../../helpers/redirect-servers.js";

const KEY = "sk-redirect-0123456789-SECRET";
const pairs: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const p of pairs.splice(0)) await p.close();
});

async function ask(provider: AiProviderKind, baseURL: string): Promise<AiAdapterError> {
  const ai = new OpenAiCompatibleAdapter({
    provider,
    model: "test-model",
    baseURL,
    apiKey: KEY,
    apiVersion: "2024-10-21",
    timeoutMs: 5_000,
    maxAttempts: 3,
    sleep: async () => undefined,
  });
  try {
    const it = ai.invoke("What is wrong?", [], { scope: "read-only" });
    for (let r = await it.next(); !r.done; r = await it.next());
  } catch (err) {
    expect(err).toBeInstanceOf(AiAdapterError);
    return err as AiAdapterError;
  }
  throw new Error("expected a failure");
}

describe("an AI provider that redirects to another origin", () => {
  it.each([
    ["openai", 302, "/away/v1", "authorization"],
    ["openai", 307, "/away/v1", "authorization"],
    ["azure", 302, "/away", "api-key"],
    ["azure", 307, "/away", "api-key"],
    ["ollama", 308, "/away/v1", "authorization"],
  ] as const)(
    "%s, %i: the key never reaches the other origin; the ask fails once, saying why",
    async (provider, status, path, header) => {
      const pair = await redirectingPair(status);
      pairs.push(pair);
      const e = await ask(provider, `${pair.endpoint.url}${path}`);
      // The configured endpoint got the key (it is the configured one) and nothing else did.
      expect(pair.endpoint.seen[0]?.headers[header]).toContain(KEY);
      expect(pair.elsewhere.seen).toEqual([]);
      // Refused, not retried: the same request would be redirected again.
      expect(pair.endpoint.seen).toHaveLength(1);
      expect(e.transient).toBe(false);
      expect(e.message).toContain("redirected the request to another origin");
      expect(e.message).toContain(pair.elsewhere.url);
      expect(e.message).not.toContain(KEY);
    },
  );
});
