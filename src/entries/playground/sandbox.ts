/**
 * The playground's sandbox: an in-memory GitHub served on loopback, and the real app — the same
 * handlers, HTTP server and webhook verification as `npm start` — wired to it as if to a GitHub
 * Enterprise Server at that address. What people do here (open an issue, label it, comment,
 * merge a pull request) changes the in-memory GitHub and is delivered to the app as a signed
 * webhook over HTTP; the comment events the app's own requests cause (its status comment edited,
 * which brings the next step) are delivered the same way, until none is left. Nothing leaves the
 * machine: both servers listen on 127.0.0.1, the app's key pair is made at start, and the AI
 * adapter is the mock. Neither serves a page elsewhere: the in-memory GitHub answers only requests
 * signed as the app's are, the app only signed deliveries, each of a bounded size (guard.ts).
 */
import { createHmac, generateKeyPairSync, randomBytes, randomUUID, verify } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createNodeMiddleware, Probot, ProbotOctokit } from "probot";
import { MockAiAdapter } from "../../runtime/ai.js";
import { MemoryGitHubApi } from "../../adapters/memory/github-api.js";
import {
  issueComment,
  issueLabeled,
  issueOpened,
  pullRequestClosed,
  type Webhook,
} from "../../adapters/memory/webhooks.js";
import type { Permission } from "../../core/format/types.js";
import { repositoryStateKey, type StateSeal } from "../../runtime/state-codec.js";
import { createPlaybookBot } from "../../adapters/github-app/app.js";
import {
  checkAddress,
  checkDeclaredLength,
  checkJson,
  isSafeMethod,
  newToken,
  Refusal,
  refuse,
  sameSecret,
} from "./guard.js";
import type { AppConfig } from "../../adapters/github-app/config.js";

export const SANDBOX_OWNER = "playground";
export const SANDBOX_REPO = "sandbox";
export const SANDBOX_BRANCH = "main";
const APP_ID = 1;
const APP_SLUG = "playbook-bot";
/** Events one action may cause before the sandbox calls it a loop and stops delivering. */
const MAX_EVENTS_PER_ACTION = 500;
/**
 * The largest request the app makes to the in-memory GitHub (a commit of a playbook's files, in
 * base64, is the largest), and the largest delivery (an issue or comment of 65,536 characters).
 */
const MAX_API_BODY_BYTES = 8 * 1024 * 1024;
const MAX_DELIVERY_BYTES = 1024 * 1024;

export interface SandboxOptions {
  /** Files of the repository's default branch (playbooks under `.github/playbooks/`). */
  files?: Record<string, string>;
  /** People and their roles in the repository. */
  people?: Record<string, Permission>;
  /** The clock of the in-memory GitHub and the app (default: the real one). */
  clock?: () => Date;
  /** Wake-ups (reminders, timeouts) polled this often; `false`: none (tests). Default 1 s. */
  wakeUpPollMs?: number | false;
}

/** A delivery made to the app, and how it answered. */
export interface DeliveryRecord {
  id: string;
  name: string;
  action: string;
  status: number;
}

export class Sandbox {
  /** Deliveries made, newest last (at most 200 kept). */
  readonly deliveries: DeliveryRecord[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private drainTimer: ReturnType<typeof setInterval> | undefined;

  private constructor(
    readonly api: MemoryGitHubApi,
    /** Where the in-memory GitHub answers (the app's API URL). */
    readonly apiUrl: string,
    private readonly closeApi: () => Promise<void>,
    private readonly appServer: Server,
    /** Where the app takes deliveries. */
    readonly webhookUrl: string,
    private readonly secret: string,
    readonly config: AppConfig,
    private readonly closeApp: () => Promise<void>,
  ) {}

  /** The in-memory GitHub and the app, each on its own loopback port. */
  static async start(options: SandboxOptions = {}): Promise<Sandbox> {
    const clock = options.clock ?? (() => new Date());
    const api = new MemoryGitHubApi({
      owner: SANDBOX_OWNER,
      repo: SANDBOX_REPO,
      defaultBranch: SANDBOX_BRANCH,
      appId: APP_ID,
      appSlug: APP_SLUG,
      clock,
      files: options.files ?? { "README.md": "# sandbox\n" },
    });
    for (const [login, role] of Object.entries(options.people ?? {}))
      api.permissions.set(login, role);
    // Installation tokens no one can guess: with the app's JWT, what the API asks of a request.
    api.installationTokenPrefix = `ghs_${newToken()}_`;
    const { privateKey, publicKey } = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
      publicKeyEncoding: { type: "spki", format: "pem" },
    });
    let apiPort = 0;
    const served = await api.serve({
      maxBodyBytes: MAX_API_BODY_BYTES,
      admit: (req) => admitToApi(req, apiPort, publicKey, api.installationTokenPrefix),
    });
    const apiUrl = served.url;
    apiPort = Number(new URL(apiUrl).port);

    const secret = randomBytes(24).toString("hex");
    const config: AppConfig = {
      appId: APP_ID,
      webhookSecret: secret,
      stateSecret: randomBytes(24).toString("hex"),
      botLogin: `${APP_SLUG}[bot]`,
    };
    const probot = new Probot({
      appId: APP_ID,
      privateKey,
      secret,
      baseUrl: apiUrl,
      logLevel: "warn",
      // The in-memory GitHub answers at once and never limits: no retries, no throttling.
      Octokit: ProbotOctokit.defaults((o: Record<string, unknown>) => ({
        ...o,
        retry: { enabled: false },
        throttle: { enabled: false },
      })),
    });
    const poll = options.wakeUpPollMs ?? 1000;
    const bot = createPlaybookBot({
      config,
      clock,
      ai: new MockAiAdapter(),
      wakeUps: poll === false ? false : { pollMs: poll, scanOnStart: false },
      // The in-memory GitHub delivers every event it causes: none is lost to reconcile.
      reconcile: false,
    });
    const middleware = await createNodeMiddleware(bot, { probot });
    const appServer = await listen(
      createServer((req, res) => {
        const refused = admitToApp(req, port(appServer));
        if (refused) return refuse(res, refused);
        void middleware(req, res, () => {
          res.writeHead(404, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: "not found" }));
        });
      }),
    );
    const sandbox = new Sandbox(
      api,
      apiUrl,
      served.close,
      appServer,
      `http://127.0.0.1:${port(appServer)}/api/github/webhooks`,
      secret,
      config,
      bot.close,
    );
    // What the app does on its own (a reminder, a timeout) leaves events to deliver.
    if (poll !== false)
      sandbox.drainTimer = setInterval(() => {
        if (sandbox.api.events.length > 0) void sandbox.serially(() => sandbox.drain());
      }, poll);
    return sandbox;
  }

  /** The seal of a status comment here, to read the run it holds as the app does. */
  sealOf(issue: number, comment: number | string): StateSeal {
    return {
      key: repositoryStateKey(
        this.config.stateSecret,
        this.api.installationId,
        this.api.repositoryId,
      ),
      issue,
      comment: String(comment),
    };
  }

  // ---- what people do; each is delivered to the app, then what it caused ----

  setPermission(login: string, role: Permission | undefined): void {
    if (role === undefined) this.api.permissions.delete(login);
    else this.api.permissions.set(login, role);
  }

  /** Files written on the default branch in one commit (a person's push), read by the next event. */
  writeFiles(files: Record<string, string>, message: string): void {
    this.api.pushAs(SANDBOX_BRANCH, message, files);
  }

  openIssue(title: string, body: string, author: string, labels: string[] = []): Promise<number> {
    return this.serially(async () => {
      const issue = this.api.openIssue(title, body, author, [...labels]);
      await this.deliver(issueOpened(this.api, issue.number));
      await this.drain();
      return issue.number;
    });
  }

  label(issue: number, label: string, by: string): Promise<void> {
    return this.serially(async () => {
      this.api.labelAs(issue, label, by);
      await this.deliver(issueLabeled(this.api, issue, label, by));
      await this.drain();
    });
  }

  comment(issue: number, by: string, body: string): Promise<number> {
    return this.serially(async () => {
      const c = this.api.postAs(issue, by, body);
      await this.drain();
      return c.id;
    });
  }

  editComment(id: number, body: string, by: string): Promise<void> {
    return this.serially(async () => {
      this.api.editAs(id, body, by);
      await this.drain();
    });
  }

  closePull(number: number, merged: boolean, by: string): Promise<void> {
    return this.serially(async () => {
      this.api.closePull(number, merged);
      await this.deliver(pullRequestClosed(this.api, number, by));
      await this.drain();
    });
  }

  /** Deliver the comment events waiting in the in-memory GitHub, and those they cause. */
  private async drain(): Promise<void> {
    for (let n = 0; this.api.events.length > 0; n++) {
      if (n >= MAX_EVENTS_PER_ACTION)
        throw new Error(`more than ${MAX_EVENTS_PER_ACTION} events from one action: stopped`);
      const ev = this.api.events.shift();
      if (ev) await this.deliver(issueComment(this.api, ev));
    }
  }

  /** One webhook, signed with the app's secret and posted to its server as GitHub does. */
  async deliver(webhook: Webhook): Promise<number> {
    const body = JSON.stringify(webhook.payload);
    const id = randomUUID();
    const res = await fetch(this.webhookUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "GitHub-Hookshot/playground",
        "x-github-event": webhook.name,
        "x-github-delivery": id,
        "x-github-hook-installation-target-type": "integration",
        "x-hub-signature-256": signature(this.secret, body),
      },
      body,
    });
    await res.arrayBuffer();
    const action = String((webhook.payload as { action?: unknown }).action ?? "");
    this.deliveries.push({ id, name: webhook.name, action, status: res.status });
    if (this.deliveries.length > 200) this.deliveries.splice(0, this.deliveries.length - 200);
    return res.status;
  }

  /** People act one after another, as in one thread. */
  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    if (this.drainTimer) clearInterval(this.drainTimer);
    await this.queue;
    await this.closeApp();
    await Promise.all([stop(this.appServer), this.closeApi()]);
  }
}

/**
 * A request to the in-memory GitHub: addressed to it, from no page, a body only as JSON, and
 * signed as the app's requests are — its JWT (the app's key, made at this start) or an
 * installation token the in-memory GitHub issued (their prefix is secret).
 */
function admitToApi(
  req: IncomingMessage,
  apiPort: number,
  publicKey: string,
  tokenPrefix: string,
): { status: number; error: string } | undefined {
  try {
    checkAddress(req, apiPort);
    if (req.headers.origin !== undefined)
      throw new Refusal(403, "the sandbox's GitHub takes requests from the app only");
    if (hasBody(req)) checkJson(req);
    const [scheme, credential = ""] = String(req.headers.authorization ?? "").split(" ", 2);
    const known =
      scheme?.toLowerCase() === "bearer"
        ? isAppJwt(credential, publicKey)
        : scheme?.toLowerCase() === "token" &&
          sameSecret(credential.slice(0, tokenPrefix.length), tokenPrefix) &&
          /^[0-9]+$/.test(credential.slice(tokenPrefix.length));
    if (!known) throw new Refusal(401, "the sandbox's GitHub takes requests from the app only");
    return undefined;
  } catch (err) {
    if (err instanceof Refusal) return { status: err.status, error: err.message };
    throw err;
  }
}

/** Whether a JWT is signed by the app's key (RS256, as Octokit's app auth signs). */
function isAppJwt(jwt: string, publicKey: string): boolean {
  const [head, claims, sig] = jwt.split(".");
  if (!head || !claims || !sig) return false;
  return verify(
    "RSA-SHA256",
    Buffer.from(`${head}.${claims}`),
    publicKey,
    Buffer.from(sig, "base64url"),
  );
}

/**
 * A delivery to the app: addressed to it, from no page, JSON of a declared size (the app checks
 * its signature; Probot reads the body, so its length is checked before it is read).
 */
function admitToApp(req: IncomingMessage, appPort: number): Refusal | undefined {
  try {
    checkAddress(req, appPort);
    if (req.headers.origin !== undefined)
      throw new Refusal(403, "the sandbox's app takes deliveries from the sandbox only");
    if (!isSafeMethod(req.method ?? "GET")) {
      checkJson(req);
      if (req.headers["content-length"] === undefined)
        throw new Refusal(411, "a delivery declares its length");
      checkDeclaredLength(req, MAX_DELIVERY_BYTES);
    }
    return undefined;
  } catch (err) {
    if (err instanceof Refusal) return err;
    throw err;
  }
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return (length !== undefined && length !== "0") || req.headers["transfer-encoding"] !== undefined;
}

/** GitHub's `X-Hub-Signature-256` of a body. */
export function signature(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

async function listen(server: Server, at = 0, host = "127.0.0.1"): Promise<Server> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(at, host, resolve);
  });
  return server;
}

function port(server: Server): number {
  return (server.address() as AddressInfo).port;
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

export { listen, port, stop };
