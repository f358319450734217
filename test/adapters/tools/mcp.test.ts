import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpTools } from "../../../src/adapters/tools/mcp.js";
import { createToolsPort } from "../../../src/runtime/tools.js";
import { startMcpServer, type LoopbackMcp } from "../../helpers/mcp-server.js";
import { redirectingPair } from "../../helpers/redirect-servers.js";

const SECRET = "mcp-key-0a1b2c3d4e";
let url: string;

function mcpServer(): McpServer {
  const mcp = new McpServer({ name: "ops", version: "1.0.0" });
  mcp.registerTool(
    "pod_status",
    {
      description: "Pods of a service",
      inputSchema: { service: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ service }) => ({
      content: [{ type: "text", text: JSON.stringify({ service, ready: 3 }) }],
      structuredContent: {
        evidence: [
          { finding_type: "pods_ready", summary: `${service}: 3 of 3 ready`, confidence: "high" },
        ],
      },
    }),
  );
  mcp.registerTool(
    "restart",
    { description: "Restart a service", annotations: { destructiveHint: true } },
    async () => ({
      content: [{ type: "text", text: "restarted" }],
    }),
  );
  mcp.registerTool(
    "broken",
    { description: "Always fails", annotations: { readOnlyHint: true } },
    async () => ({
      isError: true,
      content: [{ type: "text", text: `backend refused token ${SECRET}` }],
    }),
  );
  mcp.registerTool(
    "words",
    { description: "Plain text", annotations: { readOnlyHint: true } },
    async () => ({
      content: [{ type: "text", text: "all quiet" }],
    }),
  );
  mcp.registerTool(
    "slow",
    { description: "Never answers", annotations: { readOnlyHint: true } },
    () => new Promise(() => undefined),
  );
  mcp.registerTool(
    "hidden",
    { description: "Not allowlisted", annotations: { readOnlyHint: true } },
    async () => ({
      content: [{ type: "text", text: "secret stuff" }],
    }),
  );
  return mcp;
}

let loopback: LoopbackMcp;
beforeAll(async () => {
  loopback = await startMcpServer(mcpServer, SECRET);
  url = loopback.url;
});
afterAll(() => loopback.close());
/** How many times the tools were listed. */
const listed = () => loopback.methods.filter((m) => m === "tools/list").length;

const env = { OPS_MCP_KEY: SECRET };
function portFor(extra: Record<string, unknown> = {}) {
  const provider = mcpTools(
    "ops",
    {
      url,
      headers: { Authorization: { env: "OPS_MCP_KEY", prefix: "Bearer " } },
      tools: ["pod_status", "restart", "broken", "slow"],
      ...extra,
    },
    env,
  );
  return {
    port: createToolsPort([provider], { secrets: provider.secrets, defaultDeadlineMs: 3000 }),
    provider,
  };
}

describe("MCP tools", () => {
  it("list the server's tools once per connection and read their annotations", async () => {
    const { port, provider } = portFor();
    const before = listed();
    expect(await port.describe("ops/pod_status")).toMatchObject({
      readOnly: true,
      allowWrites: false,
      description: "Pods of a service",
    });
    expect(await port.describe("ops/restart")).toMatchObject({ readOnly: false });
    expect(await port.describe("ops/hidden")).toBeUndefined(); // not on the allowlist
    expect(await port.describe("ops/missing")).toBeUndefined();
    expect(listed() - before).toBe(1);
    await provider.close?.();
  });

  it("call a read-only tool; its evidence items become findings", async () => {
    const { port, provider } = portFor();
    const outcome = await port.call("ops/pod_status", { service: "cart" });
    expect(outcome).toMatchObject({
      ok: true,
      findings: { pods_ready: "cart: 3 of 3 ready", pods_ready_confidence: 0.85 },
    });
    await provider.close?.();
  });

  it("refuse a writing tool unless approved, and honour read_only and allow_writes from the config", async () => {
    const { port, provider } = portFor();
    expect(await port.call("ops/restart", {})).toMatchObject({ ok: false, code: "TOOL-DENIED" });
    expect(await port.call("ops/restart", {}, { writeApproved: true })).toMatchObject({
      ok: true,
      result: "restarted",
    });
    await provider.close?.();
    const configured = portFor({ read_only: ["restart"], allow_writes: true });
    expect(await configured.port.describe("ops/restart")).toMatchObject({
      readOnly: true,
      allowWrites: true,
    });
    await configured.provider.close?.();
  });

  it("report a tool error as TOOL-FAILED without the secret", async () => {
    const { port, provider } = portFor();
    const outcome = await port.call("ops/broken", {});
    expect(outcome).toMatchObject({
      ok: false,
      code: "TOOL-FAILED",
      message: expect.stringContaining("backend refused token"),
    });
    expect(JSON.stringify(outcome)).not.toContain(SECRET);
    await provider.close?.();
  });

  it("return plain text when a tool gives neither structure nor JSON", async () => {
    const { port, provider } = portFor({ tools: undefined });
    expect(await port.call("ops/words", {})).toMatchObject({
      ok: true,
      result: "all quiet",
      findings: { ops_words: "all quiet" },
    });
    expect(await port.describe("ops/hidden")).toBeDefined(); // no allowlist: every listed tool
    await provider.close?.();
  });

  it("give up on a hanging tool at the deadline", async () => {
    const { port, provider } = portFor();
    expect(await port.call("ops/slow", {}, { deadlineMs: 300 })).toMatchObject({
      ok: false,
      code: "TOOL-TIMEOUT",
    });
    await provider.close?.();
  });

  it("refuse an answer over the size cap", async () => {
    const { port, provider } = portFor({ max_response_bytes: 4096 });
    const outcome = await port.call("ops/pod_status", { service: "x".repeat(4000) });
    expect(outcome).toMatchObject({ ok: false, code: "TOOL-TOO-LARGE" });
    await provider.close?.();
  });

  it("say clearly when the server cannot be reached", async () => {
    const provider = mcpTools("ops", { url: "http://127.0.0.1:1/mcp" }, {});
    const outcome = await createToolsPort([provider]).call("ops/pod_status", {});
    expect(outcome).toMatchObject({
      ok: false,
      code: "TOOL-FAILED",
      message: expect.stringContaining("could not reach MCP server ops"),
    });
  });

  it("refuse plain http to a host that is not loopback, and unset header variables", () => {
    expect(() => mcpTools("ops", { url: "http://mcp.example.com/" }, {})).toThrow(/https/);
    expect(() => mcpTools("ops", { url, headers: { Authorization: { env: "NOPE" } } }, {})).toThrow(
      /NOPE/,
    );
  });
});

describe("an MCP server that redirects to another origin", () => {
  it.each([302, 307])("%i: its headers never reach the other origin", async (status) => {
    const pair = await redirectingPair(status);
    try {
      const provider = mcpTools(
        "ops",
        {
          url: `${pair.endpoint.url}/away/mcp`,
          headers: {
            Authorization: { env: "OPS_MCP_KEY", prefix: "Bearer " },
            "x-api-key": { env: "OPS_MCP_KEY" },
          },
        },
        env,
      );
      const port = createToolsPort([provider], {
        secrets: provider.secrets,
        defaultDeadlineMs: 3000,
      });
      const outcome = await port.call("ops/pod_status", { service: "cart" });
      expect(outcome).toMatchObject({ ok: false });
      expect(JSON.stringify(outcome)).not.toContain(SECRET);
      expect(pair.endpoint.seen.length).toBeGreaterThan(0);
      expect(pair.endpoint.seen[0]?.headers["x-api-key"]).toBe(SECRET);
      expect(pair.elsewhere.seen).toEqual([]);
      await provider.close?.();
    } finally {
      await pair.close();
    }
  });
});
