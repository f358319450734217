import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A loopback HTTP server that records every request it gets. */
export interface RecordingServer {
  url: string;
  seen: { method: string; path: string; headers: IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

/**
 * A loopback server: `answer` decides each response from the path (default: 200 with JSON naming
 * the path and method). Everything it receives is recorded, headers and body included.
 */
export async function recordingServer(
  answer?: (
    path: string,
    method: string,
  ) => { status: number; headers?: Record<string, string>; body?: string } | undefined,
): Promise<RecordingServer> {
  const seen: RecordingServer["seen"] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const path = req.url ?? "/";
      const method = req.method ?? "GET";
      seen.push({ method, path, headers: req.headers, body });
      const a = answer?.(path, method) ?? {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ path, method }),
      };
      res.writeHead(a.status, a.headers ?? {});
      res.end(a.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Two origins on loopback: `elsewhere` records what reaches it; `endpoint` answers every path
 * under `/away` with `status` and a Location on `elsewhere` (same path), anything else as `answer`.
 */
export async function redirectingPair(
  status: number,
  answer?: (
    path: string,
    method: string,
  ) => { status: number; headers?: Record<string, string>; body?: string } | undefined,
): Promise<{ endpoint: RecordingServer; elsewhere: RecordingServer; close(): Promise<void> }> {
  const elsewhere = await recordingServer();
  const endpoint = await recordingServer((path, method) =>
    path.startsWith("/away")
      ? { status, headers: { location: `${elsewhere.url}${path}` } }
      : answer?.(path, method),
  );
  return {
    endpoint,
    elsewhere,
    close: async () => {
      await endpoint.close();
      await elsewhere.close();
    },
  };
}
