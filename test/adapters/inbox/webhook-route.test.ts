import { createHmac } from "node:crypto";
import { createServer, request, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { verify } from "@octokit/webhooks-methods";
import { afterEach, describe, expect, it } from "vitest";
import {
  webhookRoute,
  type WebhookRouteOptions,
} from "../../../src/adapters/inbox/webhook-route.js";
import type { InboxDelivery } from "../../../src/runtime/inbox.js";

const SECRET = "route-test-secret";
const PATH = "/api/github/webhooks";

type Definition = { name: string; examples: Record<string, unknown>[] };
const examples = createRequire(import.meta.url)(
  "@octokit/webhooks-examples/api.github.com/index.json",
) as Definition[];
const issueComment = examples
  .find((d) => d.name === "issue_comment")
  ?.examples.find((e) => e.action === "created") as Record<string, unknown>;

const sign = (body: string | Buffer) =>
  `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;

interface Served {
  url: string;
  stored: InboxDelivery[];
  lines: { level: string; fields: Record<string, unknown>; line: string }[];
  statuses: number[];
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

async function serve(options: Partial<WebhookRouteOptions> = {}): Promise<Served> {
  const served: Served = { url: "", stored: [], lines: [], statuses: [] };
  const route = webhookRoute({
    path: PATH,
    verify: (body, signature) => verify(SECRET, body, signature),
    enqueue: (d) => {
      served.stored.push(d);
      return Promise.resolve();
    },
    log: {
      info: (fields, line) => served.lines.push({ level: "info", fields, line }),
      warn: (fields, line) => served.lines.push({ level: "warn", fields, line }),
    },
    answered: (status) => served.statuses.push(status),
    ...options,
  });
  const server = createServer((req, res) => {
    void route(req, res).then((handled) => {
      if (!handled) res.writeHead(404).end("not mine");
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  served.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${PATH}`;
  return served;
}

function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string }> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "issue_comment",
      "x-github-delivery": "d-1",
      "x-hub-signature-256": sign(body),
      ...headers,
    },
    body,
  }).then(async (res) => ({ status: res.status, text: await res.text() }));
}

describe("the webhook route", () => {
  it("stores a signed delivery (a real issue_comment payload) and answers 202", async () => {
    const s = await serve();
    const body = JSON.stringify(issueComment);
    const res = await post(s.url, body);
    expect(res).toEqual({ status: 202, text: "accepted\n" });
    expect(s.stored).toEqual([{ id: "d-1", name: "issue_comment", payload: issueComment }]);
    expect(s.statuses).toEqual([202]);
  });

  it("keeps @octokit/webhooks' answers: 415 for another content type, 400 for missing headers or a bad signature, 404 for GET", async () => {
    const s = await serve();
    const body = JSON.stringify(issueComment);
    expect((await post(s.url, body, { "content-type": "text/plain" })).status).toBe(415);
    const missing = await fetch(s.url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-github-event": "issue_comment" },
      body,
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      error: "Required headers missing: x-hub-signature-256, x-github-delivery",
    });
    const forged = await post(s.url, body, { "x-hub-signature-256": sign("{}") });
    expect(forged.status).toBe(400);
    expect(forged.text).toContain("signature does not match");
    expect((await fetch(s.url)).status).toBe(404);
    // Another path is not the route's.
    expect((await post(s.url.replace("webhooks", "other"), body)).text).toBe("not mine");
    expect(s.stored).toEqual([]);
  });

  it("refuses a signed body under a delivery id of the form the app gives its replays (label-<id>)", async () => {
    const s = await serve();
    const body = JSON.stringify(issueComment);
    for (const id of ["label-123", "comment-9", "opening:playbook.3a.ship"]) {
      const res = await post(s.url, body, { "x-github-delivery": id });
      expect(res.status).toBe(400);
      expect(res.text).toContain("a delivery id of the form the app gives its own replays");
    }
    expect(s.stored).toEqual([]);
  });

  it("answers a signed body that is JSON but not an event with a clear 400", async () => {
    const s = await serve();
    for (const body of ["42", "[1,2]", "null", '"text"']) {
      const res = await post(s.url, body);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.text)).toEqual({
        error: "the body is JSON but not an event: a webhook payload is a JSON object",
      });
    }
    const broken = await post(s.url, "{not json");
    expect(broken).toEqual({
      status: 400,
      text: JSON.stringify({ error: "the body is not JSON" }),
    });
    expect(s.stored).toEqual([]);
  });

  it("refuses a body past the cap with 413, by its declared length or as it streams, without keeping it", async () => {
    const s = await serve({ maxBytes: 1_000 });
    const big = JSON.stringify({ action: "created", filler: "x".repeat(5_000) });
    const declared = await post(s.url, big);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.text)).toEqual({
      error: "the body is larger than 1000 bytes (the route's cap)",
    });
    // Chunked, without a declared length: refused once the bytes read pass the cap.
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        s.url,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-github-event": "issue_comment",
            "x-github-delivery": "d-chunked",
            "x-hub-signature-256": sign(big),
            "transfer-encoding": "chunked",
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      for (let i = 0; i < 5; i++) req.write(big.slice(i * 1_000, (i + 1) * 1_000));
      req.end(big.slice(5_000));
    });
    expect(status).toBe(413);
    const chunked = s.lines.find((l) => l.fields.id === "d-chunked");
    expect(chunked?.fields.bytes).toBeGreaterThan(1_000);
    expect(chunked?.fields.bytes).toBeLessThanOrEqual(big.length);
    expect(s.stored).toEqual([]);
    expect(s.statuses).toEqual([413, 413]);
  });

  it("logs a refused delivery by id, event, size and reason, never its payload", async () => {
    const s = await serve({ maxBytes: 100_000 });
    const secretish = "PAYLOAD-MARKER-do-not-log";
    const payload = { ...issueComment, comment: { body: secretish } };
    await post(s.url, JSON.stringify(payload), { "x-hub-signature-256": sign("other") });
    await post(s.url, JSON.stringify({ ...payload, pad: "y".repeat(200_000) }), {
      "x-github-delivery": "d-big",
    });
    expect(s.lines.map((l) => l.level)).toEqual(["warn", "warn"]);
    expect(s.lines[0]?.fields).toEqual({
      id: "d-1",
      event: "issue_comment",
      bytes: JSON.stringify(payload).length,
      status: 400,
      reason: "signature does not match event payload and secret",
    });
    expect(s.lines[1]?.fields).toMatchObject({ id: "d-big", status: 413 });
    expect(JSON.stringify(s.lines)).not.toContain(secretish);
  });

  it("answers 503 with retry-after when the inbox cannot store the delivery", async () => {
    const s = await serve({ enqueue: () => Promise.reject(new Error("Redis is down")) });
    const res = await fetch(s.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "issue_comment",
        "x-github-delivery": "d-down",
        "x-hub-signature-256": sign(JSON.stringify(issueComment)),
      },
      body: JSON.stringify(issueComment),
    });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("30");
    expect(await res.json()).toEqual({
      error: "the inbox cannot store the delivery: Redis is down",
    });
  });

  /** A raw connection that sends a delivery's headers and `sent` bytes of its body, then waits. */
  function slowSender(url: string, id: string, length: number, sent: number) {
    const { port } = new URL(url);
    let answer = "";
    const socket: Socket = connect(Number(port), "127.0.0.1", () => {
      socket.write(
        `POST ${PATH} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-github-event: issues\r\nx-github-delivery: ${id}\r\nx-hub-signature-256: sha256=${"0".repeat(64)}\r\ncontent-length: ${length}\r\n\r\n`,
      );
      socket.write(Buffer.alloc(sent, 0x20));
    });
    socket.on("data", (c: Buffer) => (answer += c.toString()));
    socket.on("error", () => undefined);
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    return { socket, answer: () => answer, closed };
  }

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it("answers 503 with retry-after, unread, while unverified bodies fill the budget; a signed delivery goes through once they are gone", async () => {
    const s = await serve({ maxBytes: 10_000, maxUnverifiedBytes: 25_000, bodyTimeoutMs: 60_000 });
    // Three senders hold 8,000 bytes each of bodies they never finish: 24,000 of 25,000.
    const held = ["h-1", "h-2", "h-3"].map((id) => slowSender(s.url, id, 9_000, 8_000));
    await sleep(300);
    const body = JSON.stringify({ action: "created", pad: "x".repeat(2_000) });
    const refused = await fetch(s.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "issue_comment",
        "x-github-delivery": "d-busy",
        "x-hub-signature-256": sign(body),
      },
      body,
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(await refused.json()).toEqual({
      error: "unverified bodies fill the 25000 bytes held at once",
    });
    // A small delivery still fits, though the senders hold their connections.
    expect((await post(s.url, "{}")).status).toBe(202);
    for (const h of held) h.socket.destroy();
    await Promise.all(held.map((h) => h.closed));
    await sleep(50);
    // Their bytes are given back: the larger delivery fits now.
    expect((await post(s.url, body)).status).toBe(202);
    expect(
      s.lines
        .filter((l) => l.fields.status === 400)
        .map((l) => l.fields.id)
        .sort(),
    ).toEqual(["h-1", "h-2", "h-3"]);
  });

  it("answers 408 and closes the connection when a body does not arrive in time", async () => {
    const s = await serve({ bodyTimeoutMs: 300 });
    const slow = slowSender(s.url, "d-slow", 1_000, 10);
    await slow.closed;
    expect(slow.answer()).toMatch(/^HTTP\/1\.1 408 /);
    expect(s.lines.find((l) => l.fields.id === "d-slow")?.fields).toMatchObject({
      status: 408,
      reason: "the body did not arrive within 0.3 s",
    });
    // Nothing is held after it.
    expect((await post(s.url, JSON.stringify(issueComment))).status).toBe(202);
  });
});
