import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApplicationFunctionOptions, Context, Probot } from "probot";
import { MockAiAdapter, type AiAdapter } from "../../adapters/ai/adapter.js";
import type { AlertsConfig } from "../../adapters/alerts/config.js";
import { alertsHandler } from "../../adapters/alerts/http.js";
import { fromGitHubAlert } from "../../adapters/alerts/sources.js";
import { AlertTriage } from "../../adapters/alerts/triage.js";
import { OctokitAlertIssues } from "../../adapters/github/alert-issues.js";
import { PlaybookDiscovery } from "../../adapters/github/discovery.js";
import {
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
import { KeyedQueue, LruMap, OnceLedger } from "../../runtime/lru.js";
import type { AppConfig } from "./config.js";
import {
  IssueController,
  newRunMemory,
  type IssueRef,
  type PlaybookCatalog,
} from "./controller.js";

export interface PlaybookBotOptions {
  config: AppConfig;
  /** External alert sources and routes (ALERTS_CONFIG); without it, only GitHub's own alerts. */
  alerts?: AlertsConfig;
  ai?: AiAdapter;
  discovery?: PlaybookDiscovery;
  clock?: () => Date;
  /** Every GitHub request is abandoned after this long (default 30 s). */
  requestTimeoutMs?: number;
  /** All the work of one event on one issue is abandoned after this long (default 5 min). */
  eventTimeoutMs?: number;
}

type RestUser = { login: string; type: string } | null;
type RestComment = {
  id: number;
  body?: string | null;
  created_at: string;
  user: RestUser;
  performed_via_github_app?: { id: number } | null;
};
type RestIssue = {
  number: number;
  title: string;
  html_url: string;
  body?: string | null;
  user: RestUser;
  labels?: ({ name?: string } | string)[];
};

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
 * The Probot app. Events for one issue are handled one at a time; a delivery seen before is a
 * no-op; everything else returns quickly.
 */
export function createPlaybookBot(options: PlaybookBotOptions) {
  const { config } = options;
  const ai = options.ai ?? new MockAiAdapter();
  const discovery = options.discovery ?? new PlaybookDiscovery();
  const clock = options.clock ?? (() => new Date());
  const statusCache = new StatusCommentCache();
  const memory = newRunMemory();
  // A delivery counts as handled once its work is done: GitHub's redelivery of a failed one is
  // handled again, a copy of a handled one is not.
  const deliveries = new OnceLedger(10_000);
  const queue = new KeyedQueue(options.eventTimeoutMs ?? 5 * 60_000);
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  // Dispatched workflows a run waits for, by repository and workflow (its file name or id, as the
  // playbook names it): kept in memory, a route only; the step decides which run it awaits.
  const awaitedWorkflows = new LruMap<string, Set<number>>(1000);

  return (app: Probot, { addHandler }: Partial<ApplicationFunctionOptions> = {}): void => {
    try {
      addHandler?.(healthz);
    } catch {
      // Loaded without a server (tests, the Actions adapter): no HTTP routes then.
    }

    async function controllerFor(context: Context, issue: IssueRef): Promise<IssueController> {
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
      );
    }

    async function controllerIn(
      octokit: Octokit,
      ids: { installation: number; repository: number },
      owner: string,
      repo: string,
      defaultBranch: string,
      issue: IssueRef,
    ): Promise<IssueController> {
      const { tiered, commit } = await discovery.current(octokit, owner, repo, defaultBranch);
      const catalog = catalogOf(tiered);
      const port = new OctokitPort({
        octokit,
        owner,
        repo,
        defaultBranch,
        appId: config.appId,
        ai,
        statusCache,
        ...(config.botLogin ? { botLogin: config.botLogin } : {}),
      });
      return new IssueController({
        port,
        catalog,
        stateKey: repositoryStateKey(config.stateSecret, ids.installation, ids.repository),
        memory,
        clock,
        issue,
        repo: { owner, name: repo, default_branch: defaultBranch },
        inProcess: false,
        // A pinned commit is used only when it is on the default branch (a fork's pull request
        // head is served by the base repository too).
        catalogAt: async (at) => {
          if (at === commit) return catalog;
          if (!(await discovery.onDefaultBranch(octokit, owner, repo, at, commit)))
            return "untrusted";
          return catalogOf(await discovery.at(octokit, owner, repo, at));
        },
        onAwaitWorkflow: (workflow) => {
          const key = `${owner}/${repo}:${workflow}`;
          const set = awaitedWorkflows.get(key) ?? new Set<number>();
          set.add(issue.number);
          awaitedWorkflows.set(key, set);
        },
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
        await queue.run(`${full}#${issue.number}`, async () => {
          const controller = await controllerIn(
            known.octokit,
            known,
            owner,
            repo,
            known.defaultBranch,
            { number: issue.number, title: issue.title, url: issue.url, author: "" },
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
    });

    /** The installation Octokit of a repository named by an alert route (the app's JWT finds it). */
    async function ensureRepo(full: string): Promise<void> {
      if (repoOctokits.get(full)) return;
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
        await deliveries.run(context.id, async () => {
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
      return ref;
    }

    /** Deduplicate deliveries and serialise per issue. */
    function handle(
      issueOf: (context: Context) => number | undefined,
      work: (context: Context) => Promise<void>,
    ) {
      return async (context: Context): Promise<void> => {
        const number = issueOf(context);
        if (number === undefined) return;
        const { owner, repo } = context.repo();
        await deliveries.run(context.id, () =>
          queue.run(`${owner}/${repo}#${number}`, () => work(context)),
        );
      };
    }

    const issueNumber = (c: Context) => (c.payload as { issue?: { number: number } }).issue?.number;

    app.on(
      "issues.labeled",
      handle(issueNumber, async (context) => {
        const p = context.payload as unknown as {
          issue: RestIssue;
          label?: { name: string };
          sender: NonNullable<RestUser>;
        };
        if (!p.label) return;
        const controller = await controllerFor(context, issueRef(p.issue));
        await controller.onLabeled(
          p.label.name,
          { login: p.sender.login, bot: p.sender.type === "Bot" },
          context.id,
        );
      }),
    );

    app.on(
      "issues.opened",
      handle(issueNumber, async (context) => {
        const p = context.payload as unknown as { issue: RestIssue; sender: NonNullable<RestUser> };
        const labels = (p.issue.labels ?? [])
          .map((l) => (typeof l === "string" ? l : (l.name ?? "")))
          .filter(Boolean);
        if (labels.length === 0) return;
        const controller = await controllerFor(context, issueRef(p.issue));
        for (const label of labels)
          await controller.onLabeled(
            label,
            { login: p.sender.login, bot: p.sender.type === "Bot" },
            `${context.id}:${label}`,
          );
      }),
    );

    app.on(
      "issue_comment.created",
      handle(issueNumber, async (context) => {
        const p = context.payload as unknown as { issue: RestIssue; comment: RestComment };
        const comment = threadCommentOf(p.comment, config);
        // This app's own comments are never commands; a status comment moves its run on when the
        // app writes its state into it (an edit), not when it is created.
        if (comment.byThisApp || comment.bot || !/^ {0,3}\//m.test(comment.body)) return;
        await (await controllerFor(context, issueRef(p.issue))).onComment(comment, context.id);
      }),
    );

    app.on(
      ["issue_comment.edited", "issue_comment.deleted"],
      handle(issueNumber, async (context) => {
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
          const controller = async () => controllerFor(context, issueRef(p.issue));
          if (p.action === "deleted") {
            if (hasStateBlock(comment.body))
              await (await controller()).onStatusCommentDeleted(comment, p.sender.login);
          } else if (byTheApp) {
            if (hasStateBlock(comment.body))
              await (await controller()).onContinuation(comment.id, context.id);
          } else if (hasStateBlock(comment.body) || hasStateBlock(p.changes?.body?.from ?? "")) {
            await (
              await controller()
            ).onStatusCommentEdited(comment, p.changes?.body?.from, p.sender.login);
          }
          return;
        }
        if (comment.bot) return;
        await (
          await controllerFor(context, issueRef(p.issue))
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
        async (context) => {
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
          const controller = await controllerFor(context, {
            number: issue,
            title: "",
            url: "",
            author: "",
          });
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
      await deliveries.run(context.id, () => workflowRunCompleted(context));
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
        const issues = awaitedWorkflows.get(`${owner}/${repo}:${workflow}`);
        for (const number of issues ?? []) {
          await queue
            .run(`${owner}/${repo}#${number}`, async () => {
              const controller = await controllerFor(context, {
                number,
                title: "",
                url: "",
                author: "",
              });
              await controller.onWorkflowRun(
                workflow,
                p.workflow_run.id,
                p.workflow_run.conclusion ?? "unknown",
                `${context.id}:${number}`,
                details,
              );
            })
            .catch((err: unknown) => failures.push(err));
        }
      }
      if (failures.length) throw failures[0];
    }
  };
}
