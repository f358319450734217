import { afterEach, describe, expect, it } from "vitest";
import { BIN, cleanup, makeRepo, write } from "../../helpers/git-repo.js";
import { redirectingPair } from "../../helpers/redirect-servers.js";
import { spawned } from "../../helpers/spawned.js";

/**
 * The built CLI's ai step against a provider endpoint that redirects to another origin (another
 * loopback port, as another host would be): the key reaches the configured endpoint only.
 */

const KEY = "sk-cli-redirect-0123456789-SECRET";
const pairs: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const p of pairs.splice(0)) await p.close();
  cleanup();
});

const PLAYBOOK = `apiVersion: playbook-bot/v1
id: ask
description: Asks the model.
steps:
  - id: think
    type: ai
    description: Ask the model.
    prompt: Why is the API slow?
  - id: done
    type: end
    description: Done.
`;

/** The built command run asynchronously, so the loopback servers in this process can answer. */
const cli = (args: string[], cwd: string, env: Record<string, string>) =>
  spawned([BIN, ...args], cwd, { GITHUB_TOKEN: "", ...env });

describe("playbook-bot run: an AI endpoint that redirects to another origin", () => {
  it.each([
    // The adapter's tests cover every provider and status; this is the built command, end to end.
    ["azure", 307, "/away", "api-key"],
  ] as const)(
    "%s, %i: the key never leaves the configured origin, and the run says why",
    async (provider, status, path, header) => {
      const pair = await redirectingPair(status);
      pairs.push(pair);
      const repo = makeRepo("pb-redirect-");
      write(repo, ".github/playbooks/ask.yaml", PLAYBOOK);
      const r = await cli(["run", "ask", "--mode", "autonomous"], repo, {
        PLAYBOOK_AI_PROVIDER: provider,
        PLAYBOOK_AI_MODEL: "test-model",
        PLAYBOOK_AI_BASE_URL: `${pair.endpoint.url}${path}`,
        PLAYBOOK_AI_API_KEY: KEY,
        PLAYBOOK_AI_MAX_ATTEMPTS: "3",
      });
      expect(r.code).not.toBe(0);
      expect(pair.elsewhere.seen).toEqual([]);
      expect(pair.endpoint.seen).toHaveLength(1);
      expect(pair.endpoint.seen[0]?.headers[header]).toContain(KEY);
      expect(r.out).toContain("redirected the request to another origin");
      expect(r.out).not.toContain(KEY);
    },
    40_000,
  );
});
