import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/** A real MCP server over Streamable HTTP on 127.0.0.1, behind a bearer token. */
export interface LoopbackMcp {
  /** The endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** The JSON-RPC methods asked for, in order (`tools/list`, `tools/call`, ...). */
  methods: string[];
  close(): Promise<void>;
}

/**
 * Starts `build()`'s server, stateless: one server and transport per request, as a deployment
 * behind a load balancer runs it. A request without `Bearer <secret>` gets 401.
 */
export async function startMcpServer(build: () => McpServer, secret: string): Promise<LoopbackMcp> {
  const methods: string[] = [];
  const server: Server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${secret}`) {
      res.writeHead(401).end();
      return;
    }
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const parsed = body ? (JSON.parse(body) as { method?: string }) : undefined;
      if (parsed?.method) methods.push(parsed.method);
      const mcp = build();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => void transport.close().then(() => mcp.close()));
      void mcp.connect(transport).then(() => transport.handleRequest(req, res, parsed));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    methods,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
