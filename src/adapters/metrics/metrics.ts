import type { IncomingMessage, ServerResponse } from "node:http";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** Why a delivery did nothing: nothing in it concerned the app, it was handled before, or refused. */
export type DropReason = "ignored" | "deduplicated" | "refused";

/** Where an event's work stands: waiting for its issue's lock, or running under it. */
export type QueueState = "waiting" | "running";

/** The part of an Octokit the request hooks need (Probot's and @octokit/core's alike). */
export interface HookableOctokit {
  hook: {
    after(name: "request", fn: (response: ResponseLike, options: RequestLike) => void): void;
    error(name: "request", fn: (error: unknown, options: RequestLike) => unknown): void;
  };
}
interface ResponseLike {
  status: number;
  headers: Record<string, string | number | undefined>;
}
interface RequestLike {
  method?: string;
}

export interface AppMetricsOptions {
  /** Where the metrics are registered (default: a registry of their own, never the global one). */
  registry?: Registry;
  /** Also the process's own metrics: CPU, memory, event loop lag, handles (`process_*`, `nodejs_*`). */
  processMetrics?: boolean;
}

/** The seconds a step's effect may take, from a comment (tens of ms) to an AI call (minutes). */
const STEP_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** The HTTP methods GitHub's API takes; anything else is counted as `OTHER` (bounded labels). */
const METHODS = new Set(["GET", "POST", "PATCH", "PUT", "DELETE", "HEAD"]);

/**
 * Every metric the app exposes at `GET /metrics`, in one registry per app instance (several apps in
 * one process, as the tests make, keep their counts apart). Labels take bounded values only: event
 * names, step kinds, HTTP methods and statuses, alert sources and outcomes — never repositories,
 * issues or people.
 */
export class AppMetrics {
  readonly registry: Registry;
  /** Runs that started, and every later change of a run's status (waiting, finished, failed, …). */
  readonly runs: Counter<"status">;
  readonly stepDuration: Histogram<"kind" | "outcome">;
  readonly eventsHandled: Counter<"event">;
  readonly eventsDropped: Counter<"event" | "reason">;
  readonly eventsFailed: Counter<"event">;
  readonly githubRequests: Counter<"method" | "status">;
  readonly rateLimitRemaining: Gauge<"resource">;
  readonly alerts: Counter<"source" | "outcome">;
  readonly queue: Gauge<"state">;
  readonly reconcileReplays: Counter<"kind">;
  private readonly hooked = new WeakSet<object>();

  constructor(options: AppMetricsOptions = {}) {
    const registry = options.registry ?? new Registry();
    this.registry = registry;
    const registers = [registry];
    this.runs = new Counter({
      name: "playbook_bot_runs_total",
      help: "Runs started (status=started) and runs whose status changed to waiting, running, finished, failed or cancelled.",
      labelNames: ["status"],
      registers,
    });
    this.stepDuration = new Histogram({
      name: "playbook_bot_step_duration_seconds",
      help: "Time this process took to perform a step's effect (GitHub requests, AI, tools), by step kind and outcome (ok, failed).",
      labelNames: ["kind", "outcome"],
      buckets: STEP_BUCKETS,
      registers,
    });
    this.eventsHandled = new Counter({
      name: "playbook_bot_events_handled_total",
      help: "Webhook deliveries whose work was done, by event (name.action).",
      labelNames: ["event"],
      registers,
    });
    this.eventsDropped = new Counter({
      name: "playbook_bot_events_dropped_total",
      help: "Webhook deliveries that did nothing, by event and reason: ignored (nothing for the app), deduplicated (handled before), refused (a command or label refused).",
      labelNames: ["event", "reason"],
      registers,
    });
    this.eventsFailed = new Counter({
      name: "playbook_bot_events_failed_total",
      help: "Tries of a webhook delivery's work that failed (the inbox retries them), by event.",
      labelNames: ["event"],
      registers,
    });
    this.githubRequests = new Counter({
      name: "playbook_bot_github_requests_total",
      help: "Requests to GitHub's API, by method and HTTP status (error: no answer).",
      labelNames: ["method", "status"],
      registers,
    });
    this.rateLimitRemaining = new Gauge({
      name: "playbook_bot_github_rate_limit_remaining",
      help: "Requests left in GitHub's rate limit window, from the x-ratelimit-remaining header of the latest answer, by resource (core, graphql, search, …).",
      labelNames: ["resource"],
      registers,
    });
    this.alerts = new Counter({
      name: "playbook_bot_alerts_total",
      help: "Alerts received, by source and outcome (opened, repeat, refired, reopened, resolved, closed, ignored, digest, failed; duplicate, unrouted, rejected, invalid before triage).",
      labelNames: ["source", "outcome"],
      registers,
    });
    this.queue = new Gauge({
      name: "playbook_bot_queue_depth",
      help: "Events in flight: waiting (for their issue's lock) and running (their work under the lock).",
      labelNames: ["state"],
      registers,
    });
    this.reconcileReplays = new Counter({
      name: "playbook_bot_reconcile_replays_total",
      help: "What the reconcile sweep found undone and did again, by kind: command (a command nobody answered), carry-on (an issue whose runs' next step never came), wake (an issue waiting for a time the store had forgotten).",
      labelNames: ["kind"],
      registers,
    });
    this.queue.set({ state: "waiting" }, 0);
    this.queue.set({ state: "running" }, 0);
    if (options.processMetrics) collectDefaultMetrics({ register: registry });
  }

  /**
   * Counts this Octokit's requests and keeps the rate-limit headroom its answers report. Once per
   * Octokit, however often it is given.
   */
  observeOctokit<O extends object>(octokit: O): O {
    if (this.hooked.has(octokit)) return octokit;
    this.hooked.add(octokit);
    const hook = (octokit as unknown as HookableOctokit).hook;
    hook.after("request", (response, options) => {
      this.request(options.method, response.status, response.headers);
    });
    hook.error("request", (error, options) => {
      const e = error as { status?: unknown; response?: ResponseLike };
      // Only an answer has a status: @octokit/request gives a DNS failure or a reset connection
      // the status 500, and a deadline the status 504, though GitHub said nothing.
      const answered = e.response !== undefined && typeof e.status === "number";
      this.request(
        options.method,
        answered ? (e.status as number) : undefined,
        e.response?.headers,
      );
      throw error;
    });
    return octokit;
  }

  /** One request's answer (status undefined: none came). */
  request(
    method: string | undefined,
    status: number | undefined,
    headers?: Record<string, string | number | undefined>,
  ): void {
    const m = (method ?? "GET").toUpperCase();
    this.githubRequests.inc({
      method: METHODS.has(m) ? m : "OTHER",
      status: status === undefined ? "error" : String(status),
    });
    const remaining = Number(headers?.["x-ratelimit-remaining"]);
    if (headers?.["x-ratelimit-remaining"] !== undefined && Number.isFinite(remaining)) {
      const resource = String(headers["x-ratelimit-resource"] ?? "core").slice(0, 32);
      this.rateLimitRemaining.set({ resource }, remaining);
    }
  }

  /** An alert's outcome, from the alert route (before triage) or from triage. */
  alert(source: string, outcome: string, count = 1): void {
    if (count > 0) this.alerts.inc({ source, outcome }, count);
  }

  /** `GET /metrics`: the Prometheus text format. */
  readonly handler = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") return false;
    const text = await this.registry.metrics();
    res.writeHead(200, { "content-type": this.registry.contentType });
    res.end(text);
    return true;
  };
}
