/**
 * More of what a page elsewhere, a sandboxed frame or a hostile playbook author could try against
 * the playground's loopback servers: an opaque origin, request smuggling, paths that leave the
 * playbook folder, the token anywhere but its header, and comments built to run in the page.
 */
import { connect } from "node:net";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Playground, TOKEN_HEADER } from "../../../src/entries/playground/server.js";

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
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body = "",
  to = port,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: to, method, path, headers }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Raw bytes on a socket: what a smuggling client sends, and the server's whole answer. */
function raw(to: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(to, "127.0.0.1", () => socket.end(bytes));
    let got = "";
    socket.on("data", (c: Buffer) => (got += c.toString()));
    socket.on("close", () => resolve(got));
    socket.on("error", () => resolve(got));
  });
}

const own = () => ({ host: `127.0.0.1:${port}`, [TOKEN_HEADER]: token });
const json = { "content-type": "application/json" };

describe("the playground's page API", () => {
  it("refuses an opaque origin (a sandboxed frame, a file:// page) even with the token", async () => {
    const answer = await send(
      "POST",
      "/api/people",
      { ...own(), ...json, origin: "null" },
      JSON.stringify({ login: "mallory", permission: "admin" }),
    );
    expect(answer.status).toBe(403);
    expect(pg.sandbox.api.permissions.has("mallory")).toBe(false);
  });

  it("takes the token from its header only, and grants no cross-origin reads", async () => {
    const inQuery = await send("GET", `/api/state?${TOKEN_HEADER}=${token}`, {
      host: `127.0.0.1:${port}`,
    });
    expect(inQuery.status).toBe(403);
    const preflight = await send("OPTIONS", "/api/state", {
      ...own(),
      origin: "https://attacker.example",
      "access-control-request-method": "GET",
    });
    expect(preflight.status).toBe(403);
    const ok = await send("GET", "/api/state", own());
    expect(ok.status).toBe(200);
    for (const a of [preflight, ok])
      expect(Object.keys(a.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
  });

  it.each([
    "../x.yml",
    "a/../../x.yml",
    "/etc/x.yml",
    "a\\b.yml",
    "x.yml\u0000.txt",
    "\uff58.yml",
    ".github/x.yml",
    "a/b/c/d/e.yml",
    "x.YML.sh",
  ])("saves no playbook named %j", async (file) => {
    const answer = await send(
      "PUT",
      "/api/playbooks",
      { ...own(), ...json },
      JSON.stringify({ file, text: "apiVersion: playbook-bot/v1\n" }),
    );
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text).error).toMatch(/^file: /);
  });

  it("shows hostile comments inert: no script, handler, javascript: link, frame, form or base", async () => {
    const created = await send(
      "POST",
      "/api/issues",
      { ...own(), ...json },
      JSON.stringify({ title: "t", body: "", author: "erin" }),
    );
    const { number } = JSON.parse(created.text) as { number: number };
    const hostile = [
      "<script>window.pwned=1</script>",
      "<img src=x onerror=alert(1)>",
      "[x](javascript:alert(1))",
      '<a href="&#106;avascript:alert(1)">a</a>',
      '<a href="data:text/html,<script>1</script>">d</a>',
      '<iframe srcdoc="<script>1</script>"></iframe>',
      "<form action=/api/people><button>b</button></form>",
      '<meta http-equiv=refresh content="0;url=http://attacker.example">',
      '<base href="http://attacker.example/">',
      "<details open ontoggle=alert(1)>x</details>",
      "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
      '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
      '<div style="background:url(http://attacker.example)">s</div>',
    ].join("\n\n");
    const posted = await send(
      "POST",
      `/api/issues/${number}/comments`,
      { ...own(), ...json },
      JSON.stringify({ author: "erin", body: hostile }),
    );
    expect(posted.status).toBe(200);
    const issue = JSON.parse((await send("GET", `/api/issues/${number}`, own())).text) as {
      comments: { author: string; html: string }[];
    };
    const html = issue.comments.find((c) => c.author === "erin")?.html ?? "";
    expect(html).not.toBe("");
    // Only text may carry these words (escaped); no element or attribute does.
    expect(html).not.toMatch(/<(script|iframe|form|meta|base|style|object|embed|math|svg)\b/i);
    expect(html).not.toMatch(/<[^>]*\s(on[a-z]+|style|srcdoc|action|formaction)\s*=/i);
    expect(html).not.toMatch(/href="(?!https?:|#|mailto:)/i);
  });
});

describe("request smuggling", () => {
  it("a body with both Content-Length and chunked encoding is refused by every server", async () => {
    const targets = [port, new URL(pg.sandbox.apiUrl).port, new URL(pg.sandbox.webhookUrl).port];
    for (const to of targets.map(Number)) {
      const body = JSON.stringify({ login: "smuggled", permission: "admin" });
      const answer = await raw(
        to,
        `POST /api/people HTTP/1.1\r\nHost: 127.0.0.1:${to}\r\n${TOKEN_HEADER}: ${token}\r\n` +
          `content-type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n` +
          `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 400/);
    }
    expect(pg.sandbox.api.permissions.has("smuggled")).toBe(false);
  });
});
