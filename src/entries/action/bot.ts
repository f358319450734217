import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import * as core from "@actions/core";
import { pino } from "pino";
import { Probot, ProbotOctokit } from "probot";
import { MemoryCoordination } from "../../adapters/coordination/memory.js";
import { plainLine } from "../../core/util/log-line.js";
import { createPlaybookBot } from "../../adapters/github-app/app.js";
import { answeredEvents } from "../../runtime/run-service/controller.js";
import type { AppConfig } from "../../adapters/github-app/config.js";
import { WAITING_LABEL, type IssueWakeUp } from "../../runtime/run-service/wake-ups.js";
import type { Octokit } from "../../adapters/github/octokit-port.js";
import {
  readIssueReplays,
  type RestReconcileComment,
} from "../../adapters/github/reconcile-reader.js";
import {
  REPLY_BUDGET,
  outsiderStartsSince,
  repliesSince,
  replyBudgetKey,
} from "../../runtime/run-service/reply-budget.js";
import { RECONCILE_WINDOW_MS } from "../../runtime/reconcile.js";

/**
 * The Actions runtime (`mode: bot`): the app's own handlers, driven by one workflow run's event
 * with the workflow's token. What it writes starts no workflow, so a run goes on until it waits;
 * and GitHub keeps one pending run per concurrency group, replacing it when a newer one comes, so
 * each run reconciles the whole issue: every command and label of the last day that the bot has
 * not answered yet, oldest first, whatever event started this run.
 */

/** The account `GITHUB_TOKEN` writes as, and the GitHub App behind it. */
export const ACTIONS_BOT_LOGIN = "github-actions[bot]";
export const ACTIONS_APP_ID = 15368;

/** How far back an issue's commands and labels are replayed. */
export { RECONCILE_WINDOW_MS };

export interface BotEnv {
  env: NodeJS.ProcessEnv;
  /** A plain line of the job log. */
  log: (line: string) => void;
  clock?: () => Date;
}

export class BotConfigError extends Error {}

type RestUser = { login: string; type: string; id?: number } | null;
interface RestComment {
  id: number;
  body?: string | null;
  created_at: string;
  user: RestUser;
  performed_via_github_app?: { id: number } | null;
  reactions?: Record<string, unknown>;
}
interface RestIssueEvent {
  id: number;
  event: string;
  created_at: string;
  actor: RestUser;
  label?: { name: string };
}
interface EventPayload {
  action?: string;
  issue?: { number: number; created_at?: string; pull_request?: unknown } & Record<string, unknown>;
  comment?: RestComment;
  repository?: {
    id: number;
    name: string;
    full_name: string;
    default_branch: string;
    owner: { login: string };
  };
  workflow_run?: { path?: string; id?: number };
  inputs?: Record<string, unknown>;
}

function input(env: NodeJS.ProcessEnv, name: string): string {
  return (env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] ?? "").trim();
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new BotConfigError(what);
  return value;
}

/** The bot's settings from the workflow: inputs and the runner's environment. */
export function readBotSettings(env: NodeJS.ProcessEnv) {
  const token = input(env, "token") || env.GITHUB_TOKEN || "";
  const stateSecret = input(env, "state-secret");
  return {
    token: required(
      token,
      "mode: bot needs a token: the default `token: ${{ github.token }}` of action.yml, or one given",
    ),
    stateSecret: required(
      stateSecret.length >= 16 ? stateSecret : "",
      "mode: bot needs `state-secret` (at least 16 characters), which signs the runs' state: create a repository secret (e.g. PLAYBOOK_STATE_SECRET) and pass `state-secret: ${{ secrets.PLAYBOOK_STATE_SECRET }}`",
    ),
    eventName: required(
      env.GITHUB_EVENT_NAME,
      "GITHUB_EVENT_NAME is not set: run this in a workflow",
    ),
    eventPath: required(
      env.GITHUB_EVENT_PATH,
      "GITHUB_EVENT_PATH is not set: run this in a workflow",
    ),
    apiUrl: (env.GITHUB_API_URL || "https://api.github.com").replace(/\/+$/, ""),
    runId: `${env.GITHUB_RUN_ID ?? "0"}-${env.GITHUB_RUN_ATTEMPT ?? "1"}`,
    /** This workflow's file (from `owner/repo/.github/workflows/<file>@<ref>`), to dispatch it. */
    workflowFile: /\/\.github\/workflows\/([^@/]+)@/.exec(env.GITHUB_WORKFLOW_REF ?? "")?.[1],
  };
}

/** Probot's log as plain lines of the job log: nothing in them can be a workflow command. */
function jobLog(log: (line: string) => void, level: string) {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (!line) continue;
        try {
          const entry = JSON.parse(line) as {
            level?: number;
            msg?: string;
            err?: { message?: string };
          };
          const text = entry.msg ?? entry.err?.message ?? line;
          log(plainLine(`${(entry.level ?? 30) >= 50 ? "error: " : ""}${text}`));
        } catch {
          log(plainLine(line));
        }
      }
      done();
    },
  });
  return pino({ level, base: null, timestamp: false }, sink);
}

/** Run the bot on the workflow's event. Returns the process's exit code. */
export async function runBot(o: BotEnv): Promise<number> {
  let settings: ReturnType<typeof readBotSettings>;
  try {
    settings = readBotSettings(o.env);
  } catch (err) {
    if (err instanceof BotConfigError) {
      core.error(err.message);
      return 1;
    }
    throw err;
  }
  const clock = o.clock ?? (() => new Date());
  const payload = JSON.parse(readFileSync(settings.eventPath, "utf8")) as EventPayload;
  const repository = payload.repository;
  if (!repository) {
    o.log(`mode: bot: a ${settings.eventName} event names no repository; nothing to do`);
    return 0;
  }
  const owner = repository.owner.login;
  const repo = repository.name;
  const config: AppConfig = {
    appId: ACTIONS_APP_ID,
    webhookSecret: "",
    stateSecret: settings.stateSecret,
    botLogin: ACTIONS_BOT_LOGIN,
  };
  let tick: ((wake: IssueWakeUp, eventId: string) => Promise<void>) | undefined;
  const coordination = new MemoryCoordination();
  const bot = createPlaybookBot({
    config,
    coordination,
    inProcess: true,
    ephemeralStore: true,
    wakeUps: false,
    // Each workflow run reconciles its issue itself (below).
    reconcile: false,
    clock,
    onTicks: (t) => {
      tick = t;
    },
  });
  const probot = new Probot({
    githubToken: settings.token,
    baseUrl: settings.apiUrl,
    // Writes are spaced as GitHub's secondary limits ask, unless told that the API has none.
    ...(o.env.PLAYBOOK_THROTTLE === "off"
      ? {
          Octokit: ProbotOctokit.defaults((options: Record<string, unknown>) => ({
            ...options,
            throttle: { ...(options.throttle as object), enabled: false },
          })),
        }
      : {}),
    log: jobLog(o.log, o.env.LOG_LEVEL || "info"),
  });
  await probot.load(bot);
  const octokit = (await probot.auth()) as unknown as Octokit;
  const receive = (id: string, name: string, body: unknown) =>
    probot.receive({ id, name, payload: body } as never);
  const address = (issue: number): IssueWakeUp => ({
    installation: 0,
    repository: repository.id,
    owner,
    repo,
    defaultBranch: repository.default_branch,
    issue,
    run: "",
  });

  try {
    const name = settings.eventName;
    const dispatched = Number(payload.inputs?.issue ?? Number.NaN);
    if (name === "workflow_dispatch" && Number.isSafeInteger(dispatched) && dispatched > 0) {
      // The sweeper's dispatch for one issue, inside that issue's concurrency group: its runs get
      // their tick, then the issue is reconciled as after any event.
      await tick?.(address(dispatched), `sweep:${settings.runId}`);
      // Reconciling reads the issue as it is now; a dispatch is no opening, so its number will do.
      await reconcile(octokit, {
        owner,
        repo,
        issue: { number: dispatched },
        repository,
        receive,
        clock,
        log: o.log,
        coordination,
      });
      return 0;
    }
    if (name === "schedule" || name === "workflow_dispatch") {
      // The sweeper: every issue whose runs wait for a time gets a tick (due timeouts, reminders,
      // retries fire; the rest wait on) — each in a workflow run of its own, dispatched into the
      // issue's concurrency group so that it never runs beside another run on that issue (a
      // dispatch is the one event a workflow's token may start a workflow with). Without the
      // workflow's file or the right to dispatch, the ticks happen here.
      const waiting = await waitingIssues(octokit, owner, repo);
      let here = waiting;
      if (settings.workflowFile && waiting.length > 0) {
        here = [];
        for (const n of waiting) {
          const sent = await octokit.rest.actions
            .createWorkflowDispatch({
              owner,
              repo,
              workflow_id: settings.workflowFile,
              ref: repository.default_branch,
              inputs: { issue: String(n) },
            })
            .then(
              () => true,
              (err: { status?: number; message?: string }) => {
                o.log(
                  plainLine(
                    `could not dispatch the sweep of #${n} (${err.status ?? "?"} ${err.message ?? ""}); ticking it here. Give the workflow \`actions: write\` and an \`issue\` input under workflow_dispatch.`,
                  ),
                );
                return false;
              },
            );
          if (!sent) here.push(n);
        }
      }
      for (const n of here) await tick?.(address(n), `sweep:${settings.runId}`);
      o.log(
        `swept ${waiting.length} issue(s) waiting for a time: ${waiting.length - here.length} dispatched, ${here.length} ticked here`,
      );
      return 0;
    }
    if (name === "workflow_run") {
      // Which issues await this workflow lives in the app's store, which a workflow run does not
      // keep: the issues waiting (they carry the label) are offered the event; the others' runs
      // do not await it and leave it.
      const file = /^\.github\/workflows\/([^/]+)$/.exec(payload.workflow_run?.path ?? "")?.[1];
      const waiting = await waitingIssues(octokit, owner, repo);
      for (const workflow of [file, String(payload.workflow_run?.id ?? "")].filter(Boolean))
        for (const n of waiting)
          await coordination.addToSet(`awaited:${owner}/${repo}:${workflow}`, String(n), 3_600_000);
      await receive(settings.runId, name, payload);
      return 0;
    }
    const issue = payload.issue;
    if (!issue) {
      // A pull request's close (a merge) moves the run that opened it: the app finds its issue.
      await receive(settings.runId, name, payload);
      return 0;
    }
    if (issue.pull_request) {
      o.log(`#${issue.number} is a pull request: playbooks run on issues`);
      return 0;
    }
    // Other events on the issue (its opening, an edit or deletion of a comment) as they came;
    // commands and labels are replayed below, this event's among them.
    const replayed =
      (name === "issue_comment" && payload.action === "created") ||
      (name === "issues" && payload.action === "labeled");
    if (!replayed) await receive(settings.runId, name, payload);
    await reconcile(octokit, {
      owner,
      repo,
      issue,
      repository,
      receive,
      clock,
      log: o.log,
      coordination,
    });
    return 0;
  } catch (err) {
    core.error(`the bot could not finish: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await bot.close();
  }
}

/** Open issues carrying the waiting label. */
async function waitingIssues(octokit: Octokit, owner: string, repo: string): Promise<number[]> {
  const issues = await octokit.paginate(octokit.rest.issues.listForRepo, {
    owner,
    repo,
    labels: WAITING_LABEL.name,
    state: "open",
    per_page: 100,
  });
  return issues.filter((i) => !i.pull_request).map((i) => i.number);
}

/**
 * Every command and label of the last day on the issue that the bot has not answered, oldest
 * first, handled as the app handles their webhooks, each under an id of its own (`comment-<id>`,
 * `label-<id>`): whichever run replays it, a run remembers it as handled.
 */
async function reconcile(
  octokit: Octokit,
  o: {
    owner: string;
    repo: string;
    issue: NonNullable<EventPayload["issue"]>;
    repository: NonNullable<EventPayload["repository"]>;
    receive: (id: string, name: string, payload: unknown) => Promise<void>;
    clock: () => Date;
    log: (line: string) => void;
    coordination: Pick<MemoryCoordination, "spend">;
  },
): Promise<void> {
  const { owner, repo } = o;
  // The issue as it is now (its labels, body, comment count and when it was opened), read once.
  const { data: issue } = await octokit.rest.issues.get({
    owner,
    repo,
    issue_number: o.issue.number,
  });
  let seen: RestReconcileComment[] = [];
  const todo = await readIssueReplays<RestIssueEvent>(octokit, {
    owner,
    repo,
    issue: o.issue.number,
    botLogin: ACTIONS_BOT_LOGIN,
    appId: ACTIONS_APP_ID,
    since: o.clock().getTime() - RECONCILE_WINDOW_MS,
    labels: true,
    answersOf: answeredEvents,
    ignoredLabels: new Set([WAITING_LABEL.name]),
    // Labels the issue was opened with are its opening's: replayed under the id it used.
    openedAt: Date.parse(issue.created_at),
    onEdited: (c) =>
      o.log(
        plainLine(
          `comment ${c.id} by @${c.user?.login ?? "ghost"} on #${o.issue.number} was edited after it was written: a command is the comment as it was created, so it is not replayed`,
        ),
      ),
    onCut: (line) => o.log(plainLine(`reconcile: ${line}`)),
    onOwn: (own) => {
      seen = own;
    },
  });
  // Each workflow run's store starts empty: what the bot already replied to each person in the
  // budget's window is spent first, counted from its own comments just read.
  const now = o.clock().getTime();
  for (const r of [...repliesSince(seen, now), ...outsiderStartsSince(seen, now)])
    await o.coordination.spend(
      replyBudgetKey({ owner, name: repo }, o.issue.number, r.login),
      REPLY_BUDGET,
      r.at,
    );
  for (const r of todo) {
    if (r.kind === "command")
      await o.receive(r.id, "issue_comment", {
        action: "created",
        issue,
        comment: r.comment,
        repository: o.repository,
        sender: r.comment.user,
      });
    else
      await o.receive(r.id, "issues", {
        action: "labeled",
        issue,
        label: r.event.label,
        repository: o.repository,
        sender: r.event.actor,
      });
  }
}
