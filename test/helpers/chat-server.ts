import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback server that speaks the chat-completions streaming protocol (Server-Sent Events:
 * `data: {chunk}` lines, then `data: [DONE]`), scripted per request. Nothing leaves the machine.
 */
export interface ChatRequest {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

/** What one request is answered with. */
export type Reply =
  | {
      stream: Chunk[];
      delayMs?: number;
      /** Sent after the first chunk: the test sees that chunk before the rest is written. */
      afterFirst?: Promise<void>;
      /** Break the connection after these chunks. */
      cut?: boolean;
    }
  | { status: number; headers?: Record<string, string>; error?: unknown }
  | { hang: true };

/** One chunk's delta, or an error event in the stream. */
export type Chunk =
  | { text: string }
  | { tool: { index: number; name?: string; args?: string } }
  | { error: { message: string; code?: number } };

export interface ChatServer {
  url: string;
  requests: ChatRequest[];
  close(): Promise<void>;
}

function chunkJson(c: Chunk, n: number): string {
  if ("error" in c) return JSON.stringify({ error: c.error });
  const delta =
    "text" in c
      ? { content: c.text }
      : {
          tool_calls: [
            {
              index: c.tool.index,
              ...(c.tool.name ? { id: `call_${c.tool.index}`, type: "function" } : {}),
              function: {
                ...(c.tool.name ? { name: c.tool.name } : {}),
                arguments: c.tool.args ?? "",
              },
            },
          ],
        };
  return JSON.stringify({
    id: `chatcmpl-${n}`,
    object: "chat.completion.chunk",
    created: 0,
    model: "test-model",
    choices: [{ index: 0, delta, finish_reason: null }],
  });
}

/** Starts the server on 127.0.0.1; `replies` answer requests in order (the last one repeats). */
export async function startChatServer(replies: Reply[]): Promise<ChatServer> {
  const requests: ChatRequest[] = [];
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d: Buffer) => (raw += d.toString("utf8")));
    req.on("end", () => {
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const reply = replies[Math.min(requests.length - 1, replies.length - 1)] as Reply;
      void answer(reply, res);
    });
  });
  async function answer(reply: Reply, res: ServerResponse): Promise<void> {
    if ("hang" in reply) {
      open.add(res);
      return;
    }
    if ("status" in reply) {
      res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
      res.end(JSON.stringify({ error: reply.error ?? { message: `status ${reply.status}` } }));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    let n = 0;
    for (const c of reply.stream) {
      res.write(`data: ${chunkJson(c, n++)}\n\n`);
      if (n === 1 && reply.afterFirst) await reply.afterFirst;
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    }
    if (reply.cut) {
      // Let what was written reach the client before the connection breaks.
      await new Promise((r) => setTimeout(r, 50));
      res.socket?.destroy();
      return;
    }
    res.write(
      `data: ${JSON.stringify({ id: "chatcmpl-end", object: "chat.completion.chunk", created: 0, model: "test-model", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`,
    );
    res.end("data: [DONE]\n\n");
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.socket?.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
