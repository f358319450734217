/**
 * `playbook-bot playground`: the sandbox (an in-memory GitHub and the real app over HTTP) and a
 * web page to work with it — the playbooks, an editor (CodeMirror, with the language server's
 * completion and hover) checked as you type by the same validator as the CLI and the app, the
 * diagram, the golden cases, and an issue thread where you act as people with the roles you
 * choose. The page talks to this server's JSON API; the server listens
 * on 127.0.0.1 only, answers only requests addressed to it by that name (a page elsewhere cannot
 * reach it through DNS rebinding), and serves its API only to requests from its own origin that
 * carry the token written into the page at this start, changes only as JSON (see guard.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { readStatusComment } from "../../runtime/run-service/status-comment.js";
import { PLAYBOOK_DIR } from "../../adapters/github/discovery.js";
import { activeFrame } from "../../core/engine/state.js";
import { PERMISSIONS } from "../../core/format/schema.js";
import type { Permission } from "../../core/format/types.js";
import { LOGIN } from "../../core/markdown/comment.js";
import { STEP_KIND_FOLDERS } from "../../core/steps/kinds.js";
import { stepKind } from "../../core/steps/registry.js";
import {
  checkAddress,
  checkJson,
  checkToken,
  isSafeMethod,
  newToken,
  readCapped,
  Refusal,
  refuse,
} from "./guard.js";
import { bundleEditor, editorEntry } from "./editor-bundle.js";
import { commentHtml } from "./render.js";
import { listen, port, Sandbox, SANDBOX_BRANCH, stop, type SandboxOptions } from "./sandbox.js";
import {
  isBundledName,
  isPlaybookFileName,
  MAX_PLAYBOOK_CHARS,
  Workbench,
  type Edited,
} from "./workbench.js";

/** People the sandbox starts with, one per role that matters to a playbook. */
export const DEFAULT_PEOPLE: Record<string, Permission> = {
  alice: "admin",
  bob: "maintain",
  carol: "write",
  dave: "triage",
  erin: "read",
};

/** A request's body at most: an edited playbook (up to 1 MiB of text) in JSON, escapes included. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
/** The header that carries the page's token to the API. */
export const TOKEN_HEADER = "x-playground-token";
const MAX_TITLE = 256;
const MAX_COMMENT = 65_536;
const MAX_LABEL = 50;

export interface PlaygroundOptions extends SandboxOptions {
  /** The page's port (0: any free one). */
  port?: number;
}

export class Playground {
  private constructor(
    readonly sandbox: Sandbox,
    readonly workbench: Workbench,
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(options: PlaygroundOptions = {}): Promise<Playground> {
    const sandbox = await Sandbox.start({
      ...options,
      people: options.people ?? DEFAULT_PEOPLE,
    });
    const workbench = new Workbench(() => sandbox.api.filesUnder(SANDBOX_BRANCH, PLAYBOOK_DIR));
    const page = new PageApi(sandbox, workbench, newToken());
    const server = createServer((req, res) => void page.handle(req, res, server));
    try {
      await listen(server, options.port ?? 0);
    } catch (err) {
      await sandbox.close();
      throw err;
    }
    return new Playground(sandbox, workbench, server, `http://127.0.0.1:${port(server)}`);
  }

  async close(): Promise<void> {
    await stop(this.server);
    await this.sandbox.close();
  }
}

/** The page's files: this folder's `page/` (beside the built module, or the source). */
function pageDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const built = join(here, "page");
  return existsSync(built)
    ? built
    : join(here, "..", "..", "..", "src", "entries", "playground", "page");
}

/** The page's vendored browser bundles: its name under /vendor/ and the installed file. */
const VENDOR: Record<string, string> = {
  "mermaid.min.js": "mermaid/dist/mermaid.min.js",
  // Sanitises Mermaid's SVG before the page puts it into the document.
  "purify.min.js": "dompurify/dist/purify.min.js",
};

/** A vendored bundle: copied beside the page when the package is built, else installed. */
function vendorBundle(name: string): string | undefined {
  const copied = join(pageDir(), "vendor", name);
  if (existsSync(copied)) return copied;
  try {
    return createRequire(import.meta.url).resolve(VENDOR[name]!);
  } catch {
    return undefined;
  }
}

/** The page's editor bundles built from the sources, by entry module (built once each). */
const editorBuilds = new Map<string, Promise<string>>();

/** The page's editor: built beside the page by the package's build, else from the sources once. */
export function editorScript(
  dir = pageDir(),
  entry: string | null = editorEntry() ?? null,
): Promise<string> {
  const built = join(dir, "editor.js");
  if (existsSync(built)) return Promise.resolve(readFileSync(built, "utf8"));
  if (!entry) return Promise.reject(new Refusal(404, "the editor is not built"));
  if (!editorBuilds.has(entry))
    editorBuilds.set(
      entry,
      bundleEditor(entry).then((b) => b.code),
    );
  return editorBuilds.get(entry)!;
}

/** What every step of each kind outputs, for the editor's completion of `steps.<id>.outputs.`. */
const KIND_OUTPUTS = Object.fromEntries(
  STEP_KIND_FOLDERS.map((kind) => [kind, stepKind(kind)?.outputs ?? []]),
);

const STATIC: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/style.css": { file: "style.css", type: "text/css; charset=utf-8" },
};

const SECURITY_HEADERS = {
  // Mermaid writes its diagrams' styles inline, and CodeMirror (editor.js) its editor's into one
  // <style> element: the page's styles may be inline; its scripts, data and fonts only its own.
  // (A nonce would serve CodeMirror, which takes one, but browsers then ignore 'unsafe-inline'
  // and Mermaid's styles, which take none, would be refused.) CSS cannot send anything away:
  // images, fonts and requests go nowhere but here.
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-resource-policy": "same-origin",
};

/** Where index.html takes the token: `<meta name="playground-token" content="">`. */
const TOKEN_SLOT = 'name="playground-token" content=""';
/** Where index.html names the sandbox repository, so that the first paint says which. */
const REPOSITORY_SLOT = '<span id="repository">the sandbox repository</span>';

class PageApi {
  constructor(
    private readonly sandbox: Sandbox,
    private readonly workbench: Workbench,
    private readonly token: string,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse, server: Server): Promise<void> {
    try {
      const host = checkAddress(req, port(server));
      const url = new URL(req.url ?? "/", `http://${host}`);
      const method = req.method ?? "GET";
      if (method === "GET" && STATIC[url.pathname]) return this.file(res, STATIC[url.pathname]!);
      if (method === "GET" && url.pathname === "/editor.js")
        return send(res, 200, await editorScript(), "text/javascript; charset=utf-8");
      const vendored = /^\/vendor\/([a-z.]+)$/.exec(url.pathname)?.[1];
      if (method === "GET" && vendored !== undefined && Object.hasOwn(VENDOR, vendored)) {
        const bundle = vendorBundle(vendored);
        if (!bundle) throw new Refusal(404, `${VENDOR[vendored]} is not installed`);
        return send(res, 200, readFileSync(bundle), "text/javascript; charset=utf-8");
      }
      if (!url.pathname.startsWith("/api/")) throw new Refusal(404, "not found");
      checkToken(req, TOKEN_HEADER, this.token);
      let body: Record<string, unknown> = {};
      if (!isSafeMethod(method)) {
        checkJson(req);
        body = parseJson(await readCapped(req, MAX_BODY_BYTES));
      }
      const answer = await this.api(method, url.pathname, body);
      return json(res, 200, answer);
    } catch (err) {
      if (err instanceof Refusal) return refuse(res, err, SECURITY_HEADERS);
      return json(res, 500, { error: err instanceof Error ? err.message : String(err) });
    }
  }

  private file(res: ServerResponse, f: { file: string; type: string }): void {
    let content = readFileSync(join(pageDir(), f.file));
    // The page carries this start's token; no other site can read it (no CORS, Host checked).
    if (f.file === "index.html") {
      const api = this.sandbox.api;
      content = Buffer.from(
        content
          .toString("utf8")
          .replace(TOKEN_SLOT, `${TOKEN_SLOT.slice(0, -1)}${this.token}"`)
          // The owner and name are the sandbox's own, letters only: nothing to escape.
          .replace(REPOSITORY_SLOT, `<span id="repository">${api.owner}/${api.name}</span>`),
      );
    }
    send(res, 200, content, f.type);
  }

  private async api(method: string, path: string, b: Record<string, unknown>): Promise<unknown> {
    const api = this.sandbox.api;
    const m = /^\/api\/issues\/(\d{1,9})(\/[a-z]+)?$/.exec(path);
    if (method === "GET" && path === "/api/state") return this.state();
    if (method === "GET" && m && !m[2]) return this.issue(Number(m[1]));
    if (method === "POST" && path === "/api/issues") {
      const number = await this.sandbox.openIssue(
        text(b.title, "title", MAX_TITLE, false),
        text(b.body ?? "", "body", MAX_COMMENT, true),
        login(b.author),
        Array.isArray(b.labels) ? b.labels.slice(0, 10).map((l) => label(l)) : [],
      );
      return { number };
    }
    if (method === "POST" && m?.[2] === "/comments") {
      const n = this.existing(Number(m[1]));
      const id = await this.sandbox.comment(
        n,
        login(b.author),
        text(b.body, "body", MAX_COMMENT, false),
      );
      return { id };
    }
    if (method === "POST" && m?.[2] === "/labels") {
      const n = this.existing(Number(m[1]));
      await this.sandbox.label(n, label(b.label), login(b.author));
      return { ok: true };
    }
    const pull = /^\/api\/pulls\/(\d{1,9})\/(merge|close)$/.exec(path);
    if (method === "POST" && pull) {
      const pr = api.pulls.get(Number(pull[1]));
      if (!pr) throw new Refusal(404, `there is no pull request #${pull[1]}`);
      if (pr.state !== "open") throw new Refusal(409, `#${pr.number} is already closed`);
      await this.sandbox.closePull(pr.number, pull[2] === "merge", login(b.author));
      return { ok: true };
    }
    if (method === "POST" && path === "/api/people") {
      const role = b.permission === null || b.permission === "none" ? undefined : b.permission;
      if (role !== undefined && !(PERMISSIONS as readonly unknown[]).includes(role))
        throw new Refusal(400, `permission: one of ${PERMISSIONS.join(", ")}, or none`);
      this.sandbox.setPermission(login(b.login), role as Permission | undefined);
      return { ok: true };
    }
    if (method === "POST" && (path === "/api/check" || path === "/api/test")) {
      const edited = await this.edited(b);
      if (path === "/api/test") return this.workbench.test(edited);
      const current = typeof b.current === "string" ? b.current.slice(0, 200) : undefined;
      return this.workbench.check(edited, current);
    }
    if (method === "PUT" && path === "/api/playbooks") {
      const edited = await this.edited(b);
      const saved = await this.workbench.save(edited);
      if (!saved.ok) {
        const first = saved.errors[0];
        throw new Refusal(
          422,
          first
            ? `not saved: ${saved.errors.length} error(s), the first at line ${first.line}: ${first.message}`
            : "not saved: the file is not a playbook",
        );
      }
      this.sandbox.writeFiles(saved.files, `Update ${edited.file}`);
      return { ok: true, file: edited.file, files: Object.keys(saved.files) };
    }
    throw new Refusal(404, `no ${method} ${path}`);
  }

  /** The editor's playbook in a request; a copy names a playbook the bundled library has. */
  private async edited(b: Record<string, unknown>): Promise<Edited> {
    const edited = editedPlaybook(b);
    if (edited.from !== undefined && !(await this.workbench.isBundled(edited.from)))
      throw new Refusal(404, `from: the bundled library has no ${edited.from}`);
    return edited;
  }

  private existing(n: number): number {
    if (!this.sandbox.api.issues.has(n)) throw new Refusal(404, `there is no issue #${n}`);
    return n;
  }

  private async state(): Promise<unknown> {
    const api = this.sandbox.api;
    return {
      repository: `${api.owner}/${api.name}`,
      people: [...api.permissions].map(([l, permission]) => ({ login: l, permission })),
      permissions: PERMISSIONS,
      issues: [...api.issues.values()].map((i) => ({
        number: i.number,
        title: i.title,
        state: i.state,
        labels: i.labels,
      })),
      pulls: [...api.pulls.values()].map((p) => ({
        number: p.number,
        title: p.title,
        head: p.head,
        state: p.state,
        merged: p.merged,
        author: p.user.login,
      })),
      playbooks: await this.workbench.list(),
      kindOutputs: KIND_OUTPUTS,
      deliveries: this.sandbox.deliveries.slice(-20),
    };
  }

  private issue(n: number): unknown {
    const api = this.sandbox.api;
    const issue = api.issues.get(this.existing(n))!;
    const repository = { owner: api.owner, name: api.name };
    // The comments that verify as a run's status comment: the page marks them.
    const statusIds = new Set<number>();
    const runs = api.statusComments(n).flatMap((c) => {
      const read = readStatusComment(c.body, this.sandbox.sealOf(n, c.id));
      if (!read.ok) return [];
      statusIds.add(c.id);
      const frame = activeFrame(read.run);
      return [
        {
          id: read.run.id,
          playbook: read.run.stack[0]?.playbook ?? "",
          status: read.run.status,
          current: frame.current,
        },
      ];
    });
    return {
      number: issue.number,
      title: issue.title,
      body: commentHtml(issue.body, repository),
      author: issue.user.login,
      state: issue.state,
      labels: issue.labels,
      comments: [...api.comments.values()]
        .filter((c) => c.issue === n)
        .map((c) => ({
          id: c.id,
          author: c.user.login,
          bot: c.user.type === "Bot",
          status: statusIds.has(c.id),
          createdAt: c.created_at,
          edited: c.updated_at !== c.created_at,
          html: commentHtml(c.body, repository),
          reactions: api.reactions.filter((r) => r.commentId === c.id).map((r) => r.content),
        })),
      runs,
    };
  }
}

function send(res: ServerResponse, status: number, body: Buffer | string, type: string): void {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store", ...SECURITY_HEADERS });
  res.end(body);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, JSON.stringify(value), "application/json; charset=utf-8");
}

function parseJson(raw: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString("utf8") || "{}");
  } catch {
    throw new Refusal(400, "the body is not JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new Refusal(400, "the body is not a JSON object");
  return value as Record<string, unknown>;
}

function text(v: unknown, what: string, max: number, empty: boolean, keepAll = false): string {
  if (typeof v !== "string") throw new Refusal(400, `${what}: text expected`);
  const s = keepAll ? v : v.trim();
  if (!empty && s === "") throw new Refusal(400, `${what}: may not be empty`);
  if (s.length > max) throw new Refusal(400, `${what}: at most ${max} characters`);
  return s;
}

function login(v: unknown): string {
  if (typeof v !== "string" || !LOGIN.test(v))
    throw new Refusal(400, "a login has letters, digits and single hyphens (at most 39)");
  return v;
}

function label(v: unknown): string {
  const s = text(v, "label", MAX_LABEL, false);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f,]/.test(s))
    throw new Refusal(400, "label: no commas or control characters");
  return s;
}

/** The editor's playbook in a request: file, text and the bundled file it was copied from. */
function editedPlaybook(b: Record<string, unknown>): Edited {
  const edited: Edited = {
    file: playbookFile(b.file),
    text: text(b.text, "text", MAX_PLAYBOOK_CHARS, true, true),
  };
  if (b.from !== undefined) {
    if (typeof b.from !== "string" || !isBundledName(b.from))
      throw new Refusal(
        400,
        "from: a bundled playbook's name, such as bundled/hello-world.yaml (no .., no absolute path)",
      );
    edited.from = b.from;
  }
  return edited;
}

function playbookFile(v: unknown): string {
  if (typeof v !== "string" || !isPlaybookFileName(v))
    throw new Refusal(
      400,
      "file: a name such as deploy.yml or team/deploy.yaml, inside .github/playbooks/",
    );
  return v;
}
