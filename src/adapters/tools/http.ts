import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP } from "node:net";
import { ToolError, type ToolDescriptor, type ToolProvider } from "../../runtime/tools.js";

/** A header whose value comes from an environment variable, never from the config file. */
export interface SecretHeader {
  env: string;
  prefix?: string;
}

export interface HttpToolConfig {
  name: string;
  url: string;
  method: "GET" | "POST";
  description?: string;
  headers?: Record<string, SecretHeader>;
  /** Hosts the tool may reach (its own and any it redirects to). */
  hosts: string[];
  read_only?: boolean;
  max_response_bytes?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024;
const MAX_REDIRECTS = 3;

/**
 * Addresses a tool does not reach unless its host is listed: IPv4 "this network", private,
 * loopback, shared (CGNAT), link-local, IETF and benchmarking ranges, multicast and above; IPv6
 * unspecified and loopback, IPv4-compatible (`::a.b.c.d`), NAT64 (well-known and local),
 * discard, Teredo and 6to4 (which carry any IPv4 address), unique-local, link-local, site-local
 * and multicast. An IPv4-mapped address (`::ffff:a.b.c.d`, also written `::ffff:7f00:1`) is
 * judged by its IPv4 address (node's BlockList does that).
 */
const INTERNAL = (() => {
  const list = new BlockList();
  const v4: [string, number][] = [
    ["0.0.0.0", 8],
    ["10.0.0.0", 8],
    ["100.64.0.0", 10],
    ["127.0.0.0", 8],
    ["169.254.0.0", 16],
    ["172.16.0.0", 12],
    ["192.0.0.0", 24],
    ["192.168.0.0", 16],
    ["198.18.0.0", 15],
    ["224.0.0.0", 3],
  ];
  const v6: [string, number][] = [
    ["::", 96],
    ["64:ff9b::", 96],
    ["64:ff9b:1::", 48],
    ["100::", 64],
    ["2001::", 32],
    ["2002::", 16],
    ["fc00::", 7],
    ["fe80::", 10],
    ["fec0::", 10],
    ["ff00::", 8],
  ];
  for (const [net, bits] of v4) list.addSubnet(net, bits, "ipv4");
  for (const [net, bits] of v6) list.addSubnet(net, bits, "ipv6");
  return list;
})();

/** Whether an address is internal (see `INTERNAL`); anything that is no IP address counts as one. */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  try {
    return INTERNAL.check(address, family === 4 ? "ipv4" : "ipv6");
  } catch {
    return true;
  }
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
}

function isLoopbackName(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

/** Why the URL may not be requested, or undefined. */
export function urlProblem(url: URL, hosts: readonly string[]): string | undefined {
  const host = hostOf(url);
  if (!hosts.includes(host)) return `host ${host} is not in the tool's hosts allowlist`;
  if (url.username || url.password)
    return "the URL carries credentials; use headers with env names";
  if (url.protocol === "https:") return undefined;
  if (url.protocol === "http:" && isLoopbackName(host)) return undefined;
  return `${url.protocol} is not allowed: use https (http only for a loopback host)`;
}

/** A lookup that refuses internal addresses unless the allowlist names that host explicitly. */
export function guardedLookup(hosts: readonly string[]) {
  return (
    hostname: string,
    options: object,
    callback: (
      err: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const explicit = hosts.includes(hostname.toLowerCase());
      const bad = addresses.find(
        (a) =>
          isInternalAddress(a.address) &&
          !(explicit && isIP(hostname) !== 0) &&
          !(explicit && isLoopbackName(hostname.toLowerCase())),
      );
      if (bad)
        return callback(
          Object.assign(new Error(`${hostname} resolves to an internal address`), {
            code: "EINTERNAL",
          }),
          [],
        );
      const wantsAll = (options as { all?: boolean }).all === true;
      if (wantsAll) return callback(null, addresses);
      const first = addresses[0];
      return first
        ? callback(null, first.address, first.family)
        : callback(new Error(`${hostname} has no address`), []);
    });
  };
}

interface RawResponse {
  status: number;
  location?: string;
  contentType: string;
  body: Buffer;
}

function send(
  url: URL,
  init: {
    method: string;
    headers: Record<string, string>;
    body?: string;
    hosts: readonly string[];
    maxBytes: number;
    signal: AbortSignal;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const host = hostOf(url);
    // An IP literal never goes through lookup: check it here.
    if (isIP(host) !== 0 && isInternalAddress(host) && !init.hosts.includes(host))
      return reject(
        new ToolError("TOOL-DENIED", `${host} is an internal address not named in hosts`),
      );
    const requester = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = requester(
      url,
      {
        method: init.method,
        headers: init.headers,
        lookup: guardedLookup(init.hosts),
        signal: init.signal,
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > init.maxBytes) {
            res.destroy();
            reject(
              new ToolError("TOOL-TOO-LARGE", `the response is larger than ${init.maxBytes} bytes`),
            );
            return;
          }
          chunks.push(chunk);
        });
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            location: res.headers.location,
            contentType: res.headers["content-type"] ?? "",
            body: Buffer.concat(chunks),
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", (err: NodeJS.ErrnoException) =>
      reject(err.code === "EINTERNAL" ? new ToolError("TOOL-DENIED", err.message) : err),
    );
    req.end(init.body);
  });
}

function queryValue(v: unknown): string | undefined {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean"
    ? String(v)
    : undefined;
}

/** One group of HTTP tools a deployment allows, under the server name `http`. */
export function httpTools(
  configs: readonly HttpToolConfig[],
  env: NodeJS.ProcessEnv,
  server = "http",
): ToolProvider & { secrets: string[] } {
  const byName = new Map(configs.map((c) => [c.name, c]));
  const secrets: string[] = [];
  const headersOf = new Map<string, Record<string, string>>();
  for (const c of configs) {
    const headers: Record<string, string> = {};
    for (const [name, h] of Object.entries(c.headers ?? {})) {
      const value = env[h.env];
      if (value === undefined || value === "")
        throw new Error(
          `HTTP tool ${c.name}: header ${name} needs the environment variable ${h.env}, which is not set`,
        );
      secrets.push(value);
      headers[name] = `${h.prefix ?? ""}${value}`;
    }
    headersOf.set(c.name, headers);
  }
  return {
    server,
    secrets,
    describe: async (tool): Promise<ToolDescriptor | undefined> => {
      const c = byName.get(tool);
      return c
        ? {
            name: `${server}/${tool}`,
            server,
            tool,
            readOnly: c.read_only ?? c.method === "GET",
            allowWrites: c.method === "POST" && c.read_only !== true,
            description: c.description ?? `${c.method} ${new URL(c.url).host}`,
          }
        : undefined;
    },
    call: async (tool, args, signal) => {
      const c = byName.get(tool);
      if (!c) throw new ToolError("TOOL-UNKNOWN", `${server} has no tool ${tool}`);
      let url = new URL(c.url);
      const headers: Record<string, string> = {
        accept: "application/json",
        ...headersOf.get(tool),
      };
      let body: string | undefined;
      if (c.method === "GET") {
        for (const [k, v] of Object.entries(args)) {
          const s = queryValue(v);
          if (s !== undefined) url.searchParams.set(k, s);
        }
      } else {
        body = JSON.stringify(args);
        headers["content-type"] = "application/json";
      }
      const maxBytes = c.max_response_bytes ?? DEFAULT_MAX_RESPONSE_BYTES;
      for (let hop = 0; ; hop++) {
        const problem = urlProblem(url, c.hosts);
        if (problem)
          throw new ToolError("TOOL-DENIED", hop === 0 ? problem : `redirect refused: ${problem}`);
        const res = await send(url, {
          method: c.method,
          headers,
          body,
          hosts: c.hosts,
          maxBytes,
          signal,
        });
        if (res.status >= 300 && res.status < 400 && res.location) {
          if (hop >= MAX_REDIRECTS)
            throw new ToolError("TOOL-FAILED", `more than ${MAX_REDIRECTS} redirects`);
          const next = new URL(res.location, url);
          // The configured credentials are for the configured origin only (scheme, host and port).
          if (next.origin !== url.origin)
            for (const h of Object.keys(c.headers ?? {})) delete headers[h];
          url = next;
          continue;
        }
        const text = res.body.toString("utf8");
        if (res.status >= 400)
          throw new ToolError(
            "TOOL-FAILED",
            `the server answered ${res.status}: ${text.slice(0, 300)}`,
          );
        if (res.contentType.includes("json")) {
          try {
            return JSON.parse(text) as unknown;
          } catch {
            throw new ToolError("TOOL-FAILED", "the server's answer is not valid JSON");
          }
        }
        return text;
      }
    },
  };
}
