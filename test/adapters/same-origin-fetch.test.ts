import { afterEach, describe, expect, it } from "vitest";
import {
  CrossOriginRedirectError,
  crossOriginRedirectIn,
  sameOriginFetch,
} from "../../src/adapters/same-origin-fetch.js";
import {
  recordingServer,
  redirectingPair,
  type RecordingServer,
} from "../helpers/redirect-servers.js";

const KEY = "sk-redirect-test-5e4d3c2b1a";
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function pair(status: number) {
  const p = await redirectingPair(status);
  servers.push(p);
  return p;
}

describe("sameOriginFetch", () => {
  it.each([301, 302, 303, 307, 308])(
    "refuses a %i to another origin; the other origin never sees the request",
    async (status) => {
      const { endpoint, elsewhere } = await pair(status);
      const send = sameOriginFetch();
      const failure = await send(`${endpoint.url}/away/v1`, {
        method: "POST",
        headers: {
          "api-key": KEY,
          "x-api-key": KEY,
          authorization: `Bearer ${KEY}`,
          cookie: `s=${KEY}`,
        },
        body: "{}",
      }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(CrossOriginRedirectError);
      expect(String((failure as Error).message)).toContain(elsewhere.url);
      expect(String((failure as Error).message)).not.toContain(KEY);
      expect(endpoint.seen).toHaveLength(1);
      expect(elsewhere.seen).toEqual([]);
    },
  );

  it("plain fetch carries api-key and x-api-key to the other origin (why this exists)", async () => {
    const { endpoint, elsewhere } = await pair(307);
    const res = await fetch(`${endpoint.url}/away/v1`, {
      method: "POST",
      headers: { "api-key": KEY, "x-api-key": KEY },
      body: "{}",
    });
    expect(res.status).toBe(200);
    expect(elsewhere.seen[0]?.headers["api-key"]).toBe(KEY);
  });

  it("follows a same-origin 307 with its method, body and headers; a 303 becomes a GET", async () => {
    const server: RecordingServer = await recordingServer((path) =>
      path === "/old"
        ? { status: 307, headers: { location: "/new" } }
        : path === "/see"
          ? { status: 303, headers: { location: `${server.url}/done` } }
          : undefined,
    );
    servers.push(server);
    const send = sameOriginFetch();
    const moved = await send(new URL(`${server.url}/old`), {
      method: "POST",
      headers: { "api-key": KEY, "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(await moved.json()).toEqual({ path: "/new", method: "POST" });
    expect(server.seen[1]).toMatchObject({ body: '{"a":1}', headers: { "api-key": KEY } });
    const seeOther = await send(`${server.url}/see`, {
      method: "POST",
      body: "x",
      headers: { "content-type": "text/plain" },
    });
    expect(await seeOther.json()).toEqual({ path: "/done", method: "GET" });
    expect(server.seen[3]).toMatchObject({ body: "" });
    expect(server.seen[3]?.headers["content-type"]).toBeUndefined();
  });

  it("stops after the redirect bound; a 304 or a 3xx without Location is the answer", async () => {
    const server = await recordingServer((path) =>
      path === "/loop"
        ? { status: 302, headers: { location: "/loop" } }
        : path === "/bare"
          ? { status: 300 }
          : undefined,
    );
    servers.push(server);
    await expect(sameOriginFetch({ maxRedirects: 3 })(`${server.url}/loop`)).rejects.toThrow(
      "more than 3 redirects",
    );
    expect(server.seen).toHaveLength(4);
    expect((await sameOriginFetch()(`${server.url}/bare`)).status).toBe(300);
  });

  it("finds the refusal inside the errors an SDK wraps it in", () => {
    const refusal = new CrossOriginRedirectError("http://a", "http://b");
    expect(crossOriginRedirectIn(new Error("Connection error.", { cause: refusal }))).toBe(refusal);
    expect(crossOriginRedirectIn(new Error("other"))).toBeUndefined();
  });
});
