import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Refusal } from "../../../src/entries/playground/guard.js";
import { editorScript, Playground, TOKEN_HEADER } from "../../../src/entries/playground/server.js";

let pg: Playground;
/** The token the page carries, as the page's script reads it. */
let token: string;

beforeAll(async () => {
  pg = await Playground.start({ port: 0, wakeUpPollMs: false });
  const page = await (await fetch(`${pg.url}/`)).text();
  token = /<meta name="playground-token" content="([^"]+)"/.exec(page)![1]!;
});
afterAll(async () => pg.close());

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${pg.url}${path}`, {
    method,
    headers: {
      [TOKEN_HEADER]: token,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, read field by field
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** A raw request, with headers a browser page elsewhere (or a rebinding name) would send. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body = "",
): Promise<{ status: number; text: string }> {
  const { port } = new URL(pg.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const BROKEN = [
  "apiVersion: playbook-bot/v1",
  "id: broken",
  "steps:",
  "  - id: look",
  "    type: investigate",
  "    next: nowhere",
  "  - id: hand",
  "    type: playbook",
  "    mode: handoff",
  "    playbook: no-such-playbook",
  "",
].join("\n");

describe("the playground's page and API", () => {
  it("serves the page with a strict content security policy, and Mermaid's bundle", async () => {
    const page = await fetch(`${pg.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script type="module" src="/app.js">');
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const mermaid = await fetch(`${pg.url}/vendor/mermaid.min.js`);
    expect(mermaid.status).toBe(200);
    expect((await mermaid.text()).length).toBeGreaterThan(1_000_000);
  });

  it("serves its editor itself, built from the sources here, with the policy unchanged", async () => {
    const editor = await fetch(`${pg.url}/editor.js`);
    expect(editor.status).toBe(200);
    expect(editor.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const code = await editor.text();
    // CodeMirror, and the language server's completion and hover.
    expect(code).toContain("cm-editor");
    expect(code).toContain("createPlaybookEditor");
    // Nothing in it may need more than the page's policy allows: no eval, no other origin.
    const csp = editor.headers.get("content-security-policy") ?? "";
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).toMatch(/script-src 'self';/);
    expect(csp).toMatch(/connect-src 'self';/);
    // The page's first paint names the repository; the state tells completion each kind's outputs.
    expect(await (await fetch(`${pg.url}/`)).text()).toContain(
      '<span id="repository">playground/sandbox</span>',
    );
    const state = await api("GET", "/api/state");
    expect(state.body.kindOutputs.branch).toEqual(expect.arrayContaining(["name", "sha"]));
  });

  it("serves the editor the build put beside the page, and says so when there is none", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pb-editor-"));
    try {
      writeFileSync(join(dir, "editor.js"), "export const built = true;\n");
      expect(await editorScript(dir, null)).toBe("export const built = true;\n");
      rmSync(join(dir, "editor.js"));
      await expect(editorScript(dir, null)).rejects.toBeInstanceOf(Refusal);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("answers only requests addressed to it by its loopback name, and takes changes only as JSON from itself", async () => {
    const { port } = new URL(pg.url);
    const rebound = await raw("GET", "/api/state", { host: `attacker.example:${port}` });
    expect(rebound.status).toBe(403);
    const cross = await raw(
      "POST",
      "/api/people",
      {
        host: `127.0.0.1:${port}`,
        origin: "https://attacker.example",
        "content-type": "application/json",
        [TOKEN_HEADER]: token,
      },
      JSON.stringify({ login: "mallory", permission: "admin" }),
    );
    expect(cross.status).toBe(403);
    const form = await raw(
      "POST",
      "/api/people",
      { host: `127.0.0.1:${port}`, "content-type": "text/plain", [TOKEN_HEADER]: token },
      JSON.stringify({ login: "mallory", permission: "admin" }),
    );
    expect(form.status).toBe(415);
    expect(pg.sandbox.api.permissions.has("mallory")).toBe(false);
    const big = await raw(
      "POST",
      "/api/check",
      { host: `localhost:${port}`, "content-type": "application/json", [TOKEN_HEADER]: token },
      JSON.stringify({ file: "a.yml", text: "x".repeat(3 * 1024 * 1024) }),
    );
    expect(big.status).toBe(413);
  });

  it("refuses bad input with a clear reason", async () => {
    expect(await api("POST", "/api/people", { login: "-bad", permission: "write" })).toEqual({
      status: 400,
      body: { error: "a login has letters, digits and single hyphens (at most 39)" },
    });
    expect((await api("POST", "/api/people", { login: "x", permission: "owner" })).body.error).toBe(
      "permission: one of read, triage, write, maintain, admin, or none",
    );
    expect((await api("POST", "/api/check", { file: "../../etc/passwd", text: "" })).status).toBe(
      400,
    );
    expect(
      (await api("POST", "/api/issues/999/comments", { author: "alice", body: "hi" })).status,
    ).toBe(404);
    expect((await api("POST", "/api/issues", { author: "alice", title: "  " })).body.error).toBe(
      "title: may not be empty",
    );
    expect((await api("GET", "/api/nothing")).status).toBe(404);
  });

  it("checks an edited playbook through every layer, with lines and columns, and refuses to save it", async () => {
    const checked = await api("POST", "/api/check", { file: "broken.yml", text: BROKEN });
    expect(checked.status).toBe(200);
    const found = checked.body.diagnostics.map(
      (d: { rule: string; line: number; column: number }) => `${d.rule}@${d.line}:${d.column}`,
    );
    // The graph layer (a goto to no step) and the set layer (a playbook that exists nowhere).
    expect(found).toEqual(
      expect.arrayContaining([expect.stringMatching(/@6:11$/), expect.stringMatching(/@10:15$/)]),
    );
    const saved = await api("PUT", "/api/playbooks", { file: "broken.yml", text: BROKEN });
    expect(saved.status).toBe(422);
    expect(saved.body.error).toMatch(/^not saved: \d+ error\(s\), the first at line \d+: /);
    expect(pg.sandbox.api.fileAt("main", ".github/playbooks/broken.yml")).toBeUndefined();
  });

  it("saves a copy of a bundled playbook with its templates, runs its golden cases, and lists it first", async () => {
    const state = await api("GET", "/api/state");
    const hello = state.body.playbooks.find((p: { id: string }) => p.id === "hello-world");
    expect(hello.tier).toBe("bundled");
    const edited = { file: "hello.yml", text: hello.source, from: hello.file };
    const checked = await api("POST", "/api/check", { ...edited, current: "branch" });
    expect(
      checked.body.diagnostics.filter((d: { severity: string }) => d.severity === "error"),
    ).toEqual([]);
    expect(checked.body.mermaid).toContain("class s_branch current");
    const saved = await api("PUT", "/api/playbooks", edited);
    expect(saved.body.files).toEqual([
      ".github/playbooks/hello.yml",
      ".github/playbooks/templates/hello.md",
    ]);
    const cases = await api("POST", "/api/test", { file: "hello.yml", text: hello.source });
    expect(cases.body.results.length).toBeGreaterThan(0);
    expect(cases.body.results.every((r: { ok: boolean }) => r.ok)).toBe(true);
    const after = await api("GET", "/api/state");
    const mine = after.body.playbooks.filter((p: { id: string }) => p.id === "hello-world");
    expect(mine.map((p: { tier: string; runnable: boolean }) => [p.tier, p.runnable])).toEqual([
      ["repository", true],
      ["bundled", false],
    ]);
  });

  it("opens an issue, and shows the thread the app writes when people label and comment", async () => {
    const opened = await api("POST", "/api/issues", {
      author: "carol",
      title: "Say hello",
      body: "",
    });
    const n = opened.body.number as number;
    expect(
      (await api("POST", `/api/issues/${n}/labels`, { author: "carol", label: "hello" })).status,
    ).toBe(200);
    let thread = (await api("GET", `/api/issues/${n}`)).body;
    expect(thread.runs).toEqual([
      expect.objectContaining({ playbook: "hello-world", status: "waiting", current: "approve" }),
    ]);
    const status = thread.comments.find((c: { bot: boolean }) => c.bot);
    expect(status.html).toContain("Approve the greeting");
    // The status comment is marked as one; the bot's other comments (the checkpoint's) are not.
    expect(thread.comments.filter((c: { status: boolean }) => c.status)).toEqual([status]);
    expect(thread.comments.some((c: { bot: boolean; status: boolean }) => c.bot && !c.status)).toBe(
      true,
    );
    expect(status.html).not.toContain("playbook-bot:state");
    // A person's text is shown inert: the handler never reaches the page.
    await api("POST", `/api/issues/${n}/comments`, {
      author: "erin",
      body: "/approve <img src=x onerror=alert(1)>",
    });
    await api("POST", `/api/issues/${n}/comments`, { author: "bob", body: "/approve" });
    thread = (await api("GET", `/api/issues/${n}`)).body;
    expect(JSON.stringify(thread.comments)).not.toContain("onerror");
    expect(thread.runs[0].status).toBe("completed");
    const refused = thread.comments.find((c: { author: string }) => c.author === "erin");
    expect(refused.reactions).toEqual(["eyes", "-1"]);
  });

  it("merges a pull request a run waits for, as a person", async () => {
    pg.sandbox.writeFiles(
      {
        ".github/playbooks/ship.yml": [
          "apiVersion: playbook-bot/v1",
          "id: ship",
          "on: { labels: [ship] }",
          "steps:",
          "  - id: branch",
          "    type: branch",
          "    name: ship-{{ run.id }}",
          "  - id: commit",
          "    type: commit",
          '    branch: "{{ steps.branch.outputs.name }}"',
          "    message: ship",
          "    files: [{ path: SHIP.md, content: shipped }]",
          "  - id: pr",
          "    type: pull_request",
          '    head: "{{ steps.branch.outputs.name }}"',
          "    title: Ship",
          "    wait: merged",
          "  - id: done",
          "    type: end",
          "    status: success",
          "",
        ].join("\n"),
      },
      "Add ship",
    );
    const n = (await api("POST", "/api/issues", { author: "carol", title: "Ship it", body: "" }))
      .body.number;
    await api("POST", `/api/issues/${n}/labels`, { author: "carol", label: "ship" });
    const pull = [...pg.sandbox.api.pulls.values()].find((p) => p.title === "Ship")!;
    expect((await api("POST", `/api/pulls/${pull.number}/merge`, { author: "bob" })).status).toBe(
      200,
    );
    expect((await api("GET", `/api/issues/${n}`)).body.runs[0].status).toBe("completed");
    expect((await api("POST", `/api/pulls/${pull.number}/merge`, { author: "bob" })).status).toBe(
      409,
    );
  });
});
