import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context, Probot } from "probot";
import { AppMetrics, type DropReason } from "../metrics/metrics.js";
import type { Coordination } from "../../runtime/coordination.js";
import { withDeadline } from "../../runtime/lru.js";
import type { RunState } from "../../core/engine/state.js";
import type { RunObserver } from "../../runtime/run-service/controller.js";

type Log = Probot["log"];

/** How long `/readyz` waits for the coordination store's answer. */
const READY_PROBE_MS = 2_000;

/** One piece of work in flight: a webhook delivery's handler, or an alert request. */
interface Work {
  what: string;
  since: number;
  issue?: string;
}

/** A delivery as its handler runs: what it came to, and the logger of its lines. */
interface Delivery extends Work {
  event: string;
  log: Log;
  state: "waiting" | "running";
  /** A controller or the alert triage took it up. */
  acted: boolean;
  refused: boolean;
  deduplicated: boolean;
  runs: Set<string>;
  ended: boolean;
}

/**
 * A handler's failure as it is rethrown: @octokit/webhooks attaches the delivery to it (`event`,
 * the whole payload) and Probot's error handler logs the error with every property it has, so a
 * failed delivery would log its payload on every try. This error keeps no `event`.
 */
function withoutPayload(err: unknown): unknown {
  if (typeof err !== "object" || err === null || Object.isFrozen(err)) return err;
  Object.defineProperty(err, "event", {
    get: () => undefined,
    set: () => undefined,
    enumerable: false,
    configurable: true,
  });
  return err;
}

/** What a run's status change is counted as (`completed` is the run finishing). */
const RUN_STATUS: Record<RunState["status"], string> = {
  running: "running",
  waiting: "waiting",
  completed: "finished",
  failed: "failed",
  cancelled: "cancelled",
};

/**
 * What the app's server needs beyond the app's own work: every event handler runs through here, so
 * the events in flight are known (the queue depth, and what a shutdown waits for), each delivery's
 * outcome is counted and its log lines carry its delivery id (Probot's `id`), issue and runs. The
 * routes `/metrics` and `/readyz` are served from here, and while the app drains, new deliveries and
 * alerts are answered 503 (GitHub's delivery then fails and can be redelivered; alert senders retry).
 */
export class Serving {
  private readonly current = new AsyncLocalStorage<Delivery>();
  private readonly inFlight = new Set<Work>();
  private readonly idle = new Set<() => void>();
  private coordination: Coordination | undefined;
  private log: Log | undefined;
  private draining = false;
  private readonly readinessChecks: (() => Promise<string | undefined>)[] = [];

  constructor(readonly metrics: AppMetrics = new AppMetrics()) {}

  /**
   * The app is loaded with this store: its handlers (`app.on`) run through `deliver`, the Octokits
   * it gets from `app.auth` and its events have their requests counted, and events it has no
   * handler for are counted as ignored.
   */
  attach(app: Probot, coordination: Coordination): void {
    this.coordination = coordination;
    this.log = app.log;
    const names = new Set<string>();
    const on = app.on;
    app.on = ((event: string | string[], handler: (context: Context) => Promise<void>) => {
      for (const name of [event].flat()) names.add(name);
      on(event as never, ((context: Context) => this.deliver(context, handler)) as never);
    }) as typeof app.on;
    const auth = app.auth.bind(app);
    app.auth = (async (installation?: number) =>
      this.metrics.observeOctokit(await auth(installation))) as typeof app.auth;
    app.onAny((context) => {
      const action = (context.payload as { action?: unknown }).action;
      const full = typeof action === "string" ? `${context.name}.${action}` : context.name;
      if (!names.has(context.name) && !names.has(full))
        this.metrics.eventsDropped.inc({ event: full, reason: "ignored" });
    });
  }

  /**
   * One more condition of `/readyz` beyond the coordination store: the check answers why the app
   * cannot do its work now (503 with that reason), or undefined while it can.
   */
  addReadinessCheck(check: () => Promise<string | undefined>): void {
    this.readinessChecks.push(check);
  }

  /** The first reason a readiness check gives (a check that fails or takes too long is one). */
  private async unreadyBecause(): Promise<string | undefined> {
    for (const check of this.readinessChecks) {
      const reason = await withDeadline(check(), READY_PROBE_MS, "a readiness check").catch(
        (err: unknown) => (err instanceof Error ? err.message : String(err)),
      );
      if (reason !== undefined) return reason.slice(0, 300);
    }
    return undefined;
  }

  /** The current delivery, while its handler runs (none in a timer's or an alert's work). */
  private delivery(): Delivery | undefined {
    const d = this.current.getStore();
    return d && !d.ended ? d : undefined;
  }

  private settledIfIdle(): void {
    if (this.inFlight.size > 0) return;
    for (const resolve of this.idle) resolve();
    this.idle.clear();
  }

  /** One delivery's handler: in flight until it ends, then counted by what it came to. */
  async deliver(context: Context, handler: (context: Context) => Promise<void>): Promise<void> {
    const action = (context.payload as { action?: unknown }).action;
    const event = typeof action === "string" ? `${context.name}.${action}` : context.name;
    const d: Delivery = {
      what: `delivery ${context.id} (${event})`,
      since: Date.now(),
      event,
      log: context.log,
      state: "waiting",
      acted: false,
      refused: false,
      deduplicated: false,
      runs: new Set(),
      ended: false,
    };
    this.metrics.observeOctokit(context.octokit);
    this.inFlight.add(d);
    this.metrics.queue.inc({ state: "waiting" });
    let failed: unknown;
    try {
      await this.current.run(d, () => handler(context));
    } catch (err) {
      failed = err;
      throw withoutPayload(err);
    } finally {
      d.ended = true;
      this.metrics.queue.dec({ state: d.state });
      this.inFlight.delete(d);
      this.settledIfIdle();
      this.count(d, failed);
    }
  }

  private count(d: Delivery, failed: unknown): void {
    const ms = Date.now() - d.since;
    const fields = {
      event: d.event,
      ms,
      ...(d.issue ? { issue: d.issue } : {}),
      ...(d.runs.size ? { runs: [...d.runs] } : {}),
    };
    if (failed !== undefined) {
      this.metrics.eventsFailed.inc({ event: d.event });
      const message = failed instanceof Error ? failed.message : String(failed);
      d.log.warn({ ...fields, outcome: "failed" }, `${d.event}: failed after ${ms} ms: ${message}`);
      return;
    }
    const dropped: DropReason | undefined = d.deduplicated
      ? "deduplicated"
      : d.refused
        ? "refused"
        : d.acted
          ? undefined
          : "ignored";
    if (dropped) this.metrics.eventsDropped.inc({ event: d.event, reason: dropped });
    else this.metrics.eventsHandled.inc({ event: d.event });
    const outcome = dropped ?? "handled";
    const line = `${d.event}: ${outcome} in ${ms} ms`;
    if (outcome === "ignored" || outcome === "deduplicated")
      d.log.debug({ ...fields, outcome }, line);
    else d.log.info({ ...fields, outcome }, line);
  }

  /** Wraps the work a delivery does under its issue's lock: from then on it is running. */
  locked<A extends unknown[], T>(work: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
    return (...args) => {
      const d = this.delivery();
      if (d && d.state === "waiting") {
        d.state = "running";
        this.metrics.queue.dec({ state: "waiting" });
        this.metrics.queue.inc({ state: "running" });
      }
      return work(...args);
    };
  }

  /** The current delivery was handled before: nothing was done. */
  deduplicated(): void {
    const d = this.delivery();
    if (d) d.deduplicated = true;
  }

  /**
   * What a controller for this issue (`owner/repo#n`) reports: runs and step durations are
   * counted, and the lines about its runs carry the delivery id (when a delivery is handled), the
   * issue and the run id.
   */
  runObserver(issue: string): RunObserver {
    const d = this.delivery();
    if (d) {
      d.acted = true;
      d.issue ??= issue;
    }
    const log = (d?.log ?? this.log)?.child({ issue });
    const runLog = (run: RunState) => {
      d?.runs.add(run.id);
      return log?.child({ run: run.id });
    };
    return {
      started: (run) => {
        this.metrics.runs.inc({ status: "started" });
        runLog(run)?.info(`run ${run.id} of ${run.stack[0]?.playbook ?? "?"} started on ${issue}`);
      },
      status: (run, before) => {
        const status = RUN_STATUS[run.status];
        this.metrics.runs.inc({ status });
        const line = `run ${run.id} on ${issue}: ${RUN_STATUS[before]} -> ${status}`;
        if (run.status === "failed")
          runLog(run)?.warn(
            { code: run.error?.code },
            `${line} (${run.error?.code ?? "no code"}: ${run.error?.message ?? ""})`,
          );
        else runLog(run)?.info(line);
      },
      effect: (effect, ok, ms, run) => {
        this.metrics.stepDuration.observe(
          { kind: effect.kind, outcome: ok ? "ok" : "failed" },
          ms / 1000,
        );
        runLog(run)?.debug(
          { step: effect.step, kind: effect.kind, ms: Math.round(ms) },
          `step ${effect.step} (${effect.kind}) ${ok ? "done" : "failed"} in ${Math.round(ms)} ms`,
        );
      },
      refused: () => {
        if (d) d.refused = true;
      },
    };
  }

  /** Triage's outcome of one alert (a GitHub alert event is taken up by it). */
  readonly alertObserver = (source: string, outcome: string): void => {
    const d = this.delivery();
    if (d) d.acted = true;
    this.metrics.alert(source, outcome);
  };

  /** The alert route's outcomes before triage. */
  readonly alertRouteObserver = (source: string, outcome: string, count: number): void => {
    this.metrics.alert(source, outcome, count);
  };

  /**
   * `GET /metrics`, `GET /readyz`; while draining, 503 to deliveries and alerts; alert requests are
   * in flight until answered. Mounted before the alert routes and, with `createNodeMiddleware`,
   * before the webhooks path.
   */
  readonly routes = async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (req.method === "GET" && path === "/metrics") return this.metrics.handler(req, res);
    if (req.method === "GET" && path === "/readyz") return this.readyz(res);
    if (req.method !== "POST") return false;
    const delivery = req.headers["x-github-event"] !== undefined;
    const alert = path.startsWith("/alerts/");
    if (!delivery && !alert) return false;
    if (this.draining) {
      res.writeHead(503, { "content-type": "application/json", "retry-after": "30" });
      res.end(JSON.stringify({ error: "the app is shutting down; deliver again later" }));
      return true;
    }
    if (alert) {
      const work: Work = { what: `${req.method} ${path}`, since: Date.now() };
      this.inFlight.add(work);
      res.once("close", () => {
        this.inFlight.delete(work);
        this.settledIfIdle();
      });
    }
    return false;
  };

  private async readyz(res: ServerResponse): Promise<true> {
    const answer = (status: number, body: Record<string, unknown>) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const store = this.coordination;
    if (this.draining) answer(503, { status: "stopping" });
    else if (!store) answer(503, { status: "starting" });
    else {
      const reason =
        (await withDeadline(store.get("readyz"), READY_PROBE_MS, "the coordination store").then(
          () => undefined,
          (err: unknown) =>
            `the ${store.kind} coordination store does not answer: ${err instanceof Error ? err.message : String(err)}`.slice(
              0,
              300,
            ),
        )) ?? (await this.unreadyBecause());
      if (reason === undefined) answer(200, { status: "ready", store: store.kind });
      else answer(503, { status: "unready", reason });
    }
    return true;
  }

  /** Stop taking events: `/readyz`, new deliveries and alerts answer 503 from now on. */
  drain(): void {
    this.draining = true;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  /**
   * Resolves once nothing is in flight, or after `ms` with what still is (each described with its
   * issue, when known, and how long it has run).
   */
  async settle(ms: number): Promise<string[]> {
    if (this.inFlight.size > 0) {
      let resolveIdle: () => void = () => undefined;
      const idle = new Promise<void>((resolve) => {
        resolveIdle = resolve;
        this.idle.add(resolve);
      });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
      await Promise.race([idle, timeout]);
      clearTimeout(timer);
      this.idle.delete(resolveIdle);
    }
    const now = Date.now();
    return [...this.inFlight].map(
      (w) =>
        `${w.what}${w.issue ? ` on ${w.issue}` : ""}, in flight for ${Math.round((now - w.since) / 1000)} s`,
    );
  }
}
