import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolError, type ToolDescriptor, type ToolProvider } from "../../runtime/tools.js";
import { sameOriginFetch } from "../same-origin-fetch.js";
import { DEFAULT_MAX_RESPONSE_BYTES, urlProblem, type SecretHeader } from "./http.js";

export interface McpServerConfig {
  url: string;
  headers?: Record<string, SecretHeader>;
  /** The deployment lets this server's writing tools run without asking (with the playbook's consent). */
  allow_writes?: boolean;
  /** Only these tools are offered (all the server lists when absent). */
  tools?: string[];
  /** Tools treated as read-only even when the server does not say so. */
  read_only?: string[];
  max_response_bytes?: number;
}

const CLIENT_INFO = { name: "playbook-bot", version: "1" };
const MAX_TEXT_CHARS = 2000;

/**
 * fetch whose response bodies stop at `maxBytes`, so a server cannot fill the process's memory.
 * The SDK may only log a broken stream, so `onOverflow` tells the waiting calls.
 */
function cappedFetch(maxBytes: number, onOverflow: (err: ToolError) => void): typeof fetch {
  // The configured headers are for the configured server: a redirect to another origin is refused.
  const send = sameOriginFetch();
  return async (input, init) => {
    const res = await send(input, init);
    if (!res.body) return res;
    let size = 0;
    const limited = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          size += chunk.byteLength;
          if (size <= maxBytes) return controller.enqueue(chunk);
          const err = new ToolError(
            "TOOL-TOO-LARGE",
            `the server sent more than ${maxBytes} bytes`,
          );
          onOverflow(err);
          controller.error(err);
        },
      }),
    );
    return new Response(limited, {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}

interface ListedTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean };
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((c: { type?: string; text?: unknown }) =>
      c?.type === "text" && typeof c.text === "string" ? c.text : "",
    )
    .filter(Boolean)
    .join("\n");
}

/** A result as JSON: the structured content, else the text (parsed when it is JSON). */
export function mcpResultValue(result: Record<string, unknown>): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const text = textOf(result.content);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** One MCP server a deployment configured, reached over Streamable HTTP. */
export function mcpTools(
  server: string,
  config: McpServerConfig,
  env: NodeJS.ProcessEnv,
): ToolProvider & { secrets: string[] } {
  const url = new URL(config.url);
  const problem = urlProblem(url, [url.hostname.replace(/^\[|\]$/g, "").toLowerCase()]);
  if (problem) throw new Error(`MCP server ${server}: ${problem}`);
  const headers: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [name, h] of Object.entries(config.headers ?? {})) {
    const value = env[h.env];
    if (value === undefined || value === "")
      throw new Error(
        `MCP server ${server}: header ${name} needs the environment variable ${h.env}, which is not set`,
      );
    secrets.push(value);
    headers[name] = `${h.prefix ?? ""}${value}`;
  }
  let connection: Promise<{ client: Client; tools: Map<string, ListedTool> }> | undefined;
  const waiting = new Set<(err: ToolError) => void>();
  const overflow = (err: ToolError) => {
    for (const reject of waiting) reject(err);
    connection = undefined; // the stream is broken: connect anew next time
  };
  /** The work, or TOOL-TOO-LARGE as soon as an answer passes the cap. */
  async function bounded<T>(work: Promise<T>): Promise<T> {
    let reject: ((err: ToolError) => void) | undefined;
    const tooLarge = new Promise<never>((_, r) => {
      reject = r;
      waiting.add(r);
    });
    try {
      return await Promise.race([work, tooLarge]);
    } finally {
      if (reject) waiting.delete(reject);
    }
  }

  function connect() {
    connection ??= (async () => {
      const client = new Client(CLIENT_INFO);
      const transport = new StreamableHTTPClientTransport(url, {
        requestInit: { headers },
        fetch: cappedFetch(config.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES, overflow),
      });
      await client.connect(transport);
      const tools = new Map<string, ListedTool>();
      let cursor: string | undefined;
      // Listed once per connection; a few pages at most.
      for (let page = 0; page < 10; page++) {
        const listed = await client.listTools(cursor ? { cursor } : undefined);
        for (const t of listed.tools) tools.set(t.name, t as ListedTool);
        cursor = listed.nextCursor;
        if (!cursor) break;
      }
      return { client, tools };
    })().catch((err: unknown) => {
      connection = undefined; // the next call tries again
      if (err instanceof ToolError) throw err;
      throw new ToolError(
        "TOOL-FAILED",
        `could not reach MCP server ${server}: ${(err as Error).message}`,
      );
    });
    return connection;
  }

  const offered = (tool: string) => config.tools === undefined || config.tools.includes(tool);

  return {
    server,
    secrets,
    describe: async (tool): Promise<ToolDescriptor | undefined> => {
      if (!offered(tool)) return undefined;
      const listed = (await bounded(connect())).tools.get(tool);
      if (!listed) return undefined;
      return {
        name: `${server}/${tool}`,
        server,
        tool,
        readOnly:
          listed.annotations?.readOnlyHint === true || (config.read_only ?? []).includes(tool),
        allowWrites: config.allow_writes === true,
        description: (listed.description ?? "").slice(0, 500),
        ...(listed.inputSchema ? { inputSchema: listed.inputSchema } : {}),
      };
    },
    call: async (tool, args, signal) => {
      const { client } = await bounded(connect());
      const result = await bounded(
        client.callTool({ name: tool, arguments: args }, undefined, { signal }),
      );
      if (result.isError === true)
        throw new ToolError(
          "TOOL-FAILED",
          `the server reported an error: ${textOf(result.content).slice(0, MAX_TEXT_CHARS)}`,
        );
      return mcpResultValue(result);
    },
    close: async () => {
      const open = connection;
      connection = undefined;
      if (open) await open.then((c) => c.client.close()).catch(() => undefined);
    },
  };
}
