import Bottleneck from "bottleneck";
import { ProbotOctokit } from "probot";
import { isServerError } from "../../runtime/request-errors.js";

/**
 * How the app's GitHub requests are paced, bounded in time and retried.
 *
 * - Pacing is per installation (GitHub's secondary limits count per token): each installation's
 *   requests get their own Bottleneck limiters in plugin-throttling's groups, keyed by its
 *   `throttle.id`; writes ≥ 1 s apart, content creation (comments, issues, pull requests) ≥ 3 s
 *   apart. The limiters live in this process: each replica paces its own requests.
 * - A request's deadline starts when it is sent (in `fetch`), so time queued behind the pacing
 *   never counts against it.
 * - A rate limit (403/429 with retry-after, an exhausted quota, a secondary limit) pauses the
 *   installation's requests for the time GitHub asks (a minute when it does not say), then the
 *   request is sent again, a bounded number of times. A server error (5xx) is sent again after a
 *   short backoff. A network failure or a timeout is not: it surfaces at once, with its cause.
 */

type Fetch = typeof globalThis.fetch;
type Octokit = InstanceType<typeof ProbotOctokit>;

/** A request GitHub did not answer within its deadline (counted from sending it). */
export class GitHubRequestTimeout extends Error {
  /** fetch's own name for an abandoned request: @octokit/request passes it on as it is. */
  override readonly name = "AbortError";
  readonly timeout = true;
  status = 504;
}

/** GitHub could not be reached at all: DNS, a refused or reset connection, TLS. */
export class GitHubUnreachable extends Error {
  status = 502;
  readonly unreachable = true;
  readonly code: string | undefined;
  constructor(message: string, cause: unknown, code: string | undefined) {
    super(message, { cause });
    this.code = code;
  }
}

/**
 * Whether GitHub answers this process: a streak of `threshold` network-level failures (no answer
 * at all, or none within the deadline) makes it unreachable until a request is answered again.
 */
export class GitHubReachability {
  private streak = 0;
  private lastCause = "";
  private probing: Promise<unknown> | undefined;

  /**
   * `probe` asks GitHub something cheap: while unreachable, `check` calls it (one at a time) so
   * that readiness comes back without waiting for the app's own next request.
   */
  constructor(
    readonly threshold = 3,
    private readonly probe?: () => Promise<unknown>,
  ) {}

  answered(): void {
    this.streak = 0;
  }

  failed(cause: string): void {
    this.streak += 1;
    this.lastCause = cause;
  }

  /** Why GitHub counts as unreachable, or undefined while it answers. */
  problem(): string | undefined {
    if (this.streak < this.threshold) return undefined;
    return `GitHub did not answer the last ${this.streak} requests (last: ${this.lastCause})`.slice(
      0,
      300,
    );
  }

  /** `problem()`, after probing GitHub again when it counts as unreachable. */
  async check(): Promise<string | undefined> {
    if (this.problem() === undefined || !this.probe) return this.problem();
    this.probing ??= this.probe()
      .catch(() => undefined)
      .finally(() => (this.probing = undefined));
    await this.probing;
    return this.problem();
  }
}

const DEADLINED = Symbol("playbook-bot:deadline-ms");
type DeadlineFetch = Fetch & { [DEADLINED]: number };

function requestLine(input: Parameters<Fetch>[0], init?: RequestInit): string {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
  // The query may carry anything; the path says which request it was.
  return `${init?.method ?? "GET"} ${url.split("?")[0] ?? ""}`;
}

/** The cause of a network failure as fetch reports it (`TypeError: fetch failed`, cause inside). */
function networkCause(err: unknown): { message: string; code: string | undefined } {
  const cause = (err as { cause?: unknown }).cause ?? err;
  const code = (cause as { code?: unknown }).code;
  const message = cause instanceof Error ? cause.message : String(cause);
  return { message, code: typeof code === "string" ? code : undefined };
}

/**
 * `fetch` with a deadline of `ms` from the moment the request is sent (the answer's body
 * included). A request still unanswered then fails with GitHubRequestTimeout; one that cannot
 * reach GitHub fails at once with GitHubUnreachable, naming the cause. `reachability`, when
 * given, hears of every answer and every such failure.
 */
export function deadlineFetch(
  ms: number,
  options: { fetch?: Fetch; reachability?: GitHubReachability } = {},
): Fetch {
  const { reachability } = options;
  const deadlined = async (input: Parameters<Fetch>[0], init?: RequestInit) => {
    const line = requestLine(input, init);
    const deadline = new AbortController();
    const timer = setTimeout(
      () =>
        deadline.abort(new GitHubRequestTimeout(`GitHub did not answer ${line} within ${ms} ms`)),
      ms,
    );
    // The timer also bounds reading the body; it must not keep the process alive.
    timer.unref?.();
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline.signal]) : deadline.signal;
    // The signal closes a real connection; the race also ends a request nothing can abort.
    const abandoned = new Promise<never>((_, reject) =>
      signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true }),
    );
    abandoned.catch(() => undefined);
    const send = options.fetch ?? globalThis.fetch;
    try {
      const response = await Promise.race([send(input, { ...init, signal }), abandoned]);
      reachability?.answered();
      // The body is read within the deadline too, and then the deadline goes: a pending timer
      // would hold the answer, and all its closures reach, for the whole deadline after its use.
      const body = await Promise.race([response.arrayBuffer(), abandoned]);
      clearTimeout(timer);
      return answered(response, body);
    } catch (err) {
      clearTimeout(timer);
      if (deadline.signal.aborted) {
        reachability?.failed(`no answer within ${ms} ms`);
        throw deadline.signal.reason as GitHubRequestTimeout;
      }
      if (init?.signal?.aborted) throw err;
      const { message, code } = networkCause(err);
      reachability?.failed(message);
      throw new GitHubUnreachable(`GitHub could not be reached for ${line}: ${message}`, err, code);
    }
  };
  return Object.assign(deadlined as Fetch, { [DEADLINED]: ms });
}

/** The answer again, its body read: status, headers and URL as they came. */
function answered(response: Response, body: ArrayBuffer): Response {
  const copy = new Response(body.byteLength === 0 ? null : body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  // Octokit reports the URL an answer came from (after redirects); a new Response has none.
  Object.defineProperty(copy, "url", { value: response.url });
  return copy;
}

function isDeadlined(fetch: unknown): fetch is DeadlineFetch {
  return typeof fetch === "function" && DEADLINED in fetch;
}

/**
 * A GitHub error as its headers and message say: a rate limit (429, or 403 with retry-after, an
 * exhausted quota or a rate-limit message). Returns the retry-after header when there is one ("" otherwise),
 * undefined when the error is something else.
 */
export function rateLimitRetryAfter(err: unknown): string | undefined {
  const e = err as RequestErrorLike;
  const headers = e.response?.headers ?? {};
  const limited =
    e.status === 429 ||
    (e.status === 403 &&
      (headers["retry-after"] !== undefined ||
        headers["x-ratelimit-remaining"] === "0" ||
        /rate limit/i.test(String(e.message ?? ""))));
  if (!limited) return undefined;
  return headers["retry-after"] !== undefined ? String(headers["retry-after"]) : "";
}

interface RequestErrorLike {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | number | undefined> };
}

/** GitHub's guidance when a rate limit says nothing of when to come back: at least a minute. */
const UNSAID_RATE_LIMIT_WAIT_MS = 60_000;

/**
 * How long GitHub asks to wait before the next request, for a rate-limited answer (undefined for
 * any other error): retry-after's seconds, else until x-ratelimit-reset when the quota is
 * exhausted, else a minute.
 */
export function rateLimitWaitMs(err: unknown, now: number): number | undefined {
  const retryAfter = rateLimitRetryAfter(err);
  if (retryAfter === undefined) return undefined;
  const seconds = Number(retryAfter);
  if (retryAfter !== "" && Number.isFinite(seconds)) return Math.max(0, seconds) * 1000;
  const headers = (err as RequestErrorLike).response?.headers ?? {};
  const reset = Number(headers["x-ratelimit-reset"]);
  if (headers["x-ratelimit-remaining"] === "0" && Number.isFinite(reset) && reset > 0)
    // A second past the reset, as GitHub's clock may run behind ours.
    return Math.max(0, reset * 1000 - now) + 1000;
  return UNSAID_RATE_LIMIT_WAIT_MS;
}

export interface PacingOptions {
  /** A request's deadline once sent (default 30 s). */
  timeoutMs?: number;
  /** Between two writes of one installation (default 1000 ms, GitHub's guidance). */
  writeIntervalMs?: number;
  /** Between two content-creating requests of one installation (default 3000 ms). */
  contentIntervalMs?: number;
  /** How many times a rate-limited request is sent again (default 2). */
  rateLimitRetries?: number;
  /** A rate limit asking for a longer wait fails at once instead (default 5 min). */
  maxRateLimitWaitMs?: number;
  /** How many times a request answered with a server error (5xx) is sent again (default 3). */
  serverErrorRetries?: number;
  /** The backoff unit after a server error: n², n = 1, 2, 3 (default 1000 ms). */
  serverErrorBackoffMs?: number;
  reachability?: GitHubReachability;
  /** Told when a rate limit pauses an installation, and for how long. */
  onRateLimit?: (installation: string, waitMs: number, request: string) => void;
  now?: () => number;
}

type Settings = Required<Omit<PacingOptions, "reachability" | "onRateLimit">> &
  Pick<PacingOptions, "reachability" | "onRateLimit">;

function settingsOf(options: PacingOptions): Settings {
  return {
    timeoutMs: 30_000,
    writeIntervalMs: 1000,
    contentIntervalMs: 3000,
    rateLimitRetries: 2,
    maxRateLimitWaitMs: 5 * 60_000,
    serverErrorRetries: 3,
    serverErrorBackoffMs: 1000,
    now: Date.now,
    ...options,
  };
}

/**
 * The limiter groups of plugin-throttling (its own settings, but ours to own: not the module-wide
 * groups it would otherwise share, and never clustered through Redis).
 */
function limiterGroups(s: Settings) {
  // An installation's limiters are dropped after 2 idle minutes.
  const common = { timeout: 2 * 60_000 };
  return {
    global: new Bottleneck.Group({ maxConcurrent: 10, ...common }),
    auth: new Bottleneck.Group({ maxConcurrent: 1, ...common }),
    search: new Bottleneck.Group({ maxConcurrent: 1, minTime: 2000, ...common }),
    write: new Bottleneck.Group({ maxConcurrent: 1, minTime: s.writeIntervalMs, ...common }),
    notifications: new Bottleneck.Group({
      maxConcurrent: 1,
      minTime: s.contentIntervalMs,
      ...common,
    }),
  };
}

/** Which limiter an Octokit's requests go through: its installation's, else the app's own. */
export function pacingKey(options: { auth?: unknown }): string {
  const id = (options.auth as { installationId?: unknown } | undefined)?.installationId;
  return id === undefined || id === null || id === "" ? "app" : `installation:${String(id)}`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Until when each installation is paused by a rate limit. */
class RateLimitPauses {
  private readonly until = new Map<string, number>();

  constructor(private readonly s: Settings) {}

  pause(key: string, waitMs: number): void {
    const until = this.s.now() + waitMs;
    if (until > (this.until.get(key) ?? 0)) this.until.set(key, until);
  }

  /** Waits out the installation's pause; one longer than the bound fails at once. */
  async waitFor(key: string, line: string): Promise<void> {
    const until = this.until.get(key);
    if (until === undefined) return;
    const left = until - this.s.now();
    if (left <= 0) {
      this.until.delete(key);
      return;
    }
    if (left > this.s.maxRateLimitWaitMs) throw pausedTooLong(line, left);
    await sleep(left);
  }
}

function pausedTooLong(line: string, waitMs: number): Error {
  const seconds = Math.ceil(waitMs / 1000);
  return Object.assign(
    new Error(`GitHub's rate limit holds ${line} for ${seconds} s more, longer than the app waits`),
    { status: 429, response: { headers: { "retry-after": String(seconds) } } },
  );
}

/** The error a request ends with once GitHub still rate-limits it after every retry. */
function stillRateLimited(err: unknown, line: string, retries: number, waitMs: number): Error {
  const e = err as RequestErrorLike & Error;
  const seconds = Math.ceil(waitMs / 1000);
  return Object.assign(
    new Error(
      `GitHub still rate-limited ${line} after ${retries} retries (retry after ${seconds} s): ${e.message}`,
      { cause: err },
    ),
    { status: e.status, response: e.response },
  );
}

/**
 * @octokit/request reports what fetch threw as a 500 (an abandoned request keeps its own error);
 * the app sees a timeout or an unreachable GitHub as what it is.
 */
function unwrapped(err: unknown): unknown {
  if (err instanceof GitHubRequestTimeout) {
    err.status = 504;
    return err;
  }
  const cause = (err as { cause?: unknown } | undefined)?.cause;
  return cause instanceof GitHubUnreachable ? cause : err;
}

/** How many times a request may be re-sent after a 5xx: none when it says `retries: 0`. */
function serverErrorRetriesOf(opts: { request?: unknown }, s: Settings): number {
  const own = (opts.request as { retries?: unknown } | undefined)?.retries;
  return typeof own === "number" ? Math.min(own, s.serverErrorRetries) : s.serverErrorRetries;
}

/** The retry layer: rate limits waited out per installation, server errors backed off. */
function retryPlugin(s: Settings, pauses: RateLimitPauses) {
  return (octokit: { hook: Octokit["hook"] }, options: { auth?: unknown }) => {
    const key = pacingKey(options);
    octokit.hook.wrap("request", async (request, opts) => {
      const line = `${String(opts.method)} ${String(opts.url)}`;
      let rateLimited = 0;
      let serverErrors = 0;
      for (;;) {
        await pauses.waitFor(key, line);
        try {
          return await request(opts);
        } catch (caught) {
          const err = unwrapped(caught);
          const waitMs = rateLimitWaitMs(err, s.now());
          if (waitMs !== undefined) {
            if (rateLimited >= s.rateLimitRetries || waitMs > s.maxRateLimitWaitMs)
              throw stillRateLimited(err, line, rateLimited, waitMs);
            rateLimited += 1;
            pauses.pause(key, waitMs);
            s.onRateLimit?.(key, waitMs, line);
            continue;
          }
          // A request that creates something says `retries: 0`: after a 5xx it may exist, and
          // the caller looks for it before sending again (create-once.ts), so it is not re-sent.
          if (isServerError(err) && serverErrors < serverErrorRetriesOf(opts, s)) {
            serverErrors += 1;
            await sleep(serverErrors * serverErrors * s.serverErrorBackoffMs);
            continue;
          }
          throw err;
        }
      }
    });
    return {};
  };
}

export interface GitHubPacing {
  /** For Probot's `Octokit` option: every Octokit it makes is paced per installation. */
  Octokit: typeof ProbotOctokit;
  /** For Probot's `request.fetch`: its own requests (installation tokens) get the deadline too. */
  fetch: Fetch;
}

/**
 * The Octokit class (and fetch) of a deployment: per-installation limiters, deadlines from the
 * moment of sending, rate limits waited out (see the top of this file). plugin-retry and
 * plugin-throttling's own retries are off: this layer decides what is sent again.
 */
export function githubPacing(options: PacingOptions = {}): GitHubPacing {
  const s = settingsOf(options);
  const groups = limiterGroups(s);
  const pauses = new RateLimitPauses(s);
  const fetch = deadlineFetch(s.timeoutMs, s.reachability ? { reachability: s.reachability } : {});
  const Paced = ProbotOctokit.plugin(retryPlugin(s, pauses)).defaults(
    (instance: Record<string, unknown> & { auth?: unknown }) => {
      const request = (instance.request ?? {}) as { fetch?: Fetch };
      return {
        ...instance,
        request: {
          ...request,
          fetch: isDeadlined(request.fetch)
            ? request.fetch
            : deadlineFetch(s.timeoutMs, {
                ...(request.fetch ? { fetch: request.fetch } : {}),
                ...(s.reachability ? { reachability: s.reachability } : {}),
              }),
        },
        retry: { enabled: false },
        throttle: {
          ...(instance.throttle as object | undefined),
          enabled: true,
          id: pacingKey(instance),
          ...groups,
          // Never clustered: Probot gets no REDIS_URL, and a stray connection is dropped.
          connection: undefined,
          Bottleneck: undefined,
          // The retry layer above decides; the throttle's own retries would double them.
          onRateLimit: () => false,
          onSecondaryRateLimit: () => false,
        },
      };
    },
  ) as typeof ProbotOctokit;
  return { Octokit: Paced, fetch };
}

/** An Octokit's requests through `deadlineFetch`: marked so it is done once. */
const timed = new WeakSet<object>();

/**
 * Every request of this Octokit fails when GitHub does not answer within `ms` of its sending
 * (time queued in a throttle does not count), with GitHubRequestTimeout (status 504,
 * `timeout: true`; "GH-TIMEOUT"). An Octokit of `githubPacing` has its deadline already.
 */
export function withRequestTimeout<T extends { hook: Octokit["hook"] }>(octokit: T, ms: number): T {
  if (timed.has(octokit)) return octokit;
  timed.add(octokit);
  octokit.hook.wrap("request", async (request, options) => {
    const given = options.request as { fetch?: Fetch } | undefined;
    if (isDeadlined(given?.fetch)) return request(options);
    // In place: the hooks registered before this one (after, error) hold this very object.
    options.request = {
      ...options.request,
      fetch: deadlineFetch(ms, given?.fetch ? { fetch: given.fetch } : {}),
    };
    try {
      return await request(options);
    } catch (err) {
      throw unwrapped(err);
    }
  });
  return octokit;
}

/**
 * An Octokit for a command run by a person (`run` with a GitHub remote, `trace owner/repo#n`):
 * the deployment's deadlines and retries, so a GitHub that cannot be reached (no DNS, no route)
 * fails at once naming the cause, rather than being retried as a server error.
 */
export function commandOctokit(token: string, baseUrl?: string): Octokit {
  const { Octokit: Paced } = githubPacing();
  return new Paced({ auth: { token }, ...(baseUrl ? { baseUrl } : {}) }) as unknown as Octokit;
}
