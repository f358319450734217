import { readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { aiConsole, ANSWER_PREFIX } from "../../../src/entries/cli/ai-output.js";
import { startChatServer, type ChatServer } from "../../helpers/chat-server.js";
import { cleanup, makeRepo, runIn, write } from "../../helpers/git-repo.js";
import { startMcpServer } from "../../helpers/mcp-server.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

const KEY = "sk-cli-test-9876543210-SECRET";

const PLAYBOOK = `apiVersion: playbook-bot/v1
id: ai-triage
description: Asks the model why the API is slow.
steps:
  - id: think
    type: ai
    description: Ask the model.
    prompt: Why is the API slow?
    tools: [github/file_read]
    expected_findings: [cause]
  - id: done
    type: end
    description: Done.
    advice: "cause: {{ findings.cause }}"
`;

let server: ChatServer | undefined;
beforeEach(() => {
  vi.stubEnv("GITHUB_TOKEN", "");
});
afterEach(async () => {
  vi.unstubAllEnvs();
  cleanup();
  await server?.close();
  server = undefined;
});

describe("playbook-bot run with an ai step against an OpenAI-compatible server", () => {
  it("prints the answer as it streams and records the findings in the run's state", async () => {
    server = await startChatServer([
      {
        stream: [
          { text: "The API " },
          { text: "is slow\n::error::not a command\n" },
          { text: "because of GC pauses." },
          { tool: { index: 0, name: "report_finding", args: '{"key":"cause","value":"gc"}' } },
        ],
      },
    ]);
    vi.stubEnv("PLAYBOOK_AI_PROVIDER", "openai");
    vi.stubEnv("PLAYBOOK_AI_BASE_URL", `${server.url}/v1`);
    vi.stubEnv("PLAYBOOK_AI_API_KEY", KEY);
    vi.stubEnv("PLAYBOOK_AI_MODEL", "test-model");
    const repo = makeRepo();
    write(repo, ".github/playbooks/ai-triage.yaml", PLAYBOOK);
    const r = await runIn(repo, "ai-triage", [], { mode: "autonomous" });
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain(
      `] ai think: answering\n${ANSWER_PREFIX}The API is slow\n${ANSWER_PREFIX}::error::not a command\n${ANSWER_PREFIX}because of GC pauses.\n`,
    );
    expect(r.out).toMatch(/\] ai think: finding cause = gc\n/);
    expect(r.out).toContain("cause: gc");
    expect(r.out).not.toContain(KEY);
    const body = server.requests[0]!.body as { model: string; messages: { content: string }[] };
    expect(body.model).toBe("test-model");
    expect(body.messages[1]!.content).toBe("Why is the API slow?");
    const file = /State: (\S+)\n/.exec(r.out)?.[1];
    expect(file).toBeDefined();
    const state = readFileSync(file!, "utf8");
    expect(state).not.toContain(KEY);
    const saved = JSON.parse(state) as {
      run: {
        stack: {
          findings: Record<string, unknown>;
          results: Record<string, { outputs?: { text?: string } }>;
        }[];
      };
    };
    const frame = saved.run.stack[0]!;
    expect(frame.findings).toEqual({ cause: "gc" });
    expect(frame.results.think?.outputs?.text).toBe(
      "The API is slow\n::error::not a command\nbecause of GC pauses.",
    );
  });

  it("fails the step with PB-AI-FAILED on a 401, without the key anywhere", async () => {
    server = await startChatServer([{ status: 401, error: { message: `bad key ${KEY}` } }]);
    vi.stubEnv("PLAYBOOK_AI_PROVIDER", "openai");
    vi.stubEnv("PLAYBOOK_AI_BASE_URL", `${server.url}/v1`);
    vi.stubEnv("PLAYBOOK_AI_API_KEY", KEY);
    const repo = makeRepo();
    write(repo, ".github/playbooks/ai-triage.yaml", PLAYBOOK);
    const r = await runIn(repo, "ai-triage", [], { mode: "autonomous" });
    expect(r.code).toBe(2);
    expect(r.out + r.err).toContain("PB-AI-FAILED");
    expect(r.out + r.err).toContain("check PLAYBOOK_AI_API_KEY");
    expect(r.out + r.err).not.toContain(KEY);
    expect(server.requests).toHaveLength(1);
    const file = /State: (\S+)\n/.exec(r.out)?.[1];
    if (file) expect(readFileSync(file, "utf8")).not.toContain(KEY);
  });

  it("refuses to start with a bad AI configuration, naming the variable", async () => {
    vi.stubEnv("PLAYBOOK_AI_PROVIDER", "azure");
    vi.stubEnv("PLAYBOOK_AI_API_KEY", KEY);
    const repo = makeRepo();
    write(repo, ".github/playbooks/ai-triage.yaml", PLAYBOOK);
    const r = await runIn(repo, "ai-triage", [], { mode: "autonomous" });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^playbook-bot: PLAYBOOK_AI_MODEL is not set/);
    expect(r.err).not.toContain(KEY);
    expect(r.out).not.toContain("Run ");
  });

  it("refuses a read-only ai step that offers a shell, where it is written", async () => {
    const repo = makeRepo();
    write(
      repo,
      ".github/playbooks/ai-triage.yaml",
      PLAYBOOK.replace("tools: [github/file_read]", "tools: [github/file_read, shell/bash]"),
    );
    const r = await runIn(repo, "ai-triage", [], { mode: "autonomous" });
    expect(r.code).toBe(1);
    expect(r.err).toContain("ai-triage.yaml:9:");
    expect(r.err).toContain("[ai-tool-scope]");
  });
});

describe("an ai step whose model calls a tool on a real MCP server", () => {
  it("makes the call, gives the result back, and finishes with the model's finding", async () => {
    const MCP_KEY = "mcp-cli-key-55aa77";
    const mcp = await startMcpServer(() => {
      const s = new McpServer({ name: "ops", version: "1.0.0" });
      s.registerTool(
        "pod_status",
        {
          description: "Pods of a service",
          inputSchema: { service: z.string() },
          annotations: { readOnlyHint: true },
        },
        async ({ service }) => ({
          content: [{ type: "text", text: `${service}: 1 of 3 pods ready, OOMKilled` }],
        }),
      );
      return s;
    }, MCP_KEY);
    try {
      server = await startChatServer([
        {
          stream: [
            { text: "Let me look at the pods." },
            { tool: { index: 0, name: "ops__pod_status", args: '{"service":"api"}' } },
          ],
        },
        {
          stream: [
            { text: "Two pods were killed for memory." },
            { tool: { index: 0, name: "report_finding", args: '{"key":"cause","value":"oom"}' } },
          ],
        },
      ]);
      vi.stubEnv("PLAYBOOK_AI_PROVIDER", "openai");
      vi.stubEnv("PLAYBOOK_AI_BASE_URL", `${server.url}/v1`);
      vi.stubEnv("PLAYBOOK_AI_API_KEY", KEY);
      vi.stubEnv("OPS_MCP_KEY", MCP_KEY);
      const repo = makeRepo();
      write(
        repo,
        "tools.yml",
        `servers:\n  ops:\n    url: ${mcp.url}\n    headers: { Authorization: { env: OPS_MCP_KEY, prefix: "Bearer " } }\n    tools: [pod_status]\n`,
      );
      vi.stubEnv("PLAYBOOK_TOOLS_CONFIG", `${repo}/tools.yml`);
      write(
        repo,
        ".github/playbooks/ai-triage.yaml",
        PLAYBOOK.replace("tools: [github/file_read]", "tools: [ops/pod_status]"),
      );
      const r = await runIn(repo, "ai-triage", [], { mode: "autonomous" });
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/\] ai think: the model asked to call ops\/pod_status\n/);
      expect(r.out).toMatch(
        /\] ai think: ops\/pod_status answered: api: 1 of 3 pods ready, OOMKilled\n/,
      );
      expect(r.out).toContain("cause: oom");
      expect(r.out).not.toContain(MCP_KEY);
      expect(mcp.methods).toContain("tools/call");
      // The model read the tool's own answer in its second round.
      const sent = server.requests[1]!.body.messages as { role: string; content: string }[];
      expect(sent.at(-1)).toMatchObject({
        role: "tool",
        content: "api: 1 of 3 pods ready, OOMKilled",
      });
      const state = readFileSync(/State: (\S+)\n/.exec(r.out)![1]!, "utf8");
      expect(JSON.parse(state).run.toolCalls).toBe(1);
    } finally {
      await mcp.close();
    }
  });
});

describe("aiConsole", () => {
  it("prints text behind a bar, defuses workflow commands and terminal sequences", () => {
    let out = "";
    const logs: string[] = [];
    const show = aiConsole(
      (t) => void (out += t),
      (l) => void logs.push(l),
    );
    show("a", { type: "text", text: "one #" });
    show("a", { type: "text", text: "#[group]x\n  ::warning::y\n\u001b[31mred\r\n" });
    show("a", { type: "tool_call", tool: "metrics/query", args: {} });
    show("a", {
      type: "tool_result",
      tool: "metrics/query",
      ok: false,
      text: "TOOL-DENIED: no\n::error::x",
    });
    show("a", { type: "text", text: "tail ##" });
    show("a", { type: "done" });
    show("b", { type: "finding", finding: { key: "k", value: "v\nw" } });
    show("b", { type: "done" });
    expect(out).toBe(
      `${ANSWER_PREFIX}one ##\\[group]x\n${ANSWER_PREFIX}  ::warning::y\n${ANSWER_PREFIX}\\u001b[31mred\n${ANSWER_PREFIX}tail ##\n`,
    );
    expect(logs).toEqual([
      "ai a: answering",
      "ai a: the model asked to call metrics/query",
      "ai a: metrics/query failed: TOOL-DENIED: no\\n::error::x",
      "ai b: answering",
      "ai b: finding k = v\\nw",
    ]);
  });
});
