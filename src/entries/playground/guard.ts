/**
 * What the playground's loopback servers ask of every request before doing anything with it.
 * A page on another site can reach 127.0.0.1 from the user's browser: by a rebinding name (its
 * Host is then not ours), by a cross-site fetch (its Origin is not ours), by a form or a
 * `no-cors` POST (its type is not JSON, and it cannot add a header); and any of them may send a
 * body far larger than the sandbox needs. A per-start token, known only to the page (or the app),
 * is what a request must carry to be served at all.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";

/** A request refused, with its HTTP status and why. */
export class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A fresh secret for one start of a server: 32 random bytes, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** Whether two secrets are equal, in a time that does not tell how much of them matched. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given, "utf8");
  const b = Buffer.from(expected, "utf8");
  // Lengths differ only for a wrong secret; compare anyway so the time is that of a full match.
  return timingSafeEqual(a.length === b.length ? a : b, b) && a.length === b.length;
}

/** The `host:port` names a loopback server at `port` answers to. */
export function loopbackHosts(port: number): string[] {
  return [`127.0.0.1:${port}`, `localhost:${port}`];
}

/**
 * The Host must name this server (DNS rebinding finds nothing), and an Origin, when the browser
 * sends one, must be this server's own.
 */
export function checkAddress(req: IncomingMessage, port: number): string {
  const host = req.headers.host ?? "";
  if (!loopbackHosts(port).includes(host))
    throw new Refusal(403, `this server answers requests to 127.0.0.1:${port} only`);
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${host}`)
    throw new Refusal(403, "requests are taken from this server's own page only");
  return host;
}

/** Methods that change nothing. */
export function isSafeMethod(method: string): boolean {
  return method === "GET" || method === "HEAD";
}

/** The media type of a request, lower case, without parameters. */
function mediaType(req: IncomingMessage): string {
  return String(req.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
}

/** A change must come as JSON: a form or a `no-cors` fetch cannot send that type cross-site. */
export function checkJson(req: IncomingMessage): void {
  if (mediaType(req) !== "application/json")
    throw new Refusal(415, "send JSON (content-type: application/json)");
}

/** The request's token header must hold the server's token. */
export function checkToken(req: IncomingMessage, header: string, token: string): void {
  const given = req.headers[header];
  if (typeof given !== "string" || given === "")
    throw new Refusal(403, `the ${header} header is missing: use the page this server serves`);
  if (!sameSecret(given, token))
    throw new Refusal(403, `the ${header} header is wrong: reload the page`);
}

/** A body declared larger than `max` is refused before a byte of it is read. */
export function checkDeclaredLength(req: IncomingMessage, max: number): void {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > max)
    throw new Refusal(413, `a request body is at most ${max} bytes`);
}

/**
 * The body, read up to `max` bytes: past that the request stops being read (413), whatever its
 * Content-Length said.
 */
export async function readCapped(req: IncomingMessage, max: number): Promise<Buffer> {
  checkDeclaredLength(req, max);
  const chunks: Buffer[] = [];
  let size = 0;
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.off("data", onData);
        req.pause();
        reject(new Refusal(413, `a request body is at most ${max} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => resolve(Buffer.concat(chunks)));
    req.once("error", reject);
  });
}

/**
 * A refusal as a JSON answer. The connection is closed after it: the rest of a refused body is
 * never read.
 */
export function refuse(
  res: ServerResponse,
  refusal: Refusal,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(refusal.status, {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    connection: "close",
    ...headers,
  });
  res.end(JSON.stringify({ error: refusal.message }), () => {
    // Whatever the client still sends is dropped with the socket, not read.
    res.socket?.destroySoon();
  });
}
