import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { cleanup, makeRepo, runIn, write } from "../../helpers/git-repo.js";
import { startMcpServer, type LoopbackMcp } from "../../helpers/mcp-server.js";
import { SEED_REPOS } from "../../helpers/seed-repos.js";
import { CASES_DIR, readCase } from "./replay.js";

const MCP_KEY = "runbook-mcp-key-4410";
const SERVERS: Record<string, string[]> = {
  trace: ["lookup", "inspect_spans"],
  db: ["readonly_query", "lookup_entity"],
  redis: ["inspect"],
};

/**
 * The spec's three tool families as real MCP servers on 127.0.0.1, answering each call with the
 * raw response the case recorded (`<server>.<tool>.json`); what each call was asked, by tool.
 */
async function caseServers(name: string, asked: Record<string, unknown>): Promise<LoopbackMcp> {
  return startMcpServer(() => {
    const s = new McpServer({ name: "incident-tools", version: "1.0.0" });
    for (const [server, tools] of Object.entries(SERVERS))
      for (const tool of tools)
        s.registerTool(
          tool,
          {
            description: `${server}.${tool} of the runbook spec`,
            inputSchema: {
              context_id: z.string(),
              context_type: z.string(),
              key: z.string().optional(),
              table: z.string().optional(),
              match_column: z.string().optional(),
            },
            annotations: { readOnlyHint: true },
          },
          async (args) => {
            asked[`${server}/${tool}`] = args;
            const answer = readFileSync(join(CASES_DIR, name, `${server}.${tool}.json`), "utf8");
            return { content: [{ type: "text", text: answer }] };
          },
        );
    return s;
  }, MCP_KEY);
}

/** A repository with the spec's runbooks in `.github/playbooks/` and its tools configured. */
function repoWithRunbooks(mcp: LoopbackMcp): string {
  const repo = makeRepo();
  const dir = join(SEED_REPOS, "runbook/runbooks");
  for (const file of readdirSync(dir))
    write(repo, `.github/playbooks/${file}`, readFileSync(join(dir, file), "utf8"));
  const servers = Object.entries(SERVERS)
    .map(
      ([server, tools]) =>
        `  ${server}:\n    url: ${mcp.url}\n    headers: { Authorization: { env: RUNBOOK_MCP_KEY, prefix: "Bearer " } }\n    tools: [${tools.join(", ")}]\n`,
    )
    .join("");
  write(repo, "tools.yml", `servers:\n${servers}`);
  vi.stubEnv("PLAYBOOK_TOOLS_CONFIG", join(repo, "tools.yml"));
  vi.stubEnv("RUNBOOK_MCP_KEY", MCP_KEY);
  return repo;
}

afterEach(() => {
  vi.unstubAllEnvs();
  cleanup();
});

describe("a local run of the spec's runbooks, its tools real MCP servers", () => {
  for (const name of [
    "hard-order-status-cache-conflict",
    "order-task-missing",
    "hard-task-state-wrong",
  ]) {
    const c = readCase(name);
    it(`${c.expected.runbook} on ${name} ends at ${c.expected.primary_conclusion}`, async () => {
      const asked: Record<string, unknown> = {};
      const mcp = await caseServers(name, asked);
      try {
        const repo = repoWithRunbooks(mcp);
        const { context_id, context_type, symptom } = c.incident;
        const r = await runIn(
          repo,
          c.expected.runbook,
          [`context_id=${context_id}`, `context_type=${context_type}`, `symptom=${symptom}`],
          { mode: "autonomous" },
        );
        expect(r.err).toBe("");
        expect(r.code).toBe(0);
        const state = JSON.parse(readFileSync(/State: (\S+)\n/.exec(r.out)![1]!, "utf8"));
        const frame = state.run.stack[0];
        expect(state.run.status).toBe("completed");
        expect(frame.results.decide.outputs.conclusion).toBe(c.expected.primary_conclusion);
        for (const finding of c.expected.required_finding_types)
          expect(frame.findings, finding).toHaveProperty(finding);
        expect(mcp.methods).toContain("tools/call");
        // The cache key is the runbook's template filled for the incident: the key the case saw.
        const recorded = JSON.parse(
          readFileSync(join(CASES_DIR, name, "redis.inspect.json"), "utf8"),
        ) as { key: string };
        expect(asked["redis/inspect"]).toMatchObject({ key: recorded.key });
        expect(Object.keys(asked).sort()).toEqual(
          (
            JSON.parse(
              readFileSync(
                join(SEED_REPOS, `runbook/runbooks/${c.expected.runbook}.execution.json`),
                "utf8",
              ),
            ) as { operations: string[] }
          ).operations
            .map((op) => op.replace(".", "/"))
            .sort(),
        );
      } finally {
        await mcp.close();
      }
    });
  }
});
