import type { ApplicationFunctionOptions, Context, Probot } from "probot";
import type { AlertsConfig } from "../alerts/config.js";
import { alertsHandler } from "../alerts/http.js";
import { fromGitHubAlert } from "../alerts/sources.js";
import { AlertTriage } from "../../runtime/alert-triage.js";
import { OctokitAlertIssues, type AlertIssuesAuthor } from "../github/alert-issues.js";
import type { PlaybookDiscovery } from "../github/discovery.js";
import { withRequestTimeout, type Octokit } from "../github/octokit-port.js";
import { OctokitRepositoryHost, type RepositoryHostDeps } from "../github/repository-host.js";
import type { Coordination, LockOptions } from "../../runtime/coordination.js";
import { LruMap } from "../../runtime/lru.js";
import type { RunService } from "../../runtime/run-service/service.js";
import type { IssueAddress } from "../../runtime/run-service/wake-ups.js";
import type { Once } from "./handlers.js";
import type { Serving } from "./serving.js";
import { appOctokit, gitHubAlertPayload, octokitOf } from "./payloads.js";

export interface AlertWiring {
  service: RunService;
  repositories: RepositoryHostDeps;
  discovery: PlaybookDiscovery;
  coordination: Coordination;
  lock: LockOptions;
  clock: () => Date;
  serving: Serving;
  requestTimeoutMs: number;
  /** This app: an alert's issue is one it opened (see OctokitAlertIssues). */
  app: AlertIssuesAuthor;
  installationOctokit(installation: number): Promise<Octokit>;
  once: Once;
  /** External alert sources and routes (ALERTS_CONFIG); without it, only GitHub's own alerts. */
  config?: AlertsConfig;
  addHandler?: ApplicationFunctionOptions["addHandler"] | undefined;
}

/** A repository an alert concerns, as reached through its installation. */
type KnownRepository = Omit<IssueAddress, "issue"> & { octokit: Octokit };

/**
 * Alerts (GitHub's security alerts, and the external sources of ALERTS_CONFIG) open triage
 * issues and start the best-matching playbook on them: one triage service for every repository.
 */
export function registerAlerts(app: Probot, w: AlertWiring): void {
  // Each repository's Octokit is remembered from its last event (or found by the app's JWT).
  const known = new LruMap<string, KnownRepository>(1000);
  const triage = new AlertTriage({
    issues: (full) => {
      const r = known.get(full);
      if (!r) throw new Error(`no installation known for ${full}`);
      return new OctokitAlertIssues(r.octokit, r.owner, r.repo, w.app);
    },
    playbooks: async (full) => {
      const r = known.get(full);
      if (!r) return [];
      return [
        ...(
          await w.discovery.current(r.octokit, r.owner, r.repo, r.defaultBranch)
        ).tiered.bundles.values(),
      ];
    },
    startRun: async (full, issue, bundle, alert) => {
      const r = known.get(full);
      if (!r) return;
      const { octokit, ...repository } = r;
      const address = { ...repository, issue: issue.number };
      await w.service.startForAlert(
        {
          address,
          issue: { number: issue.number, title: issue.title, url: issue.url, author: "" },
          repository: new OctokitRepositoryHost(octokit, address, w.repositories),
        },
        bundle,
        alert,
        `alert:${alert.key}:${issue.number}`,
      );
    },
    now: () => w.clock().getTime(),
    reopenWindowMs: w.config?.reopenWindowMs ?? 24 * 3_600_000,
    issuesPerMinute: (source) =>
      w.config?.sources[source as keyof AlertsConfig["sources"]]?.issuesPerMinute ?? 30,
    coordination: w.coordination,
    lock: w.lock,
    observe: w.serving.alertObserver,
  });
  app.on(["code_scanning_alert", "dependabot_alert", "secret_scanning_alert"], (context) =>
    w.once(context, `delivery:${context.id}`, () => gitHubAlert(context)),
  );
  if (w.config)
    externalAlerts(w, w.config, triage, findRepository(app, w, known), (line) =>
      app.log.warn(line),
    );

  async function gitHubAlert(
    context: Context<"code_scanning_alert" | "dependabot_alert" | "secret_scanning_alert">,
  ): Promise<void> {
    const p = context.payload;
    const alert = fromGitHubAlert(context.name, gitHubAlertPayload(p));
    if (!alert) return;
    known.set(p.repository.full_name, {
      octokit: withRequestTimeout(octokitOf(context.octokit), w.requestTimeoutMs),
      owner: p.repository.owner.login,
      repo: p.repository.name,
      defaultBranch: p.repository.default_branch,
      installation: p.installation?.id ?? 0,
      repository: p.repository.id,
    });
    await triage.handle(alert, p.repository.full_name);
  }
}

/** The HTTP routes of the external alert sources. */
function externalAlerts(
  w: AlertWiring,
  config: AlertsConfig,
  triage: AlertTriage,
  ensureRepo: (full: string) => Promise<void>,
  log: (line: string) => void,
): void {
  const handler = alertsHandler({
    config,
    handle: async (alert, repo) => {
      await ensureRepo(repo);
      return triage.handle(alert, repo);
    },
    now: () => w.clock().getTime(),
    log,
    coordination: w.coordination,
    lock: w.lock,
    observe: w.serving.alertRouteObserver,
  });
  try {
    w.addHandler?.(handler);
  } catch {
    // no server: no alert routes
  }
}

/**
 * The installation Octokit of a repository named by an alert route (the app's JWT finds it),
 * asked for once however many alerts of one notification arrive together.
 */
function findRepository(
  app: Probot,
  w: AlertWiring,
  known: LruMap<string, KnownRepository>,
): (full: string) => Promise<void> {
  const finding = new Map<string, Promise<void>>();
  async function find(full: string): Promise<void> {
    const [owner, repo] = full.split("/") as [string, string];
    const appClient = await appOctokit(app);
    const { data: installation } = await appClient.rest.apps.getRepoInstallation({ owner, repo });
    const octokit = await w.installationOctokit(installation.id);
    const { data } = await octokit.rest.repos.get({ owner, repo });
    known.set(full, {
      octokit,
      owner,
      repo,
      defaultBranch: data.default_branch,
      installation: installation.id,
      repository: data.id,
    });
  }
  return (full) => {
    if (known.get(full)) return Promise.resolve();
    let found = finding.get(full);
    if (!found) {
      found = find(full).finally(() => finding.delete(full));
      finding.set(full, found);
    }
    return found;
  };
}
