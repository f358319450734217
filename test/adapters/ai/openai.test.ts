import { findingsInText } from "../../../src/runtime/ai.js";
import { afterEach, describe, expect, it } from "vitest";
import {
  AiAdapterError,
  MockAiAdapter,
  performAiEffect,
  TOO_MANY_CALLS,
  type AiMessage,
  type AiToolHost,
  type AiOptions,
} from "../../../src/runtime/ai.js";
import {
  AiConfigError,
  aiAdapterFromEnv,
  aiConfigFromEnv,
} from "../../../src/adapters/ai/config.js";
import {
  boundedFinding,
  functionName,
  MAX_FINDING_CHARS,
  MAX_TOOL_RESULT_CHARS,
  MAX_TOOL_ROUNDS,
  OpenAiCompatibleAdapter,
  retryAfterMs,
  type OpenAiCompatibleConfig,
} from "../../../src/adapters/ai/openai.js";
import { startChatServer, type ChatServer, type Reply } from "../../helpers/chat-server.js";
import { APIError } from "openai";
import type { ToolRunner } from "../../../src/runtime/tool-calls.js";

const KEY = "sk-test-0123456789abcdef-SECRET";
let server: ChatServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(...replies: Reply[]): Promise<ChatServer> {
  server = await startChatServer(replies);
  return server;
}

function adapter(
  s: ChatServer,
  extra: Partial<OpenAiCompatibleConfig> = {},
): { ai: OpenAiCompatibleAdapter; waits: number[] } {
  const waits: number[] = [];
  const ai = new OpenAiCompatibleAdapter({
    provider: "openai",
    model: "test-model",
    baseURL: `${s.url}/v1`,
    apiKey: KEY,
    timeoutMs: 5_000,
    random: () => 0,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...extra,
  });
  return { ai, waits };
}

async function drain(
  ai: OpenAiCompatibleAdapter,
  options: AiOptions = { scope: "read-only" },
  tools: string[] = [],
  seen: AiMessage[] = [],
): Promise<AiMessage[]> {
  const it = ai.invoke("What is wrong?", tools, options);
  for (let r = await it.next(); !r.done; r = await it.next()) seen.push(r.value);
  return seen;
}

async function failure(p: Promise<unknown>): Promise<AiAdapterError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(AiAdapterError);
    return err as AiAdapterError;
  }
  throw new Error("expected a failure");
}

describe("OpenAiCompatibleAdapter over a loopback chat-completions server", () => {
  it("yields text deltas in order as they arrive, and sends the prompt, model and key", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const s = await serve({
      stream: [{ text: "The " }, { text: "disk " }, { text: "is full." }],
      afterFirst: gate,
    });
    const { ai } = adapter(s);
    const it = ai.invoke("What is wrong?", [], { scope: "read-only" });
    // The first delta comes while the server still holds the rest back.
    expect((await it.next()).value).toEqual({ type: "text", text: "The " });
    release();
    const rest: AiMessage[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(r.value);
    expect(rest).toEqual([
      { type: "text", text: "disk " },
      { type: "text", text: "is full." },
      { type: "done" },
    ]);
    const req = s.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.url).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.body.model).toBe("test-model");
    expect(req.body.stream).toBe(true);
    expect(req.body.tools).toBeUndefined();
    const messages = req.body.messages as { role: string; content: string }[];
    expect(messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(messages[0]!.content).toContain("read-only");
    expect(messages[1]!.content).toBe("What is wrong?");
  });

  it("offers report_finding for the expected keys and yields findings and tool calls", async () => {
    const long = "x".repeat(MAX_FINDING_CHARS + 50);
    const s = await serve({
      stream: [
        { text: "Looking." },
        { tool: { index: 0, name: "report_finding", args: '{"key":"cau' } },
        { tool: { index: 0, args: 'se","value":"gc pauses"}' } },
        { tool: { index: 1, name: "report_finding", args: '{"key":"other","value":1}' } },
        { tool: { index: 2, name: "report_finding", args: `{"key":"detail","value":"${long}"}` } },
        { tool: { index: 3, name: "metrics__query", args: '{"q":"rate(errors[5m])"}' } },
        { tool: { index: 4, name: "report_finding", args: '{"key":"hot","value":true}' } },
      ],
    });
    const { ai } = adapter(s);
    const out = await drain(
      ai,
      { scope: "read-only", expectedFindings: ["cause", "hot", "detail"] },
      ["metrics/query"],
    );
    expect(out).toEqual([
      { type: "text", text: "Looking." },
      { type: "finding", finding: { key: "cause", value: "gc pauses" } },
      {
        type: "finding",
        finding: { key: "detail", value: `${"x".repeat(MAX_FINDING_CHARS - 1)}…` },
      },
      { type: "tool_call", tool: "metrics/query", args: { q: "rate(errors[5m])" } },
      { type: "finding", finding: { key: "hot", value: true } },
      { type: "done" },
    ]);
    const tools = s.requests[0]!.body.tools as {
      function: { name: string; parameters: unknown };
    }[];
    expect(tools.map((t) => t.function.name)).toEqual(["metrics__query", "report_finding"]);
    expect(JSON.stringify(tools[1]!.function.parameters)).toContain(
      '"enum":["cause","hot","detail"]',
    );
  });

  it("reads findings from a final ```json block when the model calls no function", async () => {
    const s = await serve({
      stream: [
        { text: "Cause found.\n```json\n" },
        { text: '{"cause": "gc", "hot": 3, "nope": "x", "nested": {"a": 1}}\n```' },
      ],
    });
    const { ai } = adapter(s);
    const out = await drain(ai, {
      scope: "read-only",
      expectedFindings: ["cause", "hot", "nested"],
    });
    expect(out.filter((m) => m.type === "finding")).toEqual([
      { type: "finding", finding: { key: "cause", value: "gc" } },
      { type: "finding", finding: { key: "hot", value: 3 } },
    ]);
  });

  it("retries a 429 after the Retry-After it asked for, then streams", async () => {
    const s = await serve(
      { status: 429, headers: { "retry-after": "2" }, error: { message: "slow down" } },
      { stream: [{ text: "ok" }] },
    );
    const { ai, waits } = adapter(s);
    const out = await drain(ai);
    expect(out).toEqual([{ type: "text", text: "ok" }, { type: "done" }]);
    expect(s.requests).toHaveLength(2);
    expect(waits).toEqual([2000]);
  });

  it("backs off exponentially with jitter on 5xx and connection failures, a bounded number of times", async () => {
    const s = await serve({ status: 503 }, { status: 502 }, { status: 500 });
    const { ai, waits } = adapter(s, { maxAttempts: 3, random: () => 1 });
    const e = await failure(drain(ai));
    expect(s.requests).toHaveLength(3);
    expect(waits).toEqual([500, 1000]);
    expect(e.transient).toBe(true);
    expect(e.message).toMatch(/^openai answered 500: .*\(after 3 attempts\)$/);

    const refused = new OpenAiCompatibleAdapter({
      provider: "ollama",
      model: "m",
      baseURL: "http://127.0.0.1:9/v1",
      maxAttempts: 2,
      sleep: async () => undefined,
    });
    const down = await failure(drain(refused));
    expect(down.message).toMatch(/^ollama could not be reached/);
  });

  it("does not wait for a Retry-After longer than it allows: it fails and says so", async () => {
    const s = await serve({ status: 429, headers: { "retry-after": "3600" } });
    const { ai, waits } = adapter(s, { maxDelayMs: 10_000 });
    const e = await failure(drain(ai));
    expect(waits).toEqual([]);
    expect(e.message).toContain("it asked to wait 3600 s, longer than this host waits");
  });

  it("does not retry once text has streamed: an error mid-way fails the ask", async () => {
    const s = await serve({
      stream: [{ text: "Half an " }, { error: { message: "internal error", code: 500 } }],
    });
    const { ai, waits } = adapter(s);
    const seen: AiMessage[] = [];
    const e = await failure(drain(ai, { scope: "read-only" }, [], seen));
    expect(seen).toEqual([{ type: "text", text: "Half an " }]);
    expect(s.requests).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(e.message).toContain("after the answer had started, so it was not tried again");
  });

  it("does not retry a connection broken after text has streamed", async () => {
    const s = await serve(
      { stream: [{ text: "Partial" }], cut: true },
      { stream: [{ text: "x" }] },
    );
    const { ai } = adapter(s);
    const e = await failure(drain(ai));
    expect(s.requests).toHaveLength(1);
    expect(e.message).toContain("not tried again");
  });

  it("retries a stream cut short before any text came", async () => {
    const s = await serve({ stream: [], cut: true }, { stream: [{ text: "whole" }] });
    const { ai, waits } = adapter(s);
    expect(await drain(ai)).toEqual([{ type: "text", text: "whole" }, { type: "done" }]);
    expect(s.requests).toHaveLength(2);
    expect(waits).toEqual([250]);
  });

  it("fails at once on 401 with a clear message that never carries the key", async () => {
    const s = await serve({
      status: 401,
      error: { message: `Incorrect API key provided: ${KEY}`, code: "invalid_api_key" },
    });
    const { ai, waits } = adapter(s);
    const e = await failure(drain(ai));
    expect(s.requests).toHaveLength(1);
    expect(waits).toEqual([]);
    expect(e.transient).toBe(false);
    expect(e.message).toBe("openai refused the credentials (401): check PLAYBOOK_AI_API_KEY");
    expect(e.message).not.toContain(KEY);
    expect(JSON.stringify(e)).not.toContain(KEY);
    expect(String(e.stack)).not.toContain(KEY);
  });

  it("fails at once on 400, showing the provider's words without the key", async () => {
    const s = await serve({
      status: 400,
      error: { message: `unknown model test-model (key ${KEY})` },
    });
    const { ai } = adapter(s);
    const e = await failure(drain(ai));
    expect(s.requests).toHaveLength(1);
    expect(e.message).toMatch(/^openai answered 400: .*unknown model test-model \(key \*\*\*\)$/);
    expect(e.message).not.toContain(KEY);
  });

  it("stops when the step's signal aborts, mid-request", async () => {
    const s = await serve({ hang: true });
    const { ai } = adapter(s);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const e = await failure(drain(ai, { scope: "read-only", signal: controller.signal }));
    expect(e.message).toBe("openai: the request was stopped");
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("stops when the signal aborts while waiting to retry", async () => {
    const s = await serve({ status: 503 });
    const controller = new AbortController();
    const ai = new OpenAiCompatibleAdapter({
      provider: "openai",
      model: "m",
      baseURL: `${s.url}/v1`,
      apiKey: KEY,
      baseDelayMs: 60_000,
    });
    setTimeout(() => controller.abort(), 50);
    const e = await failure(drain(ai, { scope: "read-only", signal: controller.signal }));
    expect(e.message).toBe("openai: the request was stopped");
    expect(s.requests).toHaveLength(1);
  });

  it("speaks Azure's shape: deployment path, api-version query, api-key header, no bearer", async () => {
    const s = await serve({ stream: [{ text: "azure says hi" }] });
    const ai = aiAdapterFromEnv({
      PLAYBOOK_AI_PROVIDER: "azure",
      PLAYBOOK_AI_BASE_URL: s.url,
      PLAYBOOK_AI_MODEL: "my-deploy",
      PLAYBOOK_AI_API_KEY: KEY,
    }) as OpenAiCompatibleAdapter;
    const out = await drain(ai);
    expect(out[0]).toEqual({ type: "text", text: "azure says hi" });
    const req = s.requests[0]!;
    expect(req.url).toBe("/openai/deployments/my-deploy/chat/completions?api-version=2024-10-21");
    expect(req.headers["api-key"]).toBe(KEY);
    expect(req.headers.authorization).toBeUndefined();
  });
});

/** A tool host that records the calls made through it and answers from `answers`. */
function recordingHost(
  answers: Record<string, unknown>,
  maxCalls = 20,
): AiToolHost & { seen: { tool: string; args: Record<string, unknown> }[] } {
  const seen: { tool: string; args: Record<string, unknown> }[] = [];
  return {
    maxCalls,
    get made() {
      return seen.length;
    },
    seen,
    describe: async (tool) =>
      tool === "metrics/query"
        ? {
            readOnly: true,
            description: "Query the metrics store with PromQL.",
            inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
          }
        : undefined,
    call: async (tool, args) => {
      if (seen.length >= maxCalls) return TOO_MANY_CALLS;
      seen.push({ tool, args });
      return tool in answers
        ? { ok: true, result: answers[tool] }
        : { ok: false, code: "TOOL-FAILED", message: "backend down" };
    },
  };
}

type SentMessage = {
  role: string;
  content: string | null;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
};

describe("OpenAiCompatibleAdapter making the model's tool calls", () => {
  it("calls the tool, gives the result back, and streams the answer of the next round", async () => {
    const s = await serve(
      {
        stream: [
          { text: "Checking the error rate." },
          { tool: { index: 0, name: "metrics__query", args: '{"q":"rate(err' } },
          { tool: { index: 0, args: 'ors[5m])"}' } },
        ],
      },
      {
        stream: [
          { text: "Errors are at 12/s since the deploy." },
          { tool: { index: 0, name: "report_finding", args: '{"key":"cause","value":"deploy"}' } },
        ],
      },
    );
    const { ai } = adapter(s);
    const host = recordingHost({ "metrics/query": { value: 12, unit: "1/s" } });
    const out = await drain(ai, { scope: "read-only", expectedFindings: ["cause"], tools: host }, [
      "metrics/query",
    ]);
    expect(out).toEqual([
      { type: "text", text: "Checking the error rate." },
      { type: "tool_call", tool: "metrics/query", args: { q: "rate(errors[5m])" } },
      { type: "tool_result", tool: "metrics/query", ok: true, text: '{"value":12,"unit":"1/s"}' },
      { type: "text", text: "\n\nErrors are at 12/s since the deploy." },
      { type: "finding", finding: { key: "cause", value: "deploy" } },
      { type: "done" },
    ]);
    expect(host.seen).toEqual([{ tool: "metrics/query", args: { q: "rate(errors[5m])" } }]);
    // The tool is offered as its host describes it.
    const offered = s.requests[0]!.body.tools as {
      function: { name: string; description: string; parameters: unknown };
    }[];
    expect(offered[0]!.function).toEqual({
      name: "metrics__query",
      description: "Query the metrics store with PromQL.",
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    });
    // The second request carries the first answer, its call, and the call's result.
    expect(s.requests).toHaveLength(2);
    const sent = s.requests[1]!.body.messages as SentMessage[];
    expect(sent.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool"]);
    expect(sent[2]).toMatchObject({
      content: "Checking the error rate.",
      tool_calls: [
        {
          id: "call_0",
          function: { name: "metrics__query", arguments: '{"q":"rate(errors[5m])"}' },
        },
      ],
    });
    expect(sent[3]).toEqual({
      role: "tool",
      tool_call_id: "call_0",
      content: '{"value":12,"unit":"1/s"}',
    });
    expect(s.requests[1]!.body.tool_choice).toBeUndefined();
  });

  it("answers each call of a round, a failed or unknown one with its error, a finding with 'recorded'", async () => {
    const s = await serve(
      {
        stream: [
          { tool: { index: 0, name: "metrics__query", args: '{"q":"up"}' } },
          { tool: { index: 1, name: "logs__search", args: "not json" } },
          { tool: { index: 2, name: "rm_rf", args: "{}" } },
          { tool: { index: 3, name: "report_finding", args: '{"key":"cause","value":"x"}' } },
        ],
      },
      { stream: [{ text: "Done." }] },
    );
    const { ai } = adapter(s);
    const host = recordingHost({ "metrics/query": "up=1" });
    const out = await drain(ai, { scope: "read-only", expectedFindings: ["cause"], tools: host }, [
      "metrics/query",
      "logs/search",
    ]);
    expect(out.filter((m) => m.type === "tool_result")).toEqual([
      { type: "tool_result", tool: "metrics/query", ok: true, text: "up=1" },
      { type: "tool_result", tool: "logs/search", ok: false, text: "TOOL-FAILED: backend down" },
    ]);
    // Arguments that are not JSON are sent as none.
    expect(host.seen[1]).toEqual({ tool: "logs/search", args: {} });
    const sent = s.requests[1]!.body.messages as SentMessage[];
    expect(sent.slice(3).map((m) => [m.tool_call_id, m.content])).toEqual([
      ["call_0", "up=1"],
      ["call_1", "error TOOL-FAILED: backend down"],
      ["call_2", "error TOOL-UNKNOWN: no tool rm_rf is offered"],
      ["call_3", "recorded"],
    ]);
  });

  it("stops offering calls once the step's allowance is spent: the model must answer", async () => {
    const ask = (n: number): Reply => ({
      stream: [{ tool: { index: 0, name: "metrics__query", args: `{"q":"q${n}"}` } }],
    });
    const s = await serve(ask(1), ask(2), { stream: [{ text: "Enough." }] });
    const { ai } = adapter(s);
    const host = recordingHost({ "metrics/query": 1 }, 2);
    const out = await drain(ai, { scope: "read-only", tools: host }, ["metrics/query"]);
    expect(host.seen.map((c) => c.args.q)).toEqual(["q1", "q2"]);
    expect(s.requests.map((r) => r.body.tool_choice)).toEqual([undefined, undefined, "none"]);
    // No text came before it, so the answer starts at once.
    expect(out.at(-2)).toEqual({ type: "text", text: "Enough." });
  });

  it("asks for an answer without tools after its rounds, and reports calls it still makes", async () => {
    // A model that never stops calling.
    const s = await serve({
      stream: [{ tool: { index: 0, name: "metrics__query", args: '{"q":"again"}' } }],
    });
    const { ai } = adapter(s);
    const host = recordingHost({ "metrics/query": 1 }, 100);
    const out = await drain(ai, { scope: "read-only", tools: host }, ["metrics/query"]);
    expect(host.seen).toHaveLength(MAX_TOOL_ROUNDS);
    expect(s.requests).toHaveLength(MAX_TOOL_ROUNDS + 1);
    expect(s.requests.at(-1)!.body.tool_choice).toBe("none");
    // The call it made anyway is reported, not made.
    expect(out.filter((m) => m.type === "tool_call")).toHaveLength(MAX_TOOL_ROUNDS + 1);
    expect(out.filter((m) => m.type === "tool_result")).toHaveLength(MAX_TOOL_ROUNDS);
  });

  it("gives the model a long result cut, and offers a tool with an odd schema as any object", async () => {
    const s = await serve(
      { stream: [{ tool: { index: 0, name: "logs__search", args: "{}" } }] },
      { stream: [{ text: "ok" }] },
    );
    const { ai } = adapter(s);
    const host = recordingHost({ "logs/search": "y".repeat(MAX_TOOL_RESULT_CHARS + 10) });
    host.describe = async () => ({ readOnly: true, inputSchema: { type: "array" } });
    const out = await drain(ai, { scope: "read-only", tools: host }, ["logs/search"]);
    const offered = s.requests[0]!.body.tools as {
      function: { description: string; parameters: unknown };
    }[];
    expect(offered[0]!.function).toMatchObject({
      description: "The tool logs/search.",
      parameters: { type: "object", additionalProperties: true },
    });
    const sent = s.requests[1]!.body.messages as SentMessage[];
    expect(sent[3]!.content).toBe(
      `${"y".repeat(MAX_TOOL_RESULT_CHARS)}… (cut at ${MAX_TOOL_RESULT_CHARS} characters)`,
    );
    // The stream's summary of the result is short.
    const summary = out.find((m) => m.type === "tool_result")!.text!;
    expect(summary.length).toBeLessThanOrEqual(300);
  });
});

describe("aiAdapterFromEnv", () => {
  it("is the mock unless a provider is named", () => {
    expect(aiAdapterFromEnv({})).toBeInstanceOf(MockAiAdapter);
    expect(aiAdapterFromEnv({ PLAYBOOK_AI_PROVIDER: "mock" })).toBeInstanceOf(MockAiAdapter);
  });

  it("gives each provider its defaults", () => {
    expect(
      aiConfigFromEnv({ PLAYBOOK_AI_PROVIDER: "github-models", GITHUB_TOKEN: KEY }),
    ).toMatchObject({
      provider: "github-models",
      baseURL: "https://models.github.ai/inference",
      model: "openai/gpt-4.1-mini",
      apiKey: KEY,
      keyVariable: "GITHUB_TOKEN",
    });
    expect(
      aiConfigFromEnv({ PLAYBOOK_AI_PROVIDER: "ollama", PLAYBOOK_AI_MODEL: "llama3.2" }),
    ).toMatchObject({ baseURL: "http://localhost:11434/v1", model: "llama3.2" });
    expect(
      aiConfigFromEnv({ PLAYBOOK_AI_PROVIDER: "openai", PLAYBOOK_AI_API_KEY: KEY }),
    ).toMatchObject({ baseURL: "https://api.openai.com/v1", keyVariable: "PLAYBOOK_AI_API_KEY" });
    const ai = aiAdapterFromEnv({ PLAYBOOK_AI_PROVIDER: "OpenAI", PLAYBOOK_AI_API_KEY: KEY });
    expect(ai.name).toBe("openai (gpt-4.1-mini)");
  });

  it.each([
    [{ PLAYBOOK_AI_PROVIDER: "gpt" }, /^PLAYBOOK_AI_PROVIDER is 'gpt'; use one of: mock, openai/],
    [{ PLAYBOOK_AI_PROVIDER: "openai" }, /^PLAYBOOK_AI_API_KEY is not set/],
    [{ PLAYBOOK_AI_PROVIDER: "github-models" }, /GITHUB_TOKEN.*models: read/],
    [{ PLAYBOOK_AI_PROVIDER: "ollama" }, /^PLAYBOOK_AI_MODEL is not set/],
    [
      { PLAYBOOK_AI_PROVIDER: "azure", PLAYBOOK_AI_MODEL: "d", PLAYBOOK_AI_API_KEY: KEY },
      /^PLAYBOOK_AI_BASE_URL is not set/,
    ],
    [
      { PLAYBOOK_AI_PROVIDER: "openai", PLAYBOOK_AI_API_KEY: KEY, PLAYBOOK_AI_BASE_URL: "ftp://x" },
      /^PLAYBOOK_AI_BASE_URL must start with https/,
    ],
    [
      {
        PLAYBOOK_AI_PROVIDER: "openai",
        PLAYBOOK_AI_API_KEY: KEY,
        PLAYBOOK_AI_BASE_URL: "http://models.example.com/v1",
      },
      /^PLAYBOOK_AI_BASE_URL is http:\/\/ to another machine/,
    ],
    [
      {
        PLAYBOOK_AI_PROVIDER: "openai",
        PLAYBOOK_AI_API_KEY: KEY,
        PLAYBOOK_AI_BASE_URL: `https://user:${KEY}@example.com`,
      },
      /^PLAYBOOK_AI_BASE_URL must not carry credentials/,
    ],
    [
      { PLAYBOOK_AI_PROVIDER: "openai", PLAYBOOK_AI_API_KEY: KEY, PLAYBOOK_AI_MAX_ATTEMPTS: "0" },
      /^PLAYBOOK_AI_MAX_ATTEMPTS must be a whole number from 1 to 10/,
    ],
    [
      {
        PLAYBOOK_AI_PROVIDER: "azure",
        PLAYBOOK_AI_MODEL: "d",
        PLAYBOOK_AI_API_KEY: KEY,
        PLAYBOOK_AI_BASE_URL: "https://r.openai.azure.com",
        PLAYBOOK_AI_API_VERSION: "latest",
      },
      /^PLAYBOOK_AI_API_VERSION is 'latest'/,
    ],
  ])("refuses a bad configuration at start, naming the variable (%#)", (env, message) => {
    let thrown: unknown;
    try {
      aiAdapterFromEnv(env);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(AiConfigError);
    expect((thrown as Error).message).toMatch(message);
    expect((thrown as Error).message).not.toContain(KEY);
  });
});

describe("helpers", () => {
  it("names functions, bounds findings, reads Retry-After and JSON blocks", () => {
    expect(functionName("github/file_read")).toBe("github__file_read");
    expect(functionName("k8s/pods.list")).toBe("k8s__pods_list");
    expect(boundedFinding(Number.NaN)).toBeUndefined();
    expect(boundedFinding({ a: 1 })).toBeUndefined();
    expect(boundedFinding(false)).toBe(false);
    expect(findingsInText('```json\n{"findings": {"a": 1}}\n```')).toEqual({ a: 1 });
    expect(findingsInText("```json\n[1]\n```")).toBeUndefined();
    expect(findingsInText("```json\nnot json\n```")).toBeUndefined();
    const headers = (h: Record<string, string>) => new APIError(429, {}, "x", new Headers(h));
    expect(retryAfterMs(headers({ "retry-after-ms": "150" }))).toBe(150);
    expect(retryAfterMs(headers({ "retry-after": "Thu, 01 Jan 1970 00:00:10 GMT" }), 4_000)).toBe(
      6_000,
    );
    expect(retryAfterMs(headers({}))).toBeUndefined();
    expect(retryAfterMs(new Error("x"))).toBeUndefined();
  });
});

describe("performAiEffect", () => {
  it("turns an adapter's failure into PB-AI-FAILED, without the key", async () => {
    const s = await serve({ status: 401, error: { message: KEY } });
    const { ai } = adapter(s);
    const r = await performAiEffect(ai, { prompt: "p" });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe("PB-AI-FAILED");
    expect(r.error.message).toContain("check PLAYBOOK_AI_API_KEY");
    expect(JSON.stringify(r)).not.toContain(KEY);
  });

  it("refuses a read-only step that offers a tool that may write, before asking the model", async () => {
    const ai = new MockAiAdapter();
    const byName = await performAiEffect(ai, { prompt: "p", tools: ["shell/bash"] });
    expect(byName).toMatchObject({
      ok: false,
      error: {
        code: "PB-AI-TOOL-REFUSED",
        message:
          "the step's scope is read-only, but it offers the model shell/bash, which may change things (shell runs commands)",
      },
    });
    const tools: ToolRunner = {
      call: async () => ({ ok: true, result: {} }),
      describe: async (name: string) =>
        name === "ops/restart_pod" || name === "ops/pods"
          ? { readOnly: name === "ops/pods" }
          : undefined,
    };
    const byDescriptor = await performAiEffect(
      ai,
      { prompt: "p", tools: ["ops/pods", "ops/restart_pod"] },
      undefined,
      { tools },
    );
    expect(byDescriptor).toMatchObject({
      ok: false,
      error: { code: "PB-AI-TOOL-REFUSED", message: expect.stringContaining("ops/restart_pod") },
    });
    expect(ai.calls).toEqual([]);
    // Write scope (approved before the step) may offer it; a read-only tool passes either way.
    expect(
      await performAiEffect(
        ai,
        { prompt: "p", tools: ["ops/restart_pod"], scope: "write" },
        undefined,
        { tools },
      ),
    ).toMatchObject({ ok: true });
    expect(
      await performAiEffect(ai, { prompt: "p", tools: ["ops/pods"] }, undefined, { tools }),
    ).toMatchObject({ ok: true });
  });
});
