/**
 * The playground's three loopback servers (its page and API, the in-memory GitHub, the app) as a
 * page on another site, a rebinding name or a careless client would reach them: every request
 * here is one the servers must refuse, and nothing it asked for may happen.
 */
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Playground, TOKEN_HEADER } from "../../../src/entries/playground/server.js";
import { readBundledBeside } from "../../../src/entries/playground/workbench.js";

let pg: Playground;
let port: number;
let token: string;

beforeAll(async () => {
  pg = await Playground.start({ port: 0, wakeUpPollMs: false });
  port = Number(new URL(pg.url).port);
  const page = await (await fetch(`${pg.url}/`)).text();
  token = /<meta name="playground-token" content="([^"]*)"/.exec(page)?.[1] ?? "";
});
afterAll(async () => pg.close());

interface Answer {
  status: number;
  text: string;
  /** Body bytes the client got to send before the answer (or the connection's end). */
  written: number;
}

/**
 * A raw request to a loopback port. `bodyBytes` of spaces are streamed in 64 KiB chunks, as fast
 * as the server takes them, until it answers or closes; bounded in time.
 */
function send(
  to: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | { bodyBytes: number } = "",
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let written = 0;
    let status = 0;
    let text = "";
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ status, text, written });
    };
    const timer = setTimeout(() => {
      settled = true;
      req.destroy();
      reject(new Error(`no answer in 20 s (${written} bytes sent)`));
    }, 20_000);
    const req = request({ host: "127.0.0.1", port: to, method, path, headers }, (res) => {
      status = res.statusCode ?? 0;
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", finish);
      res.on("error", finish);
    });
    req.on("error", finish);
    req.on("close", () => setTimeout(finish, 50));
    if (typeof body === "string") {
      written = Buffer.byteLength(body);
      req.end(body);
      return;
    }
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => {
      while (!settled && written < body.bodyBytes) {
        written += chunk.length;
        if (!req.write(chunk)) {
          req.once("drain", pump);
          return;
        }
      }
      if (!settled) req.end();
    };
    pump();
  });
}

const own = () => ({ host: `127.0.0.1:${port}` });
const json = { "content-type": "application/json" };
const MALLORY = JSON.stringify({ login: "mallory", permission: "admin" });

describe("the playground's page and API refuse what its page would not send", () => {
  it("writes a fresh token into its page, and serves its API with it", async () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const other = await Playground.start({ port: 0, wakeUpPollMs: false });
    try {
      const page = await (await fetch(`${other.url}/`)).text();
      expect(page).toContain('<meta name="playground-token" content="');
      expect(page).not.toContain(token);
    } finally {
      await other.close();
    }
    const state = await send(port, "GET", "/api/state", { ...own(), [TOKEN_HEADER]: token });
    expect(state.status).toBe(200);
    expect(JSON.parse(state.text).repository).toBe("playground/sandbox");
  });

  it("refuses a rebinding name, a foreign origin, a form's type and a missing or wrong token", async () => {
    const cases: [string, Record<string, string>, number, RegExp][] = [
      [
        "rebinding host",
        { host: `attacker.example:${port}`, [TOKEN_HEADER]: token, ...json },
        403,
        /127\.0\.0\.1/,
      ],
      [
        "another port",
        { host: `127.0.0.1:${port + 1}`, [TOKEN_HEADER]: token, ...json },
        403,
        /127\.0\.0\.1/,
      ],
      [
        "foreign origin",
        { ...own(), origin: "https://attacker.example", [TOKEN_HEADER]: token, ...json },
        403,
        /own page/,
      ],
      ["no token", { ...own(), ...json }, 403, /missing/],
      [
        "wrong token",
        // Another last character: one that is never the token's own.
        {
          ...own(),
          [TOKEN_HEADER]: `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`,
          ...json,
        },
        403,
        /wrong/,
      ],
      [
        "text/plain",
        {
          ...own(),
          origin: `http://127.0.0.1:${port}`,
          [TOKEN_HEADER]: token,
          "content-type": "text/plain",
        },
        415,
        /application\/json/,
      ],
      [
        "json look-alike",
        { ...own(), [TOKEN_HEADER]: token, "content-type": "application/jsonx" },
        415,
        /application\/json/,
      ],
    ];
    for (const [what, headers, status, error] of cases) {
      const answer = await send(port, "POST", "/api/people", headers, MALLORY);
      expect({ what, status: answer.status }).toEqual({ what, status });
      expect(JSON.parse(answer.text).error).toMatch(error);
    }
    // A read without the token is refused too: the page's state is the page's.
    expect((await send(port, "GET", "/api/state", own())).status).toBe(403);
    expect(pg.sandbox.api.permissions.has("mallory")).toBe(false);
    // The page itself is served to anyone who names the server rightly (it is how one gets the token).
    expect((await send(port, "GET", "/", own())).status).toBe(200);
  });

  it("stops reading a 64 MiB body at the cap and answers 413", async () => {
    const headers = { ...own(), [TOKEN_HEADER]: token, ...json };
    const started = Date.now();
    const streamed = await send(port, "POST", "/api/check", headers, {
      bodyBytes: 64 * 1024 * 1024,
    });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.text).error).toMatch(/at most 2097152 bytes/);
    // The server closed the connection: far less than the body was sent, and soon.
    expect(streamed.written).toBeLessThan(16 * 1024 * 1024);
    expect(Date.now() - started).toBeLessThan(10_000);
    const declared = await send(
      port,
      "POST",
      "/api/check",
      { ...headers, "content-length": String(64 * 1024 * 1024) },
      { bodyBytes: 64 * 1024 * 1024 },
    );
    expect(declared.status).toBe(413);
    expect(declared.written).toBeLessThan(16 * 1024 * 1024);
    // The server still answers afterwards.
    expect(
      (await send(port, "GET", "/api/state", { ...own(), [TOKEN_HEADER]: token })).status,
    ).toBe(200);
  });

  it("takes a copy's origin only from the bundled library: no .., no absolute path, no unknown file", async () => {
    const check = (from: string, text = "") =>
      send(
        port,
        "POST",
        "/api/check",
        { ...own(), [TOKEN_HEADER]: token, ...json },
        JSON.stringify({ file: "copy.yml", text, from }),
      );
    for (const from of [
      "bundled/../..",
      "bundled/../../package.json",
      "bundled//etc/passwd",
      "/etc/passwd",
      "bundled/./hello-world.yaml",
      "bundled\\..\\x",
    ]) {
      const answer = await check(from);
      expect({ from, status: answer.status }).toEqual({ from, status: 400 });
      expect(JSON.parse(answer.text).error).toMatch(/^from: a bundled playbook's name/);
    }
    const unknown = await check("bundled/no-such-playbook.yaml");
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text).error).toBe(
      "from: the bundled library has no bundled/no-such-playbook.yaml",
    );
    // Files beside a bundled playbook are read only inside the library, links followed.
    expect(readBundledBeside("bundled/hello-world.yaml", "templates/hello.md")).toBe(
      readFileSync("playbooks/templates/hello.md", "utf8"),
    );
    expect(readBundledBeside("bundled/hello-world.yaml", "../package.json")).toBeUndefined();
    expect(readBundledBeside("bundled/hello-world.yaml", "/etc/hostname")).toBeUndefined();
    expect(readBundledBeside("bundled/../../x.yaml", "package.json")).toBeUndefined();
  });
});

type Definition = { name: string; examples: Record<string, unknown>[] };
const examples = createRequire(import.meta.url)(
  "@octokit/webhooks-examples/api.github.com/index.json",
) as Definition[];
/** GitHub's own `issue_comment.created` example: a delivery as a page elsewhere would forge it. */
const commentCreated = JSON.stringify(
  examples.find((d) => d.name === "issue_comment")!.examples.find((e) => e.action === "created"),
);

describe("the sandbox's GitHub and app refuse anyone but each other", () => {
  const apiPort = () => Number(new URL(pg.sandbox.apiUrl).port);
  const appPort = () => Number(new URL(pg.sandbox.webhookUrl).port);

  it("the in-memory GitHub takes no cross-site post, no rebinding name, no request not signed as the app's", async () => {
    const issue = await pg.sandbox.openIssue("target", "", "alice");
    const comments = `/repos/playground/sandbox/issues/${issue}/comments`;
    const before = pg.sandbox.api.comments.size;
    const body = JSON.stringify({ body: "I am the bot" });
    const host = { host: `127.0.0.1:${apiPort()}` };
    const cases: [string, Record<string, string>, number][] = [
      // What a page elsewhere can send without asking first: a form's type, no credentials.
      [
        "text/plain post",
        { ...host, origin: "https://attacker.example", "content-type": "text/plain" },
        403,
      ],
      ["text/plain, no origin", { ...host, "content-type": "text/plain" }, 415],
      [
        "rebinding host",
        { host: `attacker.example:${apiPort()}`, ...json, authorization: "token ghs_fake1" },
        403,
      ],
      ["no credentials", { ...host, ...json }, 401],
      ["the old guessable token", { ...host, ...json, authorization: "token ghs_fake1" }, 401],
      [
        "a JWT not signed by the app",
        { ...host, ...json, authorization: "bearer e30.e30.c2ln" },
        401,
      ],
    ];
    for (const [what, headers, status] of cases) {
      const answer = await send(apiPort(), "POST", comments, headers, body);
      expect({ what, status: answer.status }).toEqual({ what, status });
      expect(JSON.parse(answer.text).error).toMatch(/./);
    }
    const flood = await send(
      apiPort(),
      "POST",
      comments,
      { ...host, ...json },
      { bodyBytes: 64 * 1024 * 1024 },
    );
    expect(flood.status).toBe(401);
    expect(flood.written).toBeLessThan(16 * 1024 * 1024);
    expect(pg.sandbox.api.comments.size).toBe(before);
    // The app's own requests still pass: a comment as a person brings its answer.
    await pg.sandbox.label(issue, "hello", "carol");
    expect(pg.sandbox.api.comments.size).toBeGreaterThan(before);
    expect(pg.sandbox.deliveries.every((d) => d.status === 200)).toBe(true);
  });

  it("the app takes no delivery by a rebinding name, from a page, of another type, or too large", async () => {
    const host = { host: `127.0.0.1:${appPort()}` };
    const path = "/api/github/webhooks";
    const hook = { "x-github-event": "issue_comment", "x-github-delivery": "forged" };
    const cases: [string, Record<string, string>, number][] = [
      ["rebinding host", { host: `attacker.example:${appPort()}`, ...json, ...hook }, 403],
      ["from a page", { ...host, origin: "https://attacker.example", ...json, ...hook }, 403],
      ["text/plain", { ...host, "content-type": "text/plain", ...hook }, 415],
    ];
    for (const [what, headers, status] of cases) {
      const answer = await send(appPort(), "POST", path, headers, commentCreated);
      expect({ what, status: answer.status }).toEqual({ what, status });
    }
    const declared = await send(
      appPort(),
      "POST",
      path,
      { ...host, ...json, ...hook, "content-length": String(64 * 1024 * 1024) },
      { bodyBytes: 64 * 1024 * 1024 },
    );
    expect(declared.status).toBe(413);
    expect(declared.written).toBeLessThan(16 * 1024 * 1024);
    const chunked = await send(
      appPort(),
      "POST",
      path,
      { ...host, ...json, ...hook },
      { bodyBytes: 64 * 1024 * 1024 },
    );
    expect(chunked.status).toBe(411);
    expect(chunked.written).toBeLessThan(16 * 1024 * 1024);
  });
});
