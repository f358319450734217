import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  guardedLookup,
  httpTools,
  isInternalAddress,
  type HttpToolConfig,
} from "../../../src/adapters/tools/http.js";
import { createToolsPort } from "../../../src/runtime/tools.js";
import { redirectingPair } from "../../helpers/redirect-servers.js";

const SECRET = "tok-9f8e7d6c5b4a";
let server: Server;
let base: string;
let hits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    const url = new URL(req.url ?? "/", "http://x");
    const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/status") {
      if (req.headers.authorization !== `Bearer ${SECRET}`) return json(401, { error: "no token" });
      return json(200, { service: url.searchParams.get("service"), healthy: true });
    }
    if (url.pathname === "/echo") return json(200, { saw: req.headers.authorization });
    if (url.pathname === "/fail")
      return json(500, { error: `bad token ${String(req.headers.authorization)}` });
    if (url.pathname === "/post") {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => json(200, { got: JSON.parse(body) as unknown }));
      return;
    }
    if (url.pathname === "/hop") return json(302, {}, { location: "/status?service=hop" });
    if (url.pathname === "/away")
      return json(302, {}, { location: "http://169.254.169.254/latest/meta-data" });
    if (url.pathname === "/away-name")
      return json(
        302,
        {},
        { location: `http://localhost:${(server.address() as AddressInfo).port}/echo` },
      );
    if (url.pathname === "/huge") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("x".repeat(1024 * 1024));
      return;
    }
    if (url.pathname === "/hang") return; // never answers
    if (url.pathname === "/text")
      return res.writeHead(200, { "content-type": "text/plain" }).end("plain words");
    if (url.pathname === "/badjson")
      return res.writeHead(200, { "content-type": "application/json" }).end("{nope");
    if (url.pathname === "/loop") return json(302, {}, { location: "/loop" });
    json(404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const auth = { Authorization: { env: "STATUS_TOKEN", prefix: "Bearer " } };
function tool(name: string, path: string, extra: Partial<HttpToolConfig> = {}): HttpToolConfig {
  return {
    name,
    url: `${base}${path}`,
    method: "GET",
    hosts: ["127.0.0.1"],
    headers: auth,
    ...extra,
  };
}
function portOf(configs: HttpToolConfig[]) {
  const provider = httpTools(configs, { STATUS_TOKEN: SECRET });
  return createToolsPort([provider], { secrets: provider.secrets, defaultDeadlineMs: 2000 });
}

describe("HTTP tools", () => {
  it("call the configured URL with the secret header from the environment", async () => {
    const port = portOf([tool("status", "/status")]);
    expect(await port.describe("http/status")).toMatchObject({ readOnly: true });
    expect(await port.call("http/status", { service: "cart" })).toMatchObject({
      ok: true,
      result: { service: "cart", healthy: true },
    });
  });

  it("send POST arguments as JSON, and need approval to do so", async () => {
    const port = portOf([tool("create", "/post", { method: "POST" })]);
    expect(await port.call("http/create", { a: 1 })).toMatchObject({
      ok: false,
      code: "TOOL-DENIED",
    });
    expect(await port.call("http/create", { a: 1 }, { writeApproved: true })).toMatchObject({
      ok: true,
      result: { got: { a: 1 } },
    });
  });

  it("refuse a host that is not on the allowlist without sending anything", async () => {
    const before = hits;
    const port = portOf([tool("status", "/status", { hosts: ["status.example.com"] })]);
    const outcome = await port.call("http/status", {});
    expect(outcome).toMatchObject({
      ok: false,
      code: "TOOL-DENIED",
      message: expect.stringContaining("allowlist"),
    });
    expect(hits).toBe(before);
  });

  it("refuse plain http to a host that is not loopback", async () => {
    const port = portOf([
      {
        name: "s",
        url: "http://status.example.com/x",
        method: "GET",
        hosts: ["status.example.com"],
      },
    ]);
    expect(await port.call("http/s", {})).toMatchObject({
      ok: false,
      code: "TOOL-DENIED",
      message: expect.stringContaining("https"),
    });
  });

  it("follow a redirect on the allowed host", async () => {
    const port = portOf([tool("hop", "/hop")]);
    expect(await port.call("http/hop", {})).toMatchObject({ ok: true, result: { service: "hop" } });
  });

  it.each(["/away", "/away-name"])("refuse a redirect off the allowed host (%s)", async (path) => {
    const port = portOf([tool("away", path)]);
    const outcome = await port.call("http/away", {});
    expect(outcome).toMatchObject({
      ok: false,
      code: "TOOL-DENIED",
      message: expect.stringContaining("redirect refused"),
    });
    expect(JSON.stringify(outcome)).not.toContain(SECRET);
  });

  it("refuse a response over the size cap", async () => {
    const port = portOf([tool("huge", "/huge", { max_response_bytes: 4096 })]);
    expect(await port.call("http/huge", {})).toMatchObject({ ok: false, code: "TOOL-TOO-LARGE" });
  });

  it("give up on a server that never answers", async () => {
    const port = portOf([tool("hang", "/hang")]);
    const started = Date.now();
    expect(await port.call("http/hang", {}, { deadlineMs: 200 })).toMatchObject({
      ok: false,
      code: "TOOL-TIMEOUT",
    });
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("keep the secret out of results and errors even when the server echoes it", async () => {
    const port = portOf([tool("echo", "/echo"), tool("fail", "/fail")]);
    const echoed = await port.call("http/echo", {});
    const failed = await port.call("http/fail", {});
    expect(echoed.ok).toBe(true);
    expect(failed).toMatchObject({ ok: false, code: "TOOL-FAILED" });
    expect(JSON.stringify([echoed, failed])).not.toContain(SECRET);
  });

  it("refuse to start when a header's variable is unset, naming the variable only", () => {
    expect(() => httpTools([tool("status", "/status")], {})).toThrow(/STATUS_TOKEN/);
  });

  it("refuse the metadata address when the allowlist does not name it", async () => {
    const port = portOf([
      {
        name: "meta",
        url: "http://169.254.169.254/latest",
        method: "GET",
        hosts: ["metadata.example.com"],
      },
    ]);
    expect(await port.call("http/meta", {})).toMatchObject({ ok: false, code: "TOOL-DENIED" });
  });
});

describe("HTTP tools' other answers", () => {
  it("return text that is not JSON as text", async () => {
    expect(await portOf([tool("t", "/text")]).call("http/t", {})).toMatchObject({
      ok: true,
      result: "plain words",
    });
  });
  it("fail on broken JSON, endless redirects and error statuses", async () => {
    const port = portOf([tool("bad", "/badjson"), tool("loop", "/loop"), tool("gone", "/gone")]);
    expect(await port.call("http/bad", {})).toMatchObject({
      ok: false,
      code: "TOOL-FAILED",
      message: expect.stringContaining("not valid JSON"),
    });
    expect(await port.call("http/loop", {})).toMatchObject({
      ok: false,
      code: "TOOL-FAILED",
      message: expect.stringContaining("redirects"),
    });
    expect(await port.call("http/gone", {})).toMatchObject({
      ok: false,
      code: "TOOL-FAILED",
      message: expect.stringContaining("404"),
    });
  });
  it.each(["ftp://127.0.0.1/x", "https://user:pw@127.0.0.1/x"])(
    "refuse the URL %s",
    async (url) => {
      const port = portOf([{ name: "u", url, method: "GET", hosts: ["127.0.0.1"] }]);
      expect(await port.call("http/u", {})).toMatchObject({ ok: false, code: "TOOL-DENIED" });
    },
  );
  it("describe a POST tool marked read_only as read-only", async () => {
    const port = portOf([tool("search", "/post", { method: "POST", read_only: true })]);
    expect(await port.describe("http/search")).toMatchObject({
      readOnly: true,
      allowWrites: false,
    });
    expect(await port.call("http/search", { q: "x" })).toMatchObject({
      ok: true,
      result: { got: { q: "x" } },
    });
  });
});

describe("isInternalAddress", () => {
  it.each([
    "10.1.2.3",
    "127.0.0.1",
    "169.254.169.254",
    "172.16.0.1",
    "192.168.1.1",
    "0.0.0.0",
    "::1",
    "fd00::1",
    "fe80::1",
    "::ffff:10.0.0.1",
    "100.64.0.1",
    "224.0.0.1",
  ])("%s is internal", (a) => expect(isInternalAddress(a)).toBe(true));
  it.each([
    ["NAT64, well-known prefix", "64:ff9b::7f00:1"],
    ["NAT64, well-known prefix, dotted", "64:ff9b::10.0.0.1"],
    ["NAT64, local-use prefix", "64:ff9b:1::a00:1"],
    ["site-local", "fec0::1"],
    ["site-local, upper end", "feff::1"],
    ["IPv4-compatible", "::127.0.0.1"],
    ["IPv4-compatible, hex", "::a9fe:a9fe"],
    ["IPv4-mapped in hex", "::ffff:7f00:1"],
    ["IPv4-mapped in hex, metadata", "::ffff:a9fe:a9fe"],
    ["6to4", "2002:7f00:1::1"],
    ["Teredo", "2001:0:4136:e378::1"],
    ["multicast", "ff02::1"],
    ["not an address", "localhost"],
  ])("%s (%s) is internal", (_, a) => expect(isInternalAddress(a)).toBe(true));
  it.each([
    "8.8.8.8",
    "172.32.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "2001:db8:1::1",
    "2a00:1450::1",
  ])("%s is not", (a) => expect(isInternalAddress(a)).toBe(false));
});

describe("guardedLookup", () => {
  const resolve = (hosts: string[], name: string) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((done) =>
      guardedLookup(hosts)(name, {}, (err, address) => done({ err, address })),
    );

  it("refuses a name that resolves to an internal address", async () => {
    const { err } = await resolve(["status.example.com"], "localhost");
    expect(err?.message).toContain("internal address");
  });

  it("lets a loopback host through when the allowlist names it", async () => {
    const { err, address } = await resolve(["localhost"], "localhost");
    expect(err).toBeNull();
    expect(typeof address).toBe("string");
  });
});

describe("an HTTP tool redirected to another origin its hosts allow", () => {
  it.each([302, 307])(
    "%i: the request arrives there without the configured headers",
    async (status) => {
      const pair = await redirectingPair(status);
      try {
        const provider = httpTools(
          [
            {
              name: "moved",
              url: `${pair.endpoint.url}/away/status`,
              method: "POST",
              hosts: ["127.0.0.1"],
              headers: { ...auth, "x-api-key": { env: "STATUS_TOKEN" } },
            },
          ],
          { STATUS_TOKEN: SECRET },
        );
        const port = createToolsPort([provider], {
          secrets: provider.secrets,
          defaultDeadlineMs: 2000,
        });
        const outcome = await port.call("http/moved", { service: "cart" }, { writeApproved: true });
        expect(outcome).toMatchObject({ ok: true, result: { path: "/away/status" } });
        expect(pair.endpoint.seen[0]?.headers["x-api-key"]).toBe(SECRET);
        expect(pair.elsewhere.seen).toHaveLength(1);
        expect(JSON.stringify(pair.elsewhere.seen[0]?.headers)).not.toContain(SECRET);
      } finally {
        await pair.close();
      }
    },
  );
});
