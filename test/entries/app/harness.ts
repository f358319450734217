import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import nock from "nock";
import { Probot, ProbotOctokit } from "probot";
import {
  createPlaybookBot,
  type PlaybookBotOptions,
} from "../../../src/adapters/github-app/app.js";
import { readStatusComment } from "../../../src/runtime/run-service/status-comment.js";
import { repositoryStateKey, type StateSeal } from "../../../src/runtime/state-codec.js";
import type { AppConfig } from "../../../src/adapters/github-app/config.js";
import type { PlaybookDiscovery } from "../../../src/adapters/github/discovery.js";
import {
  OctokitPort,
  type Octokit,
  type OctokitPortOptions,
} from "../../../src/adapters/github/octokit-port.js";
import { MockAiAdapter, type AiAdapter } from "../../../src/runtime/ai.js";
import { FakeGitHub, type PendingCommentEvent } from "../../helpers/fake-github.js";
import type { Coordination } from "../../../src/runtime/coordination.js";
import type { AppMetrics } from "../../../src/adapters/metrics/metrics.js";

export const APP_ID = 4242;
export const OWNER = "Codertocat";
export const REPO = "Hello-World";
export const BRANCH = "master";
export const CONFIG: AppConfig = {
  appId: APP_ID,
  webhookSecret: "webhook-secret",
  stateSecret: "state-secret-for-tests",
};

type Definition = { name: string; examples: Record<string, unknown>[] };
const examples = createRequire(import.meta.url)(
  "@octokit/webhooks-examples/api.github.com/index.json",
) as Definition[];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Payload = Record<string, any>;

/** The example payloads' repository, as the fake GitHub serves it. */
export const EXAMPLE_REPO = { owner: OWNER, repo: REPO, defaultBranch: BRANCH, appId: APP_ID };

/** An installation Octokit for tests: no retries or throttling, so every fault shows at once. */
export function testOctokit(): Octokit {
  return new ProbotOctokit({
    auth: { token: "test" },
    retry: { enabled: false },
    throttle: { enabled: false },
  }) as unknown as Octokit;
}

/** The app's GitHub port for the example repository, against whatever nock serves. */
export function testPort(extra: Partial<OctokitPortOptions> = {}): OctokitPort {
  return new OctokitPort({
    octokit: testOctokit(),
    owner: OWNER,
    repo: REPO,
    defaultBranch: BRANCH,
    appId: APP_ID,
    ai: new MockAiAdapter(),
    ...extra,
  });
}

/** The installation and repository of the example payloads (the state key is derived from them). */
export const INSTALLATION_ID = 2;
export const REPO_ID = 186853002;

/** The seal of a status comment on an issue of the example repository. */
export function sealOf(issue: number, comment: number | string): StateSeal {
  return {
    key: repositoryStateKey(CONFIG.stateSecret, INSTALLATION_ID, REPO_ID),
    issue,
    comment: String(comment),
  };
}

/** A status comment's run, verified as the app verifies it (sealed to that comment and issue). */
export function readStatus(c: { id: number | string; issue: number; body: string } | undefined) {
  if (!c) return { ok: false as const, reason: "absent" as const, detail: "no status comment" };
  return readStatusComment(c.body, sealOf(c.issue, c.id));
}

/** A real example payload (deep-cloned), with the installation Probot needs to authenticate. */
export function example(name: string, action: string, index = 0): Payload {
  const def = examples.find((d) => d.name === name);
  const found = def?.examples.filter((e) => e.action === action)[index];
  if (!found) throw new Error(`no example ${name}.${action}[${index}]`);
  return { ...structuredClone(found), installation: { id: INSTALLATION_ID } } as Payload;
}

export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
) => boolean | void | Promise<boolean | void>;

/** A clock that moves one second per reading, shared by the fake and the app. */
/**
 * A fake GitHub holding these files on the default branch, answering every request from now on,
 * with these people's roles.
 */
export function installedRepository(
  files: Record<string, string>,
  people: Record<string, string> = {},
  clock = makeClock(),
): FakeGitHub {
  nock.disableNetConnect();
  const fake = new FakeGitHub({ ...EXAMPLE_REPO, clock, files }).install();
  for (const [login, role] of Object.entries(people)) fake.permissions.set(login, role);
  return fake;
}

/**
 * The app started on a fake GitHub serving these repository files, with people's roles
 * (`{ alice: "write" }`); the network is closed to anything else.
 */
export async function startApp(
  files: Record<string, string>,
  roles: Record<string, string>,
): Promise<{ fake: FakeGitHub; h: Harness }> {
  nock.disableNetConnect();
  const clock = makeClock();
  const fake = new FakeGitHub({ ...EXAMPLE_REPO, clock, files }).install();
  for (const [who, role] of Object.entries(roles)) fake.permissions.set(who, role);
  return { fake, h: await new Harness(fake, clock).start() };
}

export function makeClock(start = "2026-03-01T09:00:00Z"): () => Date {
  let t = Date.parse(start);
  return () => new Date((t += 1000));
}

export async function makeProbot(
  options: {
    clock?: () => Date;
    discovery?: PlaybookDiscovery;
    config?: AppConfig;
    requestTimeoutMs?: number;
    /** Shared with other replicas (default: the app's own, from the config). */
    coordination?: Coordination;
    lockLeaseMs?: number;
    /** The app's timer and start-up scan (default: off; tests that need time pass it). */
    wakeUps?: PlaybookBotOptions["wakeUps"];
    /** The AI adapter (default: the app's, from the environment: the mock). */
    ai?: AiAdapter;
    /** Octokit's retry plugin on, as in production (default: off, so every fault shows at once). */
    octokitRetries?: boolean;
    /** The reconcile sweep (default: off; tests that need it pass it). */
    reconcile?: PlaybookBotOptions["reconcile"];
    /** Where the app's metrics are kept (default: a registry of its own). */
    metrics?: AppMetrics;
    /** Approvals a state names without their comments are believed (the app server's setting). */
    stateKeyPrivate?: boolean;
  } = {},
): Promise<{ probot: Probot; handlers: Handler[]; close: () => Promise<void> }> {
  const probot = new Probot({
    appId: APP_ID,
    githubToken: "test",
    Octokit: testOctokitClass(options.octokitRetries === true),
    logLevel: "fatal",
  });
  const handlers: Handler[] = [];
  const bot = createPlaybookBot({
    config: options.config ?? CONFIG,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.discovery ? { discovery: options.discovery } : {}),
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
    ...(options.coordination ? { coordination: options.coordination } : {}),
    ...(options.lockLeaseMs ? { lockLeaseMs: options.lockLeaseMs } : {}),
    wakeUps: options.wakeUps ?? false,
    reconcile: options.reconcile ?? false,
    ...(options.metrics ? { metrics: options.metrics } : {}),
    ...(options.ai ? { ai: options.ai } : {}),
    ...(options.stateKeyPrivate ? { stateKeyPrivate: true } : {}),
  });
  await probot.load(bot, {
    cwd: process.cwd(),
    addHandler: (h: Handler) => void handlers.push(h),
  });
  return { probot, handlers, close: bot.close };
}

/**
 * Probot's Octokit for tests: no throttling (its pauses between writes would slow every test),
 * and Octokit's retries off unless asked for (then as in production: up to 3, after 1, 4 and 9 s).
 */
export function testOctokitClass(retries: boolean): typeof ProbotOctokit {
  return ProbotOctokit.defaults((o: Record<string, unknown>) => ({
    ...o,
    ...(retries ? {} : { retry: { enabled: false } }),
    throttle: { enabled: false },
  }));
}

export function strictNock(): void {
  nock.disableNetConnect();
}

/**
 * The app against a FakeGitHub, with helpers that deliver webhooks as GitHub would: the comment
 * events the app's own requests cause are queued in the fake and delivered by `drain()`.
 */
export class Harness {
  probot!: Probot;
  private delivery = 0;
  /** Deliveries made, in order (for redelivery after a crash). */
  readonly delivered: { id: string; name: string; payload: Payload }[] = [];

  constructor(
    readonly fake: FakeGitHub,
    readonly clock: () => Date,
  ) {}

  /** Request timeout of the app's GitHub client in the next `start()` (default: the app's). */
  requestTimeoutMs: number | undefined;
  /** The coordination store of the next `start()` (default: a new in-memory one per start). */
  coordination: Coordination | undefined;
  /** The app's timer in the next `start()` (default: none; see PlaybookBotOptions.wakeUps). */
  wakeUps: PlaybookBotOptions["wakeUps"] = false;
  /** The AI adapter of the next `start()` (default: the mock). */
  ai: AiAdapter | undefined;
  /** Octokit's retry plugin on in the next `start()`, as in production (default: off). */
  octokitRetries = false;
  /** The reconcile sweep of the next `start()` (default: none). */
  reconcile: PlaybookBotOptions["reconcile"] = false;
  /** The metrics of the next `start()` (default: a registry of the app's own). */
  metrics: AppMetrics | undefined;
  /** Approvals a state names without their comments are believed in the next `start()`. */
  stateKeyPrivate = false;
  /** The app's close hook from the last `start()`: its timer stops, its own store closes. */
  close: () => Promise<void> = async () => undefined;

  /** A new process: a new Probot and app (caches and dedupe are gone). */
  async start(): Promise<this> {
    const started = await makeProbot({
      clock: this.clock,
      ...(this.requestTimeoutMs ? { requestTimeoutMs: this.requestTimeoutMs } : {}),
      ...(this.coordination ? { coordination: this.coordination } : {}),
      wakeUps: this.wakeUps,
      reconcile: this.reconcile,
      ...(this.metrics ? { metrics: this.metrics } : {}),
      ...(this.ai ? { ai: this.ai } : {}),
      octokitRetries: this.octokitRetries,
      ...(this.stateKeyPrivate ? { stateKeyPrivate: true } : {}),
    });
    this.probot = started.probot;
    this.close = started.close;
    return this;
  }

  nextId(): string {
    return `delivery-${++this.delivery}`;
  }

  /**
   * When set, a delivery that fails is treated as a process crash: a new process starts and
   * GitHub redelivers the same delivery (same id).
   */
  restartOnFailure = false;
  /** Deliveries that failed (crashed the process) and were redelivered. */
  readonly crashes: { id: string; name: string; error: unknown }[] = [];

  async deliver(name: string, payload: Payload, id = this.nextId()): Promise<string> {
    this.delivered.push({ id, name, payload });
    try {
      await this.probot.receive({ id, name, payload } as never);
    } catch (error) {
      if (!this.restartOnFailure) throw error;
      this.crashes.push({ id, name, error });
      await this.start();
      await this.probot.receive({ id, name, payload } as never);
    }
    return id;
  }

  issuePayload(number: number): Payload {
    const issue = this.fake.issues.get(number);
    if (!issue) throw new Error(`no issue ${number}`);
    return { ...example("issues", "opened").issue, ...this.fake.restIssue(issue) };
  }

  commentPayload(ev: PendingCommentEvent): Payload {
    const p = example("issue_comment", ev.action);
    p.comment = { ...p.comment, ...this.fake.restComment(ev.comment) };
    p.issue = this.issuePayload(ev.comment.issue);
    p.sender = ev.sender ?? ev.comment.user;
    if (ev.action === "edited") p.changes = { body: { from: ev.previous ?? "" } };
    return p;
  }

  labeledPayload(issue: number, label: string, by: string): Payload {
    const p = example("issues", "labeled");
    p.issue = this.issuePayload(issue);
    p.label = { ...p.label, name: label };
    p.sender = this.fake.user(by);
    return p;
  }

  async label(issue: number, label: string, by: string): Promise<string> {
    // As GitHub records it: the label event, and the issue's last change.
    this.fake.labelAs(issue, label, by);
    return this.deliver("issues", this.labeledPayload(issue, label, by));
  }

  /** Take the next pending comment event, if any. */
  takeEvent(): PendingCommentEvent | undefined {
    return this.fake.events.shift();
  }

  /** Deliver pending comment events (and those they cause) until none is left. */
  async drain(limit = 200): Promise<number> {
    let n = 0;
    for (let ev = this.takeEvent(); ev; ev = this.takeEvent()) {
      if (++n > limit) throw new Error("too many events: a loop?");
      await this.deliver("issue_comment", this.commentPayload(ev));
    }
    return n;
  }

  /** A person comments; the created event is delivered with the rest of the queue. */
  async comment(issue: number, login: string, body: string): Promise<number> {
    const c = this.fake.postAs(issue, login, body);
    await this.drain();
    return c.id;
  }

  async closePull(number: number, merged: boolean): Promise<string> {
    const pr = this.fake.closePull(number, merged);
    const p = example("pull_request", "closed");
    p.pull_request = { ...p.pull_request, ...this.fake.restPull(pr) };
    p.number = pr.number;
    return this.deliver("pull_request", p);
  }
}
