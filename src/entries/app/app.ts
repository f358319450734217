import "../../adapters/local/yaml-library.js";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApplicationFunctionOptions, Context, Probot } from "probot";
import type { AiAdapter } from "../../adapters/ai/adapter.js";
import { aiAdapterFromEnv } from "../../adapters/ai/config.js";
import type { AlertsConfig } from "../../adapters/alerts/config.js";
import { alertsHandler } from "../../adapters/alerts/http.js";
import { fromGitHubAlert } from "../../adapters/alerts/sources.js";
import { AlertTriage } from "../../adapters/alerts/triage.js";
import { OctokitAlertIssues } from "../../adapters/github/alert-issues.js";
import { PlaybookDiscovery } from "../../adapters/github/discovery.js";
import {
  IssueWakeUps,
  WAITING_LABEL,
  WakeUpTimer,
  waitingKey,
  wakeUpKey,
  type IssueAddress,
  type IssueWakeUp,
} from "./wake-ups.js";
import {
  ConditionalCache,
  issueOfPullRequest,
  OctokitPort,
  StatusCommentCache,
  withRequestTimeout,
  type Octokit,
} from "../../adapters/github/octokit-port.js";
import { hasStateBlock, type ThreadComment } from "../../runtime/github-port.js";
import { workflowRunFacts, type RawWorkflowRun } from "../../adapters/github/workflow-runs.js";
import type { Tiered } from "../../runtime/tiers.js";
import { repositoryStateKey } from "../../runtime/state-codec.js";
import { LruMap, withDeadline } from "../../runtime/lru.js";
import {
  CoordinationError,
  doOnce,
  type Coordination,
  type LockOptions,
} from "../../runtime/coordination.js";
import { openCoordination } from "../../adapters/coordination/index.js";
import { openTraceLog } from "../../adapters/coordination/trace-log.js";
import type { TraceLog } from "../../runtime/ports.js";
import { guardedTraceLog, scopedTraceLog } from "../../runtime/trace.js";
import type { AppConfig } from "./config.js";
import type { HostCapabilities } from "../../core/engine/requirements.js";
import { appHost } from "../../runtime/host.js";
import { loadDeploymentTools, type DeploymentTools } from "../../adapters/tools/registry.js";
import { toolRunnerOf } from "../../runtime/tools.js";
import { IssueController, type IssueRef, type PlaybookCatalog } from "./controller.js";
import { AppMetrics } from "../../adapters/metrics/metrics.js";
import { Serving } from "./serving.js";
import { ReconcileSweep, sweepOptions, type ReconcileSweepOptions } from "./reconcile-sweep.js";

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
/** How long a workflow remembers the issues that wait for its runs (then `/status` finds them). */
const AWAITED_TTL_MS = 30 * 24 * 3_600_000;
/** How long an issue's status-comment ids are remembered; more ids than this are not stored. */
const STATUS_IDS_TTL_MS = 30 * 24 * 3_600_000;
const MAX_STATUS_IDS = 100;

/** What the work of one event on one issue is given, and leaves to be written before it ends. */
interface IssueWork {
  statusCache: StatusCommentCache;
  /** Shared-store writes the work started (awaited workflows); awaited before the lock is let go. */
  writes: Promise<unknown>[];
  /** What is done once the work succeeded, still inside the lock (the waiting label). */
  after: (() => Promise<void>)[];
  /** Every run of the issue was ticked, and none is left unfinished. */
  noneLeft?: boolean;
  /** A run began to wait for a workflow during this work. */
  awaitsWorkflow?: boolean;
}

/** At most this many repositories per installation are looked through for waiting issues at start. */
const MAX_SCANNED_REPOSITORIES = 1000;
/** And at most this many pages (of 100) of each repository's waiting issues. */
const MAX_WAITING_ISSUE_PAGES = 10;

type RestUser = { login: string; type: string } | null;
type RestComment = {
  id: number;
  body?: string | null;
  created_at: string;
  user: RestUser;
  performed_via_github_app?: { id: number } | null;
};
/** Who may hold a role in the repository: others' new issues start nothing by their text. */
const COLLABORATOR_ASSOCIATIONS: ReadonlySet<string> = new Set(["OWNER", "MEMBER", "COLLABORATOR"]);

type RestIssue = {
  author_association?: string;
  number: number;
  title: string;
  html_url: string;
  body?: string | null;
  user: RestUser;
  labels?: ({ name?: string } | string)[];
  comments?: number;
};

function labelNames(i: RestIssue): string[] {
  return (i.labels ?? []).map((l) => (typeof l === "string" ? l : (l.name ?? ""))).filter(Boolean);
}

/** A webhook comment as the controller sees it; only this app's own comments may carry state. */
export function threadCommentOf(c: RestComment, config: AppConfig): ThreadComment {
  return {
    id: String(c.id),
    author: c.user?.login ?? "ghost",
    bot: c.user?.type === "Bot",
    // The app's own bot account, not a person acting through the app with a user token.
    byThisApp:
      c.user?.type === "Bot" &&
      (c.performed_via_github_app?.id === config.appId ||
        (config.botLogin !== undefined && c.user.login === config.botLogin)),
    body: c.body ?? "",
    createdAt: c.created_at,
  };
}

function catalogOf(tiered: Tiered): PlaybookCatalog {
  return {
    get: (id) => tiered.bundles.get(id),
    all: () => [...tiered.bundles.values()],
    sourceOf: (id) => {
      const b = tiered.bundles.get(id);
      return b ? { file: b.file, source: b.source } : undefined;
    },
    problems: (id) =>
      tiered.reports.find(
        (r) =>
          r.diagnostics.some((d) => d.severity === "error") &&
          (r.playbook?.id === id || r.file.replace(/^.*\//, "").replace(/\.ya?ml$/, "") === id),
      ),
  };
}

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
  function ownStore(store: Coordination): Coordination {
    opened.stores.push(store);
    return store;
  }

  const appFn = (app: Probot, { addHandler }: Partial<ApplicationFunctionOptions> = {}): void => {
    const coordination =
      options.coordination ??
      ownStore(
        openCoordination({
          ...(config.redis ? { redis: config.redis } : {}),
          lock,
          log: (level, line) => app.log[level](line),
        }),
      );
    app.log.info(
      coordination.kind === "memory"
        ? "coordination: in this process's memory; run one replica only (set REDIS_URL to run several)"
        : `coordination: Redis at ${coordination.where}; replicas share locks, delivery dedupe and run bookkeeping`,
    );
    serving.attach(app, coordination);
    const traceLog =
      options.trace === false ? undefined : (options.trace ?? openTraceLog(coordination));
    try {
      addHandler?.(healthz);
      addHandler?.(serving.routes);
    } catch {
      // Loaded without a server (tests, the Actions adapter): no HTTP routes then.
    }

    /**
     * The work of one event on one issue, inside that issue's lock. The issue's status-comment ids
     * come from the shared store and go back after the work succeeded (after a failure the next
     * event lists the thread), so every replica sees the runs another one started.
     */
    async function issueWork<T>(
      full: string,
      number: number,
      work: (w: IssueWork) => Promise<T>,
    ): Promise<T> {
      // The port's own cache key for the issue.
      const issueKey = `${full}#${number}`;
      const storeKey = `status-ids:${issueKey}`;
      const known = await coordination.get<string[]>(storeKey);
      const statusCache = new StatusCommentCache();
      if (known) {
        statusCache.set(issueKey, known);
        await coordination.delete(storeKey);
      }
      const writes: Promise<unknown>[] = [];
      const after: (() => Promise<void>)[] = [];
      const value = await work({ statusCache, writes, after });
      for (const r of await Promise.allSettled(writes)) if (r.status === "rejected") throw r.reason;
      for (const hook of after) await hook();
      const ids = statusCache.get(issueKey) ?? known;
      if (ids && ids.length <= MAX_STATUS_IDS)
        await coordination.put(storeKey, ids, STATUS_IDS_TTL_MS);
      return value;
    }

    /** Work on one issue alone (across replicas), outside any delivery's dedupe. */
    function onIssue<T>(full: string, number: number, work: (w: IssueWork) => Promise<T>) {
      return withDeadline(
        coordination.withLock(`issue:${full}#${number}`, () => issueWork(full, number, work), lock),
        eventTimeoutMs,
        `work on ${full}#${number}`,
      );
    }

    /**
     * A delivery's work, once across replicas: skipped when done before, marked done only after it
     * succeeded. A failure of the shared store is logged; the delivery stays not done, so the
     * inbox's retry (or, behind Probot's own middleware, GitHub's redelivery) does the work.
     */
    async function once(
      context: Context,
      lockKey: string,
      work: () => Promise<void>,
      doneId = context.id,
    ) {
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
    }

    async function controllerFor(
      context: Context,
      issue: IssueRef,
      w: IssueWork,
    ): Promise<IssueController> {
      const { owner, repo } = context.repo();
      const payload = context.payload as {
        repository: { id: number; default_branch: string };
        installation?: { id: number };
      };
      return controllerIn(
        withRequestTimeout(context.octokit as unknown as Octokit, requestTimeoutMs),
        { installation: payload.installation?.id ?? 0, repository: payload.repository.id },
        owner,
        repo,
        payload.repository.default_branch,
        issue,
        w,
      );
    }

    async function controllerIn(
      octokit: Octokit,
      ids: { installation: number; repository: number },
      owner: string,
      repo: string,
      defaultBranch: string,
      issue: IssueRef,
      w: IssueWork,
    ): Promise<IssueController> {
      // The default branch's head is asked for only when the event needs it (a start, or a run
      // pinned to a commit not yet known to be on that branch).
      let current: Promise<{ tiered: Tiered; commit: string }> | undefined;
      const head = () => (current ??= discovery.current(octokit, owner, repo, defaultBranch));
      const port = new OctokitPort({
        octokit,
        owner,
        repo,
        defaultBranch,
        appId: config.appId,
        ai,
        statusCache: w.statusCache,
        conditional,
        perDelivery: true,
        tools: toolRunnerOf(tools.forRun({ octokit, repository: { owner, repo } })),
        ...(config.botLogin ? { botLogin: config.botLogin } : {}),
      });
      const wakeUps = new IssueWakeUps(
        coordination,
        { ...ids, owner, repo, defaultBranch, issue: issue.number },
        (at) => timer.arm(at),
      );
      w.after.push(async () => {
        const labelled = issue.labels ? issue.labels.includes(WAITING_LABEL.name) : undefined;
        // In the Actions runtime a run waiting for a workflow carries the label too: its
        // `workflow_run` finds the issue by it, as no store outlives the workflow run.
        const change =
          options.ephemeralStore && w.awaitsWorkflow && labelled !== true
            ? "add"
            : await wakeUps.labelChange(labelled);
        // A store that lives for one event only (the Actions runtime) does not know which runs
        // wait for a time: the label goes once a tick of them all leaves none unfinished.
        if (change === "remove" && options.ephemeralStore && !w.noneLeft) return;
        if (change) await setWaitingLabel(octokit, owner, repo, issue.number, change);
      });
      return new IssueController({
        port,
        wakeUps,
        observe: serving.runObserver(`${owner}/${repo}#${issue.number}`),
        // A trace that cannot be written is logged; the run goes on.
        ...(traceLog
          ? {
              trace: guardedTraceLog(scopedTraceLog(traceLog, `${owner}/${repo}`), (line) =>
                app.log.warn(line),
              ),
            }
          : {}),
        host,
        catalog: async () => catalogOf((await head()).tiered),
        stateKey: repositoryStateKey(config.stateSecret, ids.installation, ids.repository),
        memory: coordination,
        clock,
        issue,
        repo: { owner, name: repo, default_branch: defaultBranch },
        inProcess: options.inProcess ?? false,
        ai,
        // A pinned commit is used only when it is on the default branch (a fork's pull request
        // head is served by the base repository too).
        catalogAt: async (at) => {
          if (
            !discovery.knownOnDefaultBranch(owner, repo, at) &&
            !(await discovery.onDefaultBranch(octokit, owner, repo, at, (await head()).commit))
          )
            return "untrusted";
          return catalogOf(await discovery.at(octokit, owner, repo, at));
        },
        // Dispatched workflows a run waits for, by repository and workflow (its file name or id,
        // as the playbook names it): a route only; the step decides which run it awaits.
        onAwaitWorkflow: (workflow) => {
          w.awaitsWorkflow = true;
          const written = coordination.addToSet(
            `awaited:${owner}/${repo}:${workflow}`,
            String(issue.number),
            AWAITED_TTL_MS,
          );
          written.catch(() => undefined); // reported when the work's writes are awaited
          w.writes.push(written);
        },
      });
    }

    // ETags of status comments this process read or wrote: their re-reads are conditional.
    const conditional = new ConditionalCache();

    // Time passing: one timer per process delivers the wake-ups due (see wake-ups.ts).
    const timer = new WakeUpTimer({
      store: coordination,
      clock,
      deliver: deliverWakeUp,
      log: (level, line) => app.log[level](line),
      ...(options.wakeUps && options.wakeUps.pollMs ? { pollMs: options.wakeUps.pollMs } : {}),
      ...(options.wakeUps && options.wakeUps.precise === false ? { precise: false } : {}),
    });
    if (options.wakeUps !== false) {
      timer.start();
      opened.timers.push(timer);
      options.wakeUps?.onTimer?.(timer);
      if (options.wakeUps?.scanOnStart !== false)
        void recoverWaiting().catch((err: unknown) =>
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
          log: (level, line) => app.log[level](line),
          appId: config.appId,
          ...(config.botLogin ? { botLogin: config.botLogin } : {}),
          auth: async (installation) =>
            withRequestTimeout(
              (await app.auth(installation)) as unknown as Octokit,
              requestTimeoutMs,
            ),
          // Not app.receive: it logs the whole payload at debug level.
          receive: (id, name, payload) => app.webhooks.receive({ id, name, payload } as never),
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

    /** A wake-up is due: its issue gets a tick, inside the issue's lock. */
    function deliverWakeUp(wake: IssueWakeUp, at: number): Promise<void> {
      return tickIssue(wake, `wake:${at}`);
    }

    async function tickIssue(wake: IssueWakeUp, eventId: string, carryOn = false): Promise<void> {
      const octokit = withRequestTimeout(
        (await app.auth(wake.installation)) as unknown as Octokit,
        requestTimeoutMs,
      );
      await onIssue(`${wake.owner}/${wake.repo}`, wake.issue, async (w) => {
        const issue = await octokit.rest.issues
          .get({ owner: wake.owner, repo: wake.repo, issue_number: wake.issue })
          .then(
            ({ data }) => data as unknown as RestIssue,
            (err: { status?: number }) => {
              if (err.status === 404 || err.status === 410) return undefined; // gone
              throw err;
            },
          );
        if (!issue) return;
        const controller = await controllerIn(
          octokit,
          { installation: wake.installation, repository: wake.repository },
          wake.owner,
          wake.repo,
          wake.defaultBranch,
          issueRef(issue),
          w,
        );
        if (carryOn) {
          await controller.carryOn(eventId);
          return;
        }
        await controller.onTick(eventId, wake.run || undefined);
        if (!wake.run) w.noneLeft = !(await controller.hasUnfinishedRuns());
      });
    }

    /**
     * At start: the issues that carry the waiting label get a tick at once (it sets their runs'
     * wake-ups again), so a process that lost them (the in-memory store) loses no time.
     */
    async function recoverWaiting(): Promise<void> {
      const appOctokit = (await app.auth()) as unknown as Octokit;
      const installations = await appOctokit.paginate(appOctokit.rest.apps.listInstallations, {
        per_page: 100,
      });
      let found = 0;
      for (const installation of installations) {
        const octokit = withRequestTimeout(
          (await app.auth(installation.id)) as unknown as Octokit,
          requestTimeoutMs,
        );
        const repositories = await octokit.paginate(
          octokit.rest.apps.listReposAccessibleToInstallation,
          { per_page: 100 },
        );
        if (repositories.length > MAX_SCANNED_REPOSITORIES)
          app.log.warn(
            `installation ${installation.id}: only the first ${MAX_SCANNED_REPOSITORIES} of ${repositories.length} repositories are looked through for issues waiting for a time`,
          );
        for (const r of repositories.slice(0, MAX_SCANNED_REPOSITORIES)) {
          let pages = 0;
          const issues = await octokit.paginate(
            octokit.rest.issues.listForRepo,
            {
              owner: r.owner.login,
              repo: r.name,
              labels: WAITING_LABEL.name,
              state: "all",
              per_page: 100,
            },
            (response, done) => {
              if (++pages >= MAX_WAITING_ISSUE_PAGES) done();
              return response.data;
            },
          );
          for (const i of issues) {
            const address: IssueAddress = {
              installation: installation.id,
              repository: r.id,
              owner: r.owner.login,
              repo: r.name,
              defaultBranch: r.default_branch,
              issue: i.number,
            };
            const wake: IssueWakeUp = { ...address, run: "" };
            await coordination.schedule(wakeUpKey(address, ""), clock().getTime(), wake);
            found++;
          }
        }
      }
      if (found) {
        app.log.info(`${found} issue(s) wait for a time: each gets a tick now`);
        timer.arm(clock().getTime());
      }
    }

    /** The waiting label, created once per repository (its colour and description) when missing. */
    const labelledRepos = new LruMap<string, true>(1000);
    async function setWaitingLabel(
      octokit: Octokit,
      owner: string,
      repo: string,
      issue: number,
      change: "add" | "remove",
    ): Promise<void> {
      const ignore =
        (...statuses: number[]) =>
        (err: { status?: number }) => {
          if (!statuses.includes(err.status ?? 0)) throw err;
        };
      if (change === "remove") {
        await octokit.rest.issues
          .removeLabel({ owner, repo, issue_number: issue, name: WAITING_LABEL.name })
          .catch(ignore(404));
        return;
      }
      if (!labelledRepos.get(`${owner}/${repo}`)) {
        await octokit.rest.issues.createLabel({ owner, repo, ...WAITING_LABEL }).catch(ignore(422)); // it exists
        labelledRepos.set(`${owner}/${repo}`, true);
      }
      await octokit.rest.issues.addLabels({
        owner,
        repo,
        issue_number: issue,
        labels: [WAITING_LABEL.name],
      });
    }

    // Alerts: one triage service for every repository; each repository's Octokit is remembered.
    const repoOctokits = new LruMap<
      string,
      { octokit: Octokit; defaultBranch: string; installation: number; repository: number }
    >(1000);
    const triage = new AlertTriage({
      issues: (full) => {
        const known = repoOctokits.get(full);
        if (!known) throw new Error(`no installation known for ${full}`);
        const [owner, repo] = full.split("/") as [string, string];
        return new OctokitAlertIssues(known.octokit, owner, repo);
      },
      playbooks: async (full) => {
        const known = repoOctokits.get(full);
        if (!known) return [];
        const [owner, repo] = full.split("/") as [string, string];
        return [
          ...(
            await discovery.current(known.octokit, owner, repo, known.defaultBranch)
          ).tiered.bundles.values(),
        ];
      },
      startRun: async (full, issue, bundle, alert) => {
        const known = repoOctokits.get(full);
        if (!known) return;
        const [owner, repo] = full.split("/") as [string, string];
        await onIssue(full, issue.number, async (w) => {
          const controller = await controllerIn(
            known.octokit,
            known,
            owner,
            repo,
            known.defaultBranch,
            { number: issue.number, title: issue.title, url: issue.url, author: "" },
            w,
          );
          await controller.startForAlert(bundle, alert, `alert:${alert.key}:${issue.number}`);
        });
      },
      now: () => clock().getTime(),
      reopenWindowMs: options.alerts?.reopenWindowMs ?? 24 * 3_600_000,
      issuesPerMinute: (source) =>
        options.alerts?.sources[
          source as keyof NonNullable<PlaybookBotOptions["alerts"]>["sources"]
        ]?.issuesPerMinute ?? 30,
      coordination,
      lock,
      observe: serving.alertObserver,
    });

    /**
     * The installation Octokit of a repository named by an alert route (the app's JWT finds it),
     * asked for once however many alerts of one notification arrive together.
     */
    const finding = new Map<string, Promise<void>>();
    function ensureRepo(full: string): Promise<void> {
      if (repoOctokits.get(full)) return Promise.resolve();
      let found = finding.get(full);
      if (!found) {
        found = findRepo(full).finally(() => finding.delete(full));
        finding.set(full, found);
      }
      return found;
    }
    async function findRepo(full: string): Promise<void> {
      const [owner, repo] = full.split("/") as [string, string];
      const appOctokit = (await app.auth()) as unknown as Octokit;
      const { data: installation } = await appOctokit.rest.apps.getRepoInstallation({
        owner,
        repo,
      });
      const octokit = withRequestTimeout(
        (await app.auth(installation.id)) as unknown as Octokit,
        requestTimeoutMs,
      );
      const { data } = await octokit.rest.repos.get({ owner, repo });
      repoOctokits.set(full, {
        octokit,
        defaultBranch: data.default_branch,
        installation: installation.id,
        repository: data.id,
      });
    }

    if (options.alerts) {
      const handler = alertsHandler({
        config: options.alerts,
        handle: async (alert, repo) => {
          await ensureRepo(repo);
          return triage.handle(alert, repo);
        },
        now: () => clock().getTime(),
        log: (line) => app.log.warn(line),
        coordination,
        lock,
        observe: serving.alertRouteObserver,
      });
      try {
        addHandler?.(handler);
      } catch {
        // no server: no alert routes
      }
    }

    app.on(
      ["code_scanning_alert", "dependabot_alert", "secret_scanning_alert"],
      async (context) => {
        await once(context, `delivery:${context.id}`, async () => {
          const p = context.payload as unknown as {
            action: string;
            alert: Record<string, unknown>;
            repository: { id: number; full_name: string; default_branch: string };
            installation?: { id: number };
          };
          const alert = fromGitHubAlert(context.name, p);
          if (!alert) return;
          repoOctokits.set(p.repository.full_name, {
            octokit: withRequestTimeout(context.octokit as unknown as Octokit, requestTimeoutMs),
            defaultBranch: p.repository.default_branch,
            installation: p.installation?.id ?? 0,
            repository: p.repository.id,
          });
          await triage.handle(alert, p.repository.full_name);
        });
      },
    );

    function issueRef(i: RestIssue): IssueRef {
      const ref: IssueRef = {
        number: i.number,
        title: i.title,
        url: i.html_url,
        author: i.user?.login ?? "ghost",
      };
      if (i.body) ref.body = i.body;
      if (typeof i.comments === "number") ref.comments = i.comments;
      if (i.labels) ref.labels = labelNames(i);
      return ref;
    }

    /** Deduplicate deliveries and serialise per issue, across replicas. */
    function handle(
      issueOf: (context: Context) => number | undefined,
      work: (context: Context, w: IssueWork) => Promise<void>,
      doneIdOf?: (context: Context) => string,
    ) {
      return async (context: Context): Promise<void> => {
        const number = issueOf(context);
        if (number === undefined) return;
        const { owner, repo } = context.repo();
        const full = `${owner}/${repo}`;
        await once(
          context,
          `issue:${full}#${number}`,
          () => issueWork(full, number, (w) => work(context, w)),
          doneIdOf?.(context),
        );
      };
    }

    const issueNumber = (c: Context) => (c.payload as { issue?: { number: number } }).issue?.number;
    const commentEventId = (c: Context) =>
      `comment-${(c.payload as { comment: { id: number } }).comment.id}`;

    app.on(
      "issues.labeled",
      handle(issueNumber, async (context, w) => {
        const p = context.payload as unknown as {
          issue: RestIssue;
          label?: { name: string };
          sender: NonNullable<RestUser>;
        };
        // The app's own waiting label starts nothing.
        if (!p.label || p.label.name === WAITING_LABEL.name) return;
        const controller = await controllerFor(context, issueRef(p.issue), w);
        await controller.onLabeled(
          p.label.name,
          { login: p.sender.login, bot: p.sender.type === "Bot" },
          context.id,
        );
      }),
    );

    app.on(
      "issues.opened",
      handle(issueNumber, async (context, w) => {
        const p = context.payload as unknown as { issue: RestIssue; sender: NonNullable<RestUser> };
        const labels = labelNames(p.issue).filter((l) => l !== WAITING_LABEL.name);
        // The issue's text may fit a playbook (on.issues): only a collaborator's issue can start
        // one, and only where the playbooks (as last read) select issues at all.
        const byText =
          COLLABORATOR_ASSOCIATIONS.has(p.issue.author_association ?? "") &&
          discovery.selectsIssues(context.repo().owner, context.repo().repo) !== false;
        if (labels.length === 0 && !byText) return;
        const controller = await controllerFor(context, issueRef(p.issue), w);
        const by = { login: p.sender.login, bot: p.sender.type === "Bot" };
        let named = false;
        for (const label of labels)
          named = (await controller.onLabeled(label, by, `${context.id}:${label}`)) || named;
        if (!named && byText) await controller.onOpened(by, context.id);
      }),
    );

    app.on(
      "issue_comment.created",
      handle(
        issueNumber,
        async (context, w) => {
          const p = context.payload as unknown as { issue: RestIssue; comment: RestComment };
          const comment = threadCommentOf(p.comment, config);
          // This app's own comments are never commands; a status comment moves its run on when the
          // app writes its state into it (an edit), not when it is created.
          if (comment.byThisApp || comment.bot || !/^ {0,3}\//m.test(comment.body)) return;
          await (
            await controllerFor(context, issueRef(p.issue), w)
          ).onComment(comment, commentEventId(context));
        },
        // Done once per comment, whichever delivery brings it: GitHub's, or the reconcile's replay.
        commentEventId,
      ),
    );

    app.on(
      ["issue_comment.edited", "issue_comment.deleted"],
      handle(issueNumber, async (context, w) => {
        const p = context.payload as unknown as {
          action: string;
          issue: RestIssue;
          comment: RestComment;
          sender: NonNullable<RestUser>;
          changes?: { body?: { from?: string } };
        };
        const comment = threadCommentOf(p.comment, config);
        if (comment.byThisApp) {
          // The app itself edits a comment only to save a run: one more step. Write users can
          // edit (or delete) the app's comments too; that freezes the run, never moves it.
          const byTheApp = p.sender.login === p.comment.user?.login;
          const controller = async () => controllerFor(context, issueRef(p.issue), w);
          if (p.action === "deleted") {
            if (hasStateBlock(comment.body))
              await (await controller()).onStatusCommentDeleted(comment, p.sender.login);
          } else if (byTheApp) {
            if (hasStateBlock(comment.body))
              // The edited body rides in the signed payload: no need to read the comment again.
              await (await controller()).onContinuation(comment.id, context.id, comment);
          } else if (hasStateBlock(comment.body) || hasStateBlock(p.changes?.body?.from ?? "")) {
            await (
              await controller()
            ).onStatusCommentEdited(comment, p.changes?.body?.from, p.sender.login);
          }
          return;
        }
        if (comment.bot) return;
        await (
          await controllerFor(context, issueRef(p.issue), w)
        ).onCommentChanged(comment.id, context.id);
      }),
    );

    app.on(
      "pull_request.closed",
      handle(
        (c) => {
          // Anyone can copy the hidden marker into a pull request of theirs: only the app's count.
          const pr = (c.payload as { pull_request: { body: string | null; user?: RestUser } })
            .pull_request;
          return pr.user?.type === "Bot" ? issueOfPullRequest(pr.body) : undefined;
        },
        async (context, w) => {
          const p = context.payload as unknown as {
            pull_request: {
              number: number;
              merged: boolean;
              html_url: string;
              body: string | null;
              user?: RestUser;
            };
          };
          if (config.botLogin === undefined || p.pull_request.user?.login !== config.botLogin) {
            // Another bot's, or the bot login is not known: the pull request payload does not
            // name the app that opened it, its issue view does.
            const { owner, repo } = context.repo();
            const via = await (context.octokit as unknown as Octokit).rest.issues
              .get({ owner, repo, issue_number: p.pull_request.number })
              .then(
                ({ data }) =>
                  (data as { performed_via_github_app?: { id: number } | null })
                    .performed_via_github_app,
                (err: { status?: number }) => {
                  if (err.status === 404) return undefined; // gone: nothing to route
                  throw err;
                },
              );
            if (via?.id !== config.appId) return;
          }
          const issue = issueOfPullRequest(p.pull_request.body) as number;
          const controller = await controllerFor(
            context,
            { number: issue, title: "", url: "", author: "" },
            w,
          );
          await controller.onPullRequestClosed(
            p.pull_request.number,
            p.pull_request.merged,
            context.id,
            p.pull_request.html_url,
          );
        },
      ),
    );

    app.on("workflow_run.completed", async (context) => {
      // Handled once every waiting issue has had it: a failure on one is redelivered for all
      // (each issue's run ignores an event it has seen).
      await once(context, `delivery:${context.id}`, () => workflowRunCompleted(context));
    });

    async function workflowRunCompleted(context: Context): Promise<void> {
      const p = context.payload as unknown as { workflow_run: RawWorkflowRun };
      const { owner, repo } = context.repo();
      const run = workflowRunFacts(p.workflow_run);
      // Only this app's dispatch of this repository's own workflow can be awaited: a run of a fork's
      // code, of another event or (when the app knows its login) by another actor goes no further.
      // The waiting step checks every fact again, with what its dispatch recorded.
      if (run.event !== "workflow_dispatch" || run.headRepositoryId !== run.repositoryId) return;
      if (config.botLogin !== undefined && run.actor !== config.botLogin) return;
      // Waits are found by the workflow's file (`.github/workflows/<file>`) or its id, never by its
      // display name, which any workflow may take.
      const file = /^\.github\/workflows\/([^/]+)$/.exec(run.path)?.[1];
      const details = p.workflow_run.html_url ? { run, url: p.workflow_run.html_url } : { run };
      const failures: unknown[] = [];
      for (const workflow of [...(file ? [file] : []), String(run.workflowId)]) {
        const issues = await coordination.members(`awaited:${owner}/${repo}:${workflow}`);
        for (const number of issues.map(Number).filter(Number.isSafeInteger)) {
          await onIssue(`${owner}/${repo}`, number, async (w) => {
            const controller = await controllerFor(
              context,
              { number, title: "", url: "", author: "" },
              w,
            );
            await controller.onWorkflowRun(
              workflow,
              p.workflow_run.id,
              p.workflow_run.conclusion ?? "unknown",
              `${context.id}:${number}`,
              details,
            );
          }).catch((err: unknown) => failures.push(err));
        }
      }
      if (failures.length) throw failures[0];
    }
  };
  return Object.assign(appFn, { close, serving });
}
