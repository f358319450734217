/**
 * An operator's bench: the app as it is deployed — real `npm start` processes (replicas) sharing a
 * real redis-server — in front of a fake GitHub served on loopback that can misbehave (hang, answer
 * 5xx after doing the work, refuse with a secondary rate limit) and counts what it is asked. GitHub's
 * side of webhooks is played too: signed deliveries to any replica, and the comment events the app's
 * own writes cause, forwarded as GitHub would (once, never retried).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHmac, generateKeyPairSync, randomUUID } from "node:crypto";
import {
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createRequire } from "node:module";
import { createServer as createNetServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll } from "vitest";
import { startRedis, type RedisServer } from "./redis.js";
import { readStatusUnverified } from "../../src/runtime/run-service/status-comment.js";
import type { RunState } from "../../src/core/engine/state.js";
import {
  MemoryGitHubApi,
  type ApiComment,
  type ApiIssue,
  type PendingCommentEvent,
  type Reply,
} from "../../src/adapters/memory/github-api.js";

// The in-memory GitHub itself, not the nock-backed FakeGitHub: nothing here intercepts requests.
type FakeGitHub = MemoryGitHubApi;

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** `npm start`'s script, built by `npm run build`. */
export const SERVER_SCRIPT = join(ROOT, "dist/entries/server.js");
export const OPERATOR_APP_ID = 4242;
export const OPERATOR_SECRET = "operator-bench-webhook-secret";
/** GitHub gives up on a delivery not answered within 10 s and counts it failed. */
export const DELIVERY_TIMEOUT_MS = 10_000;

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `condition` every `everyMs` until it holds; throws, saying what, after `timeoutMs`. */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 30_000, everyMs = 50 } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

let privateKey: string | undefined;
/** One RSA key per process: the replicas sign their JWTs with it (the fake does not check them). */
export function appPrivateKey(): string {
  privateKey ??= generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  }).privateKey;
  return privateKey;
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createNetServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The repository the operator tests and the load bench use
// ---------------------------------------------------------------------------------------------

/** A checkpoint a maintainer answers, then a comment: the smallest run with a wait and an effect. */
export const APPROVE_THEN_COMMENT = `apiVersion: playbook-bot/v1
id: approve-comment
name: Approve, then comment
description: A maintainer approves; the app comments once.
steps:
  - id: approve
    type: checkpoint
    message: Go ahead?
    approvers: { permission: maintain }
  - id: note
    type: comment
    body: "Approved work done for #{{ issue.number }}."
  - id: done
    type: end
    status: success
`;

/** The same wait, then a branch, a commit and a pull request (three effects that must happen once). */
export const APPROVE_THEN_PULL = `apiVersion: playbook-bot/v1
id: approve-pull
name: Approve, then open a pull request
description: A maintainer approves; a branch, a commit and a pull request follow.
steps:
  - id: approve
    type: checkpoint
    message: Open the pull request?
    approvers: { permission: maintain }
  - id: branch
    type: branch
    name: playbook/bench-{{ issue.number }}
  - id: commit
    type: commit
    branch: "{{ steps.branch.outputs.name }}"
    message: "docs: bench"
    files:
      - path: docs/bench-{{ issue.number }}.md
        content: "Bench for #{{ issue.number }}\\n"
  - id: pr
    type: pull_request
    head: "{{ steps.branch.outputs.name }}"
    title: Bench
    body: "For #{{ issue.number }}"
  - id: done
    type: end
    status: success
`;

/**
 * A checkpoint that times out after `timeout` (e.g. `20s`), then a comment saying so: one such
 * comment per firing. Label `playbook:time-out`.
 */
export function approveOrTimeOut(timeout: string): string {
  return `apiVersion: playbook-bot/v1
id: time-out
name: Approve within ${timeout}, or give up
description: Nobody answers; the timeout fires and the app says so once.
steps:
  - id: approve
    type: checkpoint
    message: Go ahead?
    approvers: { permission: maintain }
    timeout: ${timeout}
    on_timeout: late
  - id: done
    type: end
    status: success
  - id: late
    type: comment
    body: "Nobody answered on #{{ issue.number }}."
  - id: gave-up
    type: end
    status: neutral
`;
}

/** The text the timeout's comment step of `approveOrTimeOut` writes on an issue. */
export function timedOutNoteOf(issue: number): string {
  return `Nobody answered on #${issue}.`;
}

/** The comments of an issue whose body contains `text`. */
export function commentsWith(fake: FakeGitHub, issue: number, text: string): ApiComment[] {
  return [...fake.comments.values()].filter((c) => c.issue === issue && c.body.includes(text));
}

/** The text the comment step of APPROVE_THEN_COMMENT writes on an issue. */
export function noteOf(issue: number): string {
  return `Approved work done for #${issue}.`;
}

/**
 * A repository with both playbooks (labels `playbook:approve-comment`, `playbook:approve-pull`),
 * alice (write) who labels, carol (maintain) who approves; `installation` > 2 makes another
 * installation with its own owner and repository id; `files` adds files (more playbooks).
 */
export function operatorRepo(installation = 2, files: Record<string, string> = {}): FakeGitHub {
  const fake = new MemoryGitHubApi({
    owner: installation === 2 ? "Codertocat" : `Codertocat${installation}`,
    repo: "Hello-World",
    defaultBranch: "master",
    appId: OPERATOR_APP_ID,
    files: {
      "README.md": "# hello\n",
      ".github/playbooks/approve-comment.yaml": APPROVE_THEN_COMMENT,
      ".github/playbooks/approve-pull.yaml": APPROVE_THEN_PULL,
      ...files,
    },
    // Real time: the replicas' clocks and the fake's agree.
    clock: () => new Date(),
    // One GitHub: comment ids never repeat across the installations' repositories.
    firstCommentId: 1000 + (installation - 2) * 10_000_000,
  });
  fake.installationId = installation;
  fake.repositoryId = 186853002 + (installation - 2) * 1000;
  fake.permissions.set("alice", "write");
  fake.permissions.set("carol", "maintain");
  return fake;
}

// ---------------------------------------------------------------------------------------------
// The fake GitHub on loopback
// ---------------------------------------------------------------------------------------------

/** Which requests a fault applies to: all of them unless narrowed. */
export interface RequestMatch {
  method?: string;
  /** Tested against the path without `/api/v3` (query string included). */
  path?: RegExp;
  installation?: number;
}

export type FaultKind =
  /** The answer comes `ms` later (the work is done at once). */
  | { kind: "hang"; ms: number }
  /** The request is performed (a POST creates its resource), then answered with this 5xx. */
  | { kind: "fail-after-write"; status: number }
  /** Refused, not performed: 403 "secondary rate limit" with `retry-after` seconds. */
  | { kind: "secondary-limit"; retryAfter: number };

interface FaultRule {
  match: RequestMatch;
  fault: FaultKind;
  remaining: number;
  /** The share of matching requests it applies to (1: every one). */
  share: number;
}

/** One request as the fake GitHub saw it. */
export interface SeenRequest {
  at: number;
  method: string;
  path: string;
  /** The path with ids, SHAs, refs and file paths replaced by placeholders. */
  route: string;
  /** The installation whose token made it; `app` for the app's JWT; undefined without either. */
  installation: number | "app" | undefined;
  status: number;
  write: boolean;
  /** The faults it was given, if any. */
  faults?: FaultKind["kind"][];
}

const WRITE_METHODS = new Set(["POST", "PATCH", "PUT", "DELETE"]);

/** `/repos/o/r/issues/12/comments?page=2` → `/repos/:owner/:repo/issues/:n/comments`. */
export function routeOf(path: string): string {
  return path
    .split("?")[0]!
    .replace(/^\/repos\/[^/]+\/[^/]+/, "/repos/:owner/:repo")
    .replace(/\/git\/(ref|refs|matching-refs)\/.+$/, "/git/$1/:ref")
    .replace(/\/contents\/.+$/, "/contents/:path")
    .replace(/\/(collaborators|memberships)\/[^/]+/, "/$1/:user")
    .replace(/\/[0-9a-f]{40}(?=\/|$)/g, "/:sha")
    .replace(/\/(compare|commits)\/(?!:sha)[^/]+$/, "/$1/:ref")
    .replace(/\/\d+(?=\/|$)/g, "/:n");
}

/**
 * One or more `FakeGitHub`s (one per installation, each with its own owner) served over HTTP as
 * GitHub Enterprise's API (`GHE_HOST`, `/api/v3`). Requests reach the fake whose owner the path
 * names, or whose installation the token belongs to.
 */
export class LoopbackGitHub {
  readonly fakes: FakeGitHub[];
  readonly seen: SeenRequest[] = [];
  /** `host:port`, for GHE_HOST. */
  host = "";
  /** Requests matching `hold` wait until `release()` (as long as it takes). */
  hold: ((method: string, path: string) => boolean) | undefined;
  held: string[] = [];
  /** The client port of each held request's connection (`OperatorBench.replicaFrom` names it). */
  heldFrom: number[] = [];
  private server: Server | undefined;
  private rules: FaultRule[] = [];
  private waiting: (() => void)[] = [];
  private heldListeners: (() => void)[] = [];
  private tokens = 0;
  /** Listeners called after each request is performed (e.g. to forward the events it caused). */
  private listeners: ((seen: SeenRequest) => void)[] = [];

  constructor(fakes: FakeGitHub | FakeGitHub[]) {
    this.fakes = Array.isArray(fakes) ? fakes : [fakes];
  }

  /** The port it listens on (once started). */
  get port(): number {
    return Number(this.host.split(":").pop());
  }

  /** The first (often the only) fake. */
  get fake(): FakeGitHub {
    return this.fakes[0]!;
  }

  /** Listens on `port` (default: any free one; the same one again to stand in for a restart). */
  async start(port = 0): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        void this.answer(req, Buffer.concat(chunks).toString("utf8")).then(
          ([status, data, headers]) => {
            res.writeHead(status, {
              "content-type": "application/json",
              "x-ratelimit-remaining": "4321",
              "x-ratelimit-resource": "core",
              ...headers,
            });
            res.end(status === 204 || status === 304 ? undefined : JSON.stringify(data ?? null));
          },
        );
      });
    });
    // Replicas keep connections alive; many deliveries at once open many.
    this.server.maxConnections = 10_000;
    await new Promise<void>((resolve) => this.server?.listen(port, "127.0.0.1", resolve));
    this.host = `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.host;
  }

  onRequest(listener: (seen: SeenRequest) => void): void {
    this.listeners.push(listener);
  }

  /** Answers of matching requests come `ms` late (`times` requests; all by default). */
  hang(match: RequestMatch, ms: number, times = Infinity, share = 1): this {
    return this.fault(match, { kind: "hang", ms }, times, share);
  }

  /** Matching requests are performed, then answered `status` (502 by default). */
  failAfterWrite(match: RequestMatch, status = 502, times = 1, share = 1): this {
    return this.fault(match, { kind: "fail-after-write", status }, times, share);
  }

  /** Matching requests are refused with GitHub's secondary rate limit (403, `retry-after`). */
  secondaryRateLimit(match: RequestMatch, retryAfter = 60, times = 1, share = 1): this {
    return this.fault(match, { kind: "secondary-limit", retryAfter }, times, share);
  }

  /** `times` matching requests (or, with `share` < 1, about that share of them) get the fault. */
  fault(match: RequestMatch, fault: FaultKind, times: number, share = 1): this {
    this.rules.push({ match, fault, remaining: times, share });
    return this;
  }

  clearFaults(): void {
    this.rules = [];
  }

  /** Requests by `METHOD route`. */
  countByRoute(filter: (r: SeenRequest) => boolean = () => true): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const r of this.seen.filter(filter)) {
      const key = `${r.method} ${r.route}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }

  /** Requests and writes by installation (`app` for the app's JWT). */
  countByInstallation(): Map<number | "app" | undefined, { requests: number; writes: number }> {
    const counts = new Map<number | "app" | undefined, { requests: number; writes: number }>();
    for (const r of this.seen) {
      const c = counts.get(r.installation) ?? { requests: 0, writes: 0 };
      c.requests++;
      if (r.write) c.writes++;
      counts.set(r.installation, c);
    }
    return counts;
  }

  /** When each write was made (ms since the epoch), optionally of one installation. */
  writeTimes(installation?: number): number[] {
    return this.seen
      .filter((r) => r.write && (installation === undefined || r.installation === installation))
      .map((r) => r.at);
  }

  /** Resolves once a request is held. */
  heldOne(): Promise<void> {
    if (this.held.length) return Promise.resolve();
    return new Promise((resolve) => this.heldListeners.push(resolve));
  }

  release(): void {
    this.hold = undefined;
    for (const r of this.waiting.splice(0)) r();
  }

  async stop(): Promise<void> {
    this.release();
    this.listeners = [];
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  private async answer(req: IncomingMessage, body: string): Promise<Reply> {
    const method = (req.method ?? "GET").toUpperCase();
    const path = (req.url ?? "/").replace(/^\/api\/v3/, "");
    if (this.hold?.(method, path)) {
      this.held.push(`${method} ${path}`);
      this.heldFrom.push(req.socket.remotePort ?? 0);
      for (const l of this.heldListeners.splice(0)) l();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    const installation = this.installationOf(path, req.headers.authorization);
    // Every matching rule applies: a slow answer can also be a 502.
    const faults = this.rules
      .filter(
        (r) =>
          r.remaining > 0 &&
          (!r.match.method || r.match.method === method) &&
          (!r.match.path || r.match.path.test(path)) &&
          (r.match.installation === undefined || r.match.installation === installation) &&
          (r.share >= 1 || Math.random() < r.share),
      )
      .map((r) => (r.remaining--, r.fault));
    const limited = faults.find((f) => f.kind === "secondary-limit");
    let reply: Reply = limited
      ? [
          403,
          {
            message: "You have exceeded a secondary rate limit. Please wait a few minutes.",
            documentation_url:
              "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
          },
          { "retry-after": String(limited.retryAfter) },
        ]
      : this.perform(method, path, body, req.headers["if-none-match"], installation);
    const failed = limited ? undefined : faults.find((f) => f.kind === "fail-after-write");
    const seen: SeenRequest = {
      at: Date.now(),
      method,
      path,
      route: routeOf(path),
      installation,
      status: failed ? failed.status : reply[0],
      write: WRITE_METHODS.has(method),
      ...(faults.length ? { faults: faults.map((f) => f.kind) } : {}),
    };
    this.seen.push(seen);
    for (const l of this.listeners) l(seen);
    const late = faults.reduce((ms, f) => ms + (f.kind === "hang" ? f.ms : 0), 0);
    if (late) await sleep(late);
    if (failed) reply = [failed.status, { message: "Server Error" }, reply[2]];
    return reply;
  }

  private perform(
    method: string,
    path: string,
    body: string,
    ifNoneMatch: string | string[] | undefined,
    installation: number | "app" | undefined,
  ): Reply {
    const fake = this.fakeFor(path, installation);
    if (path.split("?")[0] === "/app/installations" && method === "GET")
      // Every installation, as GitHub lists the app's.
      return [200, this.fakes.map((f) => ({ id: f.installationId, account: f.user(f.owner) })), {}];
    const reply =
      typeof ifNoneMatch === "string"
        ? fake.conditional(method, path, body, ifNoneMatch)
        : fake.handle(method, path, body);
    const token = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (token && reply[0] === 201)
      // A token that names its installation, so later requests are counted by installation.
      return [
        201,
        { ...(reply[1] as object), token: `ghs_i${token[1]}_${++this.tokens}` },
        reply[2],
      ];
    return reply;
  }

  private installationOf(
    path: string,
    authorization: string | undefined,
  ): number | "app" | undefined {
    const minting = /^\/app\/installations\/(\d+)\//.exec(path);
    if (minting) return Number(minting[1]);
    const token = /^token ghs_i(\d+)_/.exec(authorization ?? "");
    if (token) return Number(token[1]);
    return /^bearer /i.test(authorization ?? "") ? "app" : undefined;
  }

  private fakeFor(path: string, installation: number | "app" | undefined): FakeGitHub {
    const owner = /^\/(?:repos|orgs)\/([^/?]+)/.exec(path)?.[1];
    const minting = /^\/app\/installations\/(\d+)\//.exec(path)?.[1];
    return (
      this.fakes.find((f) => owner !== undefined && f.owner === owner) ??
      this.fakes.find((f) => minting !== undefined && f.installationId === Number(minting)) ??
      this.fakes.find((f) => f.installationId === installation) ??
      this.fake
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Webhook payloads and deliveries, as GitHub sends them
// ---------------------------------------------------------------------------------------------

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Payload = Record<string, any>;
type Definition = { name: string; examples: Payload[] };
let examples: Definition[] | undefined;

/** A real payload from @octokit/webhooks-examples, moved to the fake's repository and installation. */
export function examplePayload(fake: FakeGitHub, name: string, action: string): Payload {
  examples ??= createRequire(import.meta.url)(
    "@octokit/webhooks-examples/api.github.com/index.json",
  ) as Definition[];
  const found = examples.find((d) => d.name === name)?.examples.find((e) => e.action === action);
  if (!found) throw new Error(`no example ${name}.${action}`);
  const p = structuredClone(found);
  p.installation = { id: fake.installationId };
  p.repository = {
    ...p.repository,
    id: fake.repositoryId,
    name: fake.name,
    full_name: `${fake.owner}/${fake.name}`,
    owner: { ...p.repository.owner, ...fake.user(fake.owner) },
    default_branch: fake.repo.defaultBranch,
  };
  return p;
}

function issuePayload(fake: FakeGitHub, number: number): Payload {
  const issue = fake.issues.get(number);
  if (!issue) throw new Error(`no issue ${number}`);
  return { ...examplePayload(fake, "issues", "opened").issue, ...fake.restIssue(issue) };
}

/** `issues.labeled` for a label someone just added on the fake (`fake.labelAs`). */
export function labeledPayload(
  fake: FakeGitHub,
  issue: number,
  label: string,
  by: string,
): Payload {
  const p = examplePayload(fake, "issues", "labeled");
  p.issue = issuePayload(fake, issue);
  p.label = { ...p.label, name: label };
  p.sender = fake.user(by);
  return p;
}

/** `issue_comment.<action>` for a comment event the fake recorded. */
export function commentPayload(fake: FakeGitHub, ev: PendingCommentEvent): Payload {
  const p = examplePayload(fake, "issue_comment", ev.action);
  p.comment = { ...p.comment, ...fake.restComment(ev.comment) };
  p.issue = issuePayload(fake, ev.comment.issue);
  p.sender = ev.sender ?? ev.comment.user;
  if (ev.action === "edited") p.changes = { body: { from: ev.previous ?? "" } };
  return p;
}

export function signDelivery(body: string, secret = OPERATOR_SECRET): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** One delivery as GitHub saw it: sent, then answered (status), or failed (error). */
export interface DeliveryRecord {
  id: string;
  event: string;
  issue: number | undefined;
  replica: number;
  sentAt: number;
  answeredAt?: number;
  status?: number;
  /** No answer: the replica was down, the connection broke, or 10 s passed (`timed out`). */
  error?: string;
}

/** What GitHub counts as delivered: a 2xx answer within 10 s. */
export function delivered(d: DeliveryRecord): boolean {
  return d.status !== undefined && d.status >= 200 && d.status < 300;
}

// ---------------------------------------------------------------------------------------------
// Replicas: `npm start` processes
// ---------------------------------------------------------------------------------------------

export interface RssSample {
  at: number;
  kib: number;
}

/** The inode of the TCP socket whose local port is `port` (a client's end), from /proc/net. */
function socketInodeOf(port: number): string | undefined {
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const cols = line.trim().split(/\s+/);
      const local = cols[1]?.split(":").pop();
      if (local !== undefined && Number.parseInt(local, 16) === port && cols[9] !== "0")
        return cols[9];
    }
  }
  return undefined;
}

/** VmRSS of a process in KiB (Linux), or undefined once it is gone. */
export function rssOf(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** One `npm start` in its own directory (with its `.env`), on its own port; restartable. */
export class Replica {
  child: ChildProcess | undefined;
  exited: Promise<void> = Promise.resolve();
  /** Every JSON log line of every incarnation, in order. */
  readonly logs: Record<string, unknown>[] = [];
  stderr = "";
  readonly rss: RssSample[] = [];
  /** How many times the process was started. */
  starts = 0;
  /** `/readyz` answered 200 since the last start: a load balancer sends it deliveries. */
  serving = false;
  private partial = "";
  private sampler: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly index: number,
    readonly dir: string,
    readonly port: number,
    private readonly rssEveryMs: number,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && !this.child.signalCode;
  }

  /** Starts the process (nothing else of the environment than PATH: the rest is in `.env`). */
  spawn(): void {
    if (this.running) throw new Error(`replica ${this.index} is running`);
    this.starts++;
    this.serving = false;
    const child = spawn(process.execPath, [SERVER_SCRIPT], {
      cwd: this.dir,
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    this.partial = "";
    child.stdout?.on("data", (c: Buffer) => this.takeStdout(c.toString()));
    child.stderr?.on(
      "data",
      (c: Buffer) => (this.stderr = (this.stderr + c.toString()).slice(-20_000)),
    );
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    clearInterval(this.sampler);
    this.sampler = setInterval(() => this.sample(), this.rssEveryMs);
    this.sampler.unref();
  }

  /** Waits until `/readyz` answers 200. */
  async ready(timeoutMs = 30_000): Promise<this> {
    await waitFor(
      `replica ${this.index} to be ready`,
      async () => {
        if (!this.running)
          throw new Error(`replica ${this.index} exited before it was ready:\n${this.stderr}`);
        try {
          return (await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(2000) })).ok;
        } catch {
          return false;
        }
      },
      { timeoutMs, everyMs: 100 },
    );
    this.serving = true;
    return this;
  }

  /** `kill -9`: nothing is finished, nothing is said. */
  async kill9(): Promise<void> {
    this.serving = false;
    if (!this.running) return;
    this.child?.kill("SIGKILL");
    await this.exited;
  }

  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  async stop(graceMs = 30_000): Promise<void> {
    this.serving = false;
    if (this.running) {
      this.child?.kill("SIGTERM");
      const late = setTimeout(() => this.child?.kill("SIGKILL"), graceMs);
      await this.exited;
      clearTimeout(late);
    }
    clearInterval(this.sampler);
  }

  async restart(): Promise<this> {
    await this.kill9();
    this.spawn();
    return this.ready();
  }

  sample(): void {
    const pid = this.child?.pid;
    const kib = pid && this.running ? rssOf(pid) : undefined;
    if (kib !== undefined) this.rss.push({ at: Date.now(), kib });
  }

  /** A metric's value from `/metrics` (`name{labels}` as written there). */
  async metric(line: string): Promise<number | undefined> {
    const text = await (await fetch(`${this.url}/metrics`)).text();
    const found = text.split("\n").find((l) => l.startsWith(`${line} `));
    return found === undefined ? undefined : Number(found.slice(line.length + 1));
  }

  private takeStdout(text: string): void {
    const lines = (this.partial + text).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith("{")) continue;
      try {
        this.logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // a line cut by kill -9
      }
    }
  }
}

export interface OperatorOptions {
  /** The fake GitHub(s) to serve, one per installation. */
  fakes: FakeGitHub | FakeGitHub[];
  replicas?: number;
  /** The redis-server's URL, shared by the replicas (none: each keeps state in memory). */
  redisUrl?: string;
  /** REDIS_PREFIX; a fresh one by default. */
  redisPrefix?: string;
  /** More settings for every replica's `.env`. */
  env?: Record<string, string>;
  rssEveryMs?: number;
}

/**
 * The fake GitHub on loopback, N replicas against it, and GitHub's webhook sender: deliveries go to
 * the replicas in turn (skipping those down or still starting, as a load balancer would), and the
 * comment events the fakes record are forwarded as deliveries as soon as they happen. `stop()`
 * ends every process.
 */
export class OperatorBench {
  readonly github: LoopbackGitHub;
  readonly replicas: Replica[] = [];
  readonly deliveries: DeliveryRecord[] = [];
  /** Comment events are forwarded to the replicas (as GitHub sends them) while true. */
  forwardEvents = true;
  private inFlight = new Set<Promise<DeliveryRecord>>();
  private turn = 0;
  private dirs: string[] = [];

  private constructor(private readonly options: OperatorOptions) {
    this.github = new LoopbackGitHub(options.fakes);
  }

  get fake(): FakeGitHub {
    return this.github.fake;
  }

  /** If the test process ends without `stop()`, its replicas do not outlive it. */
  private readonly killOnExit = () => {
    for (const r of this.replicas) if (r.running) r.child?.kill("SIGKILL");
  };

  static async start(options: OperatorOptions): Promise<OperatorBench> {
    const bench = new OperatorBench(options);
    process.once("exit", bench.killOnExit);
    try {
      await bench.github.start();
      // Events are forwarded right after the request that caused them is answered.
      bench.github.onRequest(() => setImmediate(() => bench.forward()));
      const prefix = options.redisPrefix ?? `bench-${randomUUID().slice(0, 8)}:`;
      for (let i = 0; i < (options.replicas ?? 2); i++)
        bench.replicas.push(await bench.makeReplica(i, prefix));
      for (const r of bench.replicas) r.spawn();
      await Promise.all(bench.replicas.map((r) => r.ready()));
      return bench;
    } catch (err) {
      await bench.stop();
      throw err;
    }
  }

  /** Opens an issue on the fake (the first unless another is named). */
  openIssue(title: string, author = "alice", fake = this.fake): ApiIssue {
    return fake.openIssue(title, "Opened by the operator bench.", author);
  }

  /** Someone labels an issue; GitHub delivers `issues.labeled` (to `to`, or the next replica up). */
  label(
    issue: number,
    label: string,
    by: string,
    options: { fake?: FakeGitHub; to?: Replica } = {},
  ): Promise<DeliveryRecord> {
    const fake = options.fake ?? this.fake;
    fake.labelAs(issue, label, by);
    return this.deliver("issues", labeledPayload(fake, issue, label, by), options);
  }

  /** Someone comments (`/approve`); the created event is forwarded with the others. */
  comment(issue: number, by: string, body: string, fake = this.fake): void {
    fake.postAs(issue, by, body);
    this.forward();
  }

  /** Sends one signed delivery to a replica (the next one up, or `to`), as GitHub does: once. */
  deliver(
    event: string,
    payload: Payload,
    options: { id?: string; to?: Replica } = {},
  ): Promise<DeliveryRecord> {
    const to = options.to ?? this.nextReplica();
    const body = JSON.stringify(payload);
    const record: DeliveryRecord = {
      id: options.id ?? randomUUID(),
      event: payload.action ? `${event}.${String(payload.action)}` : event,
      issue:
        typeof payload.issue?.number === "number" ? (payload.issue.number as number) : undefined,
      replica: to.index,
      sentAt: Date.now(),
    };
    this.deliveries.push(record);
    const sent = fetch(`${to.url}/api/github/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": event,
        "x-github-delivery": record.id,
        "x-hub-signature-256": signDelivery(body),
      },
      body,
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    })
      .then(async (res) => {
        await res.arrayBuffer();
        record.status = res.status;
      })
      .catch((err: unknown) => {
        record.error =
          err instanceof Error && err.name === "TimeoutError"
            ? "timed out"
            : String((err as Error).cause ?? err);
      })
      .then(() => {
        record.answeredAt = Date.now();
        this.inFlight.delete(sent);
        return record;
      });
    this.inFlight.add(sent);
    return sent;
  }

  /** Forwards the comment events every fake recorded since the last call. */
  forward(): void {
    if (!this.forwardEvents) return;
    for (const fake of this.github.fakes)
      for (let ev = fake.events.shift(); ev; ev = fake.events.shift())
        void this.deliver("issue_comment", commentPayload(fake, ev));
  }

  /** Waits until every delivery sent so far has been answered (or has failed). */
  async settled(timeoutMs = 30_000): Promise<void> {
    await waitFor("the deliveries in flight to be answered", () => this.inFlight.size === 0, {
      timeoutMs,
    });
  }

  /** The run of the newest status comment on an issue (read, not verified), if any. */
  runOf(issue: number, fake = this.fake): RunState | undefined {
    const status = fake.statusComments(issue).at(-1);
    const read = status ? readStatusUnverified(status.body) : undefined;
    return read?.ok ? read.run : undefined;
  }

  /** Whether the run on the issue waits for an answer it has announced (a checkpoint). */
  announced(issue: number, fake = this.fake): boolean {
    const run = this.runOf(issue, fake);
    return run?.status === "waiting" && run.stack.some((f) => f.prompt !== undefined);
  }

  /**
   * The running replica whose process owns the loopback connection from client port `port` (as
   * `heldFrom` records it): the one that sent a held request. Read from Linux's /proc.
   */
  replicaFrom(port: number): Replica | undefined {
    const inode = socketInodeOf(port);
    if (inode === undefined) return undefined;
    return this.replicas.find((r) => {
      const pid = r.running ? r.child?.pid : undefined;
      if (!pid) return false;
      try {
        return readdirSync(`/proc/${pid}/fd`).some((fd) => {
          try {
            return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`;
          } catch {
            return false; // closed meanwhile
          }
        });
      } catch {
        return false;
      }
    });
  }

  /** Every log line of every replica (each with `replica`: its index). */
  logs(): Record<string, unknown>[] {
    return this.replicas.flatMap((r) => r.logs.map((l) => ({ ...l, replica: r.index })));
  }

  /** Ends every replica (SIGKILL: nothing is waited for), the fake GitHub, and the directories. */
  async stop(): Promise<void> {
    this.forwardEvents = false;
    process.off("exit", this.killOnExit);
    await Promise.all(this.replicas.map((r) => r.kill9().then(() => r.stop(0))));
    await this.github.stop();
    for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }

  private nextReplica(): Replica {
    // As a load balancer does: only to replicas whose /readyz said 200 since they started (one
    // still starting would refuse the connection, and GitHub does not send again).
    const up = this.replicas.filter((r) => r.running && r.serving);
    // All down: GitHub still sends, to a replica that refuses the connection.
    const pool = up.length ? up : this.replicas;
    return pool[this.turn++ % pool.length]!;
  }

  private async makeReplica(index: number, prefix: string): Promise<Replica> {
    const dir = mkdtempSync(join(tmpdir(), `playbook-bot-replica-${index}-`));
    this.dirs.push(dir);
    writeFileSync(join(dir, "app.pem"), appPrivateKey());
    const port = await freePort();
    const env: Record<string, string> = {
      APP_ID: String(OPERATOR_APP_ID),
      PRIVATE_KEY_PATH: "app.pem",
      WEBHOOK_SECRET: OPERATOR_SECRET,
      HOST: "127.0.0.1",
      PORT: String(port),
      GHE_HOST: this.github.host,
      GHE_PROTOCOL: "http",
      LOG_LEVEL: "info",
      ...(this.options.redisUrl ? { REDIS_URL: this.options.redisUrl, REDIS_PREFIX: prefix } : {}),
      ...this.options.env,
    };
    writeFileSync(
      join(dir, ".env"),
      Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join("\n") + "\n",
    );
    return new Replica(index, dir, port, this.options.rssEveryMs ?? 1000);
  }
}

/**
 * Deliveries GitHub counts as delivered but whose work failed, from the replicas' JSON logs: the
 * delivery's last line says `outcome: failed`, or no line ends it (the process died first).
 */
export function failedAfterAnswer(
  deliveries: readonly DeliveryRecord[],
  logs: readonly Record<string, unknown>[],
): DeliveryRecord[] {
  const outcome = new Map<string, string>();
  for (const l of logs)
    if (typeof l.id === "string" && typeof l.outcome === "string") outcome.set(l.id, l.outcome);
  return deliveries.filter((d) => delivered(d) && (outcome.get(d.id) ?? "none") === "failed");
}

/** Deliveries answered 2xx that no replica's log ever ended (the work was cut off). */
export function unfinished(
  deliveries: readonly DeliveryRecord[],
  logs: readonly Record<string, unknown>[],
): DeliveryRecord[] {
  const ended = new Set<string>();
  for (const l of logs)
    if (typeof l.id === "string" && typeof l.outcome === "string") ended.add(l.id);
  return deliveries.filter((d) => delivered(d) && !ended.has(d.id));
}

/**
 * An operator suite's shared rig: one real redis-server for the file (started before its first
 * test, stopped after its last) and the bench each test starts on it (stopped after the test).
 */
export function operatorSuite(): {
  start(options: Omit<OperatorOptions, "redisUrl">): Promise<OperatorBench>;
} {
  let redis: RedisServer | undefined;
  let bench: OperatorBench | undefined;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  afterEach(async () => {
    await bench?.stop();
    bench = undefined;
  });
  return {
    async start(options) {
      if (!redis) throw new Error("operatorSuite: the redis-server has not started");
      bench = await OperatorBench.start({ ...options, redisUrl: redis.url });
      return bench;
    },
  };
}
