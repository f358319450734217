import "../local/yaml-library.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApplicationFunctionOptions, Probot } from "probot";
import type { AiAdapter } from "../../runtime/ai.js";
import { aiAdapterFromEnv } from "../ai/config.js";
import type { AlertsConfig } from "../alerts/config.js";
import { PlaybookDiscovery } from "../github/discovery.js";
import { WakeUpTimer, waitingKey, type IssueWakeUp } from "../../runtime/run-service/wake-ups.js";
import { ConditionalCache, withRequestTimeout, type Octokit } from "../github/octokit-port.js";
import { OctokitRepositoryHost, type RepositoryHostDeps } from "../github/repository-host.js";
import { repositoryStateKey } from "../../runtime/state-codec.js";
import { LruMap, withDeadline } from "../../runtime/lru.js";
import {
  CoordinationError,
  doOnce,
  type Coordination,
  type LockOptions,
} from "../../runtime/coordination.js";
import { openCoordination } from "../coordination/index.js";
import { openTraceLog } from "../coordination/trace-log.js";
import type { TraceLog } from "../../runtime/ports.js";
import { guardedTraceLog, scopedTraceLog } from "../../runtime/trace.js";
import type { AppConfig } from "./config.js";
import type { HostCapabilities } from "../../core/engine/requirements.js";
import { appHost } from "../../runtime/host.js";
import { loadDeploymentTools, type DeploymentTools } from "../tools/registry.js";
import { RunService } from "../../runtime/run-service/service.js";
import { AppMetrics } from "../metrics/metrics.js";
import { Serving } from "./serving.js";
import { ReconcileSweep, sweepOptions, type ReconcileSweepOptions } from "./reconcile-sweep.js";
import { registerIssueHandlers, type Once } from "./handlers.js";
import { registerAlerts } from "./alerts.js";
import { recoverWaiting } from "./recover-waiting.js";
import { appOctokit, replay } from "./payloads.js";

export interface PlaybookBotOptions {
  config: AppConfig;
  /** External alert sources and routes (ALERTS_CONFIG); without it, only GitHub's own alerts. */
  alerts?: AlertsConfig;
  ai?: AiAdapter;
  /** The secrets and tools runs may require (default: PLAYBOOK_SECRETS and the tools below). */
  host?: HostCapabilities;
  /** The tools investigate steps call (default: PLAYBOOK_TOOLS_CONFIG, else the built-ins). */
  tools?: DeploymentTools;
  discovery?: PlaybookDiscovery;
  clock?: () => Date;
  /** Every GitHub request is abandoned after this long (default 30 s). */
  requestTimeoutMs?: number;
  /**
   * All the work of one event on one issue is abandoned after this long (default 5 min); an event
   * waits as long at most for another replica's work on the same issue.
   */
  eventTimeoutMs?: number;
  /**
   * What replicas share: a lock per issue, delivery dedupe, run bookkeeping, status-comment ids,
   * awaited workflows and alert records. Default: the Redis of the config (REDIS_URL), else this
   * process's memory (one replica only).
   */
  coordination?: Coordination;
  /** A lock not renewed for this long is free again (default 30 s): a replica that died lets go. */
  lockLeaseMs?: number;
  /**
   * Time passing: a timer delivers the runs' wake-ups (reminders, timeouts, retries), and at start
   * the issues labelled as waiting are ticked. `false`: no timer and no scan (wake-ups are still
   * recorded; the next event on an issue carries its runs on). `onTimer` is given the timer (tests
   * drive it with their own clock).
   */
  wakeUps?:
    | false
    | {
        pollMs?: number;
        scanOnStart?: boolean;
        /** Wake up at the times scheduled, not only when polling (default true). */
        precise?: boolean;
        onTimer?: (timer: WakeUpTimer) => void;
      };
  /**
   * The Actions runtime: a run goes on step after step within one event until it waits, since
   * what the bot writes with a workflow's token starts no workflow (default false: one step per
   * event, the app's own edit of the status comment bringing the next).
   */
  inProcess?: boolean;
  /**
   * The coordination store lives for one event only (the Actions runtime): what it would
   * remember between events — which runs wait for a time or a workflow — the waiting label
   * carries instead (default false).
   */
  ephemeralStore?: boolean;
  /**
   * The state key (STATE_SECRET) is the app server's alone: nobody with write access to a
   * repository can read it, so a state sealed with it was written by this app. Then approvals a
   * state from before approvals were recorded with their comments names are believed (their
   * approvers' roles checked again); otherwise (default; the Actions runtime, whose state secret
   * every workflow a write user may change can read) such an approval must be given again.
   */
  stateKeyPrivate?: boolean;
  /**
   * The reconcile sweep (reconcile-sweep.ts): every interval and at start, what was asked for and
   * never done is done. `false`: none (the Actions runtime reconciles each issue itself).
   */
  reconcile?: false | ReconcileSweepOptions;
  /** Given, once loaded, a way to tick one issue's runs now (the Actions runtime's sweeper). */
  onTicks?: (tick: (wake: IssueWakeUp, eventId: string) => Promise<void>) => void;
  /** Where the app's metrics are kept (`GET /metrics`); default: a registry of this app's own. */
  metrics?: AppMetrics;
  /**
   * Where runs' trace records are kept (`playbook-bot trace`): default, beside the coordination
   * store (Redis, or this process's memory); `false`: not kept.
   */
  trace?: TraceLog | false;
}

/** How long a handled delivery is remembered (GitHub's redeliveries come within days). */
const DELIVERY_TTL_MS = 7 * 24 * 3_600_000;
function healthz(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/healthz") return false;
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ status: "ok" }));
  return true;
}

/**
 * The Probot app. Events for one issue are handled one at a time, across replicas too; a delivery
 * handled before is a no-op; everything else returns quickly.
 */
export function createPlaybookBot(options: PlaybookBotOptions) {
  const { config } = options;
  // The AI adapter (PLAYBOOK_AI_PROVIDER, …; the mock by default): a bad configuration stops the app here.
  const ai = options.ai ?? aiAdapterFromEnv(process.env);
  // The deployment's tools (PLAYBOOK_TOOLS_CONFIG): a broken config stops the app here.
  const tools = options.tools ?? loadDeploymentTools(process.env);
  const host = options.host ?? appHost(process.env, (name) => tools.has(name));
  const discovery = options.discovery ?? new PlaybookDiscovery();
  const clock = options.clock ?? (() => new Date());
  const eventTimeoutMs = options.eventTimeoutMs ?? 5 * 60_000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  const lock: LockOptions = {
    waitMs: eventTimeoutMs,
    ...(options.lockLeaseMs ? { leaseMs: options.lockLeaseMs } : {}),
  };
  // Events in flight, metrics, readiness and draining (see serving.ts).
  const serving = new Serving(options.metrics ?? new AppMetrics());

  // What `close` ends: the timers this app started and the stores it opened itself.
  const opened: { timers: { stop(): Promise<void> }[]; stores: Coordination[] } = {
    timers: [],
    stores: [],
  };
  /** Stops the wake-up timers (waiting for deliveries under way), then the stores it opened. */
  async function close(): Promise<void> {
    for (const t of opened.timers.splice(0)) await t.stop();
    for (const c of opened.stores.splice(0)) await c.close();
    if (!options.tools) await tools.close();
  }

  const appFn = (app: Probot, { addHandler }: Partial<ApplicationFunctionOptions> = {}): void => {
    const log = (level: "info" | "warn" | "error", line: string) => app.log[level](line);
    const coordination = options.coordination ?? openStore(config, lock, log, opened.stores);
    serving.attach(app, coordination);
    const traceLog =
      options.trace === false ? undefined : (options.trace ?? openTraceLog(coordination));
    try {
      addHandler?.(healthz);
      addHandler?.(serving.routes);
    } catch {
      // Loaded without a server (tests, the Actions adapter): no HTTP routes then.
    }
    const repositories: RepositoryHostDeps = {
      appId: config.appId,
      ...(config.botLogin ? { botLogin: config.botLogin } : {}),
      discovery,
      ai,
      tools,
      conditional: new ConditionalCache(),
      labelled: new LruMap(1000),
    };
    // Time passing: one timer per process delivers the wake-ups due (see wake-ups.ts).
    const timer = new WakeUpTimer({
      store: coordination,
      clock,
      deliver: (wake, at) => tickIssue(wake, `wake:${at}`),
      log,
      ...(options.wakeUps && options.wakeUps.pollMs ? { pollMs: options.wakeUps.pollMs } : {}),
      ...(options.wakeUps && options.wakeUps.precise === false ? { precise: false } : {}),
    });
    const service = new RunService({
      coordination,
      clock,
      lock,
      eventTimeoutMs,
      stateKey: (installation, repository) =>
        repositoryStateKey(config.stateSecret, installation, repository),
      host,
      ai,
      // A trace that cannot be written is logged; the run goes on.
      ...(traceLog
        ? {
            trace: (repo: string) =>
              guardedTraceLog(scopedTraceLog(traceLog, repo), (line) => app.log.warn(line)),
          }
        : {}),
      observe: (issue) => serving.runObserver(issue),
      inProcess: options.inProcess ?? false,
      ...(options.ephemeralStore ? { ephemeralStore: true } : {}),
      ...(options.stateKeyPrivate ? { stateKeyPrivate: true } : {}),
      armTimer: (at) => timer.arm(at),
    });
    const installationOctokit = async (installation: number): Promise<Octokit> =>
      withRequestTimeout(await appOctokit(app, installation), requestTimeoutMs);

    /** A wake-up is due (or the sweep found a run to carry on): its issue gets a tick. */
    async function tickIssue(wake: IssueWakeUp, eventId: string, carryOn = false): Promise<void> {
      const { run, ...address } = wake;
      const repository = new OctokitRepositoryHost(
        await installationOctokit(address.installation),
        address,
        repositories,
      );
      await service.send(
        { address, issue: { number: address.issue, title: "", url: "", author: "" }, repository },
        carryOn ? { type: "carry-on", eventId } : { type: "tick", run, eventId },
      );
    }

    registerIssueHandlers(app, {
      service,
      config,
      discovery,
      repositories,
      requestTimeoutMs,
      once: deliveryOnce(coordination, serving, lock, eventTimeoutMs),
    });

    if (options.wakeUps !== false) {
      timer.start();
      opened.timers.push(timer);
      options.wakeUps?.onTimer?.(timer);
      if (options.wakeUps?.scanOnStart !== false)
        void recoverWaiting({ app, coordination, clock, timer, installationOctokit }).catch(
          (err: unknown) =>
            app.log.error(`the issues waiting for a time could not be listed: ${String(err)}`),
        );
    }

    options.onTicks?.((wake, eventId) => tickIssue(wake, eventId));

    const reconcile = sweepOptions(options.reconcile, config.reconcileIntervalMs);
    if (reconcile !== false) {
      const sweep = new ReconcileSweep(
        {
          coordination,
          clock,
          metrics: serving.metrics,
          log,
          appId: config.appId,
          ...(config.botLogin ? { botLogin: config.botLogin } : {}),
          auth: async (installation) =>
            withRequestTimeout(await appOctokit(app, installation), requestTimeoutMs),
          receive: (id, name, payload) => replay(app, id, name, payload),
          stateKey: (installation, repository) =>
            repositoryStateKey(config.stateSecret, installation, repository),
          carryOn: (a, eventId) => tickIssue({ ...a, run: "" }, eventId, true),
          tick: (a, eventId) => tickIssue({ ...a, run: "" }, eventId),
          waitKnown: async (a) => (await coordination.get(waitingKey(a))) !== undefined,
        },
        reconcile,
      );
      opened.timers.push(sweep);
      sweep.start();
      reconcile.onSweep?.(sweep);
    }

    registerAlerts(app, {
      service,
      repositories,
      discovery,
      coordination,
      lock,
      clock,
      serving,
      requestTimeoutMs,
      app: { appId: config.appId, ...(config.botLogin ? { botLogin: config.botLogin } : {}) },
      installationOctokit,
      once: deliveryOnce(coordination, serving, lock, eventTimeoutMs),
      ...(options.alerts ? { config: options.alerts } : {}),
      addHandler,
    });
  };
  return Object.assign(appFn, { close, serving });
}

/** The coordination store of the config (Redis, else this process's memory), told in the log. */
function openStore(
  config: AppConfig,
  lock: LockOptions,
  log: (level: "info" | "warn" | "error", line: string) => void,
  stores: Coordination[],
): Coordination {
  const coordination = openCoordination({
    ...(config.redis ? { redis: config.redis } : {}),
    lock,
    log,
  });
  stores.push(coordination);
  log(
    "info",
    coordination.kind === "memory"
      ? "coordination: in this process's memory; run one replica only (set REDIS_URL to run several)"
      : `coordination: Redis at ${coordination.where}; replicas share locks, delivery dedupe and run bookkeeping`,
  );
  return coordination;
}

/**
 * A delivery's work, once across replicas: skipped when done before, marked done only after it
 * succeeded. A failure of the shared store is logged; the delivery stays not done, so the inbox's
 * retry (or, behind Probot's own middleware, GitHub's redelivery) does the work.
 */
function deliveryOnce(
  coordination: Coordination,
  serving: Serving,
  lock: LockOptions,
  eventTimeoutMs: number,
): Once {
  return async (context, lockKey, work, doneId = context.id) => {
    try {
      const done = await withDeadline(
        doOnce(coordination, doneId, lockKey, DELIVERY_TTL_MS, serving.locked(work), lock),
        eventTimeoutMs,
        `work on ${lockKey}`,
      );
      if (done.duplicate) serving.deduplicated();
    } catch (err) {
      if (err instanceof CoordinationError)
        context.log.error(
          `delivery ${context.id} (${context.name}) failed: ${err.message}. It is not marked done: its retry does the work.`,
        );
      throw err;
    }
  };
}
