import type { ProbotOctokit } from "probot";
import { StatusCommentCache } from "../../runtime/run-service/status-ids.js";
import { checkExpectedFiles, performAiEffect, type AiAdapter } from "../../runtime/ai.js";
import { playbookError, type PlaybookError } from "../../core/engine/errors.js";
import type { Effect, EffectParams } from "../../core/engine/events.js";
import { describeEffect } from "../../core/steps/effects.js";
import { activeFrame, type Frame, type RunState } from "../../core/engine/state.js";
import type { DispatchOutputs } from "../../core/steps/dispatch/effect.js";
import { SCRIPT_REFUSED_HINT } from "../../core/steps/script/effect.js";
import { NO_TOOLS, performToolCalls, type ToolRunner } from "../../runtime/tool-calls.js";
import { DISPATCH_CLOCK_SLACK_MS, workflowRunMatches } from "../../core/steps/dispatch/executor.js";
import {
  branchExists,
  candidateNames,
  foreignBranch,
  foreignCommits,
  ifExists,
  noFreeName,
} from "../branch-reuse.js";
import {
  issueMarker,
  performWith,
  runIssue,
  runTrailer,
  type EffectHandlers,
  type EffectOutcome,
} from "../../runtime/effects.js";
import { PERMISSIONS } from "../../core/format/schema.js";
import type { Permission } from "../../core/format/types.js";
import { LruMap } from "../../runtime/lru.js";
import {
  hasStateBlock,
  proposeWith,
  type CompletedWorkflowRun,
  type GitHubPort,
  type FileProposal,
  type LinkedPullRequest,
  type Reaction,
  type ThreadComment,
} from "../../runtime/github-port.js";
import { rateLimitRetryAfter } from "./octokit-pacing.js";
import { requestFailure } from "../../runtime/request-errors.js";
import {
  createOnce,
  newestComments,
  pullRequestExists,
  SINGLE_ATTEMPT,
  type CreateRetry,
} from "./create-once.js";
import {
  dispatchCorrelation,
  dispatchedRef,
  workflowRunFacts,
  type RawWorkflowRun,
} from "./workflow-runs.js";

export type Octokit = InstanceType<typeof ProbotOctokit>;

/** The hidden marker in a pull request body that leads a `pull_request.closed` event back to its issue. */
export function pullRequestMarker(issue: number, key: string): string {
  return `<!-- playbook-bot:pull-request issue=${issue} key=${key} -->`;
}

export function issueOfPullRequest(body: string | null | undefined): number | undefined {
  const m = /<!-- playbook-bot:pull-request issue=([0-9]+) /.exec(body ?? "");
  return m ? Number(m[1]) : undefined;
}

interface RequestErrorLike {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | number | undefined> };
}

// Deadlines and rate-limit classification live with the pacing of requests.
export { rateLimitRetryAfter, withRequestTimeout } from "./octokit-pacing.js";

/**
 * A coded failure for a GitHub error. Rate limits (403/429 with retry-after or an exhausted quota)
 * are retryable failures the run records; `/retry` or the next event resumes it. Tokens never
 * appear: only the status and GitHub's message are kept.
 */
export function githubError(err: unknown, what: string): PlaybookError {
  const e = err as RequestErrorLike;
  const status = e.status ?? 0;
  const message = String(e.message ?? err).replace(
    /(gh[pousr]_|ghs_|v1\.)[A-Za-z0-9_.]+/g,
    "[redacted]",
  );
  const cause = `HTTP ${status}: ${message.slice(0, 300)}`;
  if ((err as { timeout?: boolean }).timeout === true)
    return playbookError("GH-TIMEOUT", `GitHub did not answer in time to ${what}`, cause);
  const retryAfter = rateLimitRetryAfter(err);
  if (retryAfter !== undefined) {
    const after = retryAfter ? ` (retry after ${retryAfter} s)` : "";
    return playbookError("GH-RATE-LIMITED", `GitHub rate-limited ${what}${after}`, cause);
  }
  if (status === 401 || status === 403)
    return playbookError("GH-PERMISSION", `the app may not ${what}`, cause);
  if (status === 404)
    return playbookError("GH-NOT-FOUND", `not found while trying to ${what}`, cause);
  if (status === 409)
    return playbookError("GH-CONFLICT", `conflict while trying to ${what}`, cause);
  if (status === 422) return playbookError("GH-VALIDATION", `GitHub refused to ${what}`, cause);
  return playbookError("GH-ERROR", `GitHub failed to ${what}`, cause);
}

export interface OctokitPortOptions {
  octokit: Octokit;
  owner: string;
  repo: string;
  defaultBranch: string;
  /**
   * This app's id: comments and issues it wrote carry it in performed_via_github_app. 0 for a
   * person's token (local runs): then what that person authored counts as the run's own.
   */
  appId: number;
  /** This app's bot login (`<slug>[bot]`), when known. */
  botLogin?: string;
  ai: AiAdapter;
  /** Where the tool calls of investigate steps go (default: none configured). */
  tools?: ToolRunner;
  /** Where status comments are remembered across events (see StatusCommentCache). */
  statusCache?: StatusCommentCache;
  /** ETags and bodies of comments read or written, for conditional re-reads (one per app). */
  conditional?: ConditionalCache;
  /**
   * This port serves one webhook delivery: a person's role and teams are looked up once and
   * reused for the rest of it (each delivery looks them up again).
   */
  perDelivery?: boolean;
  /** How a comment, issue or pull request whose creation failed uncertainly is retried (see create-once). */
  createRetry?: Partial<CreateRetry>;
}

/**
 * What GitHub last answered for a resource, with its ETag: a re-read sends `If-None-Match`, and a
 * 304 (which does not count against the rate limit) means the remembered answer still holds.
 * Bounded: the least recently used entries go first.
 */
export class ConditionalCache {
  private readonly entries: LruMap<string, { etag: string; data: unknown }>;
  constructor(max = 200) {
    this.entries = new LruMap(max);
  }

  get(key: string): { etag: string; data: unknown } | undefined {
    return this.entries.get(key);
  }

  /** Remembers an answer when GitHub gave it an ETag. */
  remember(key: string, headers: Record<string, unknown> | undefined, data: unknown): void {
    const etag = headers?.etag;
    if (typeof etag === "string" && etag) this.entries.set(key, { etag, data });
  }
}

/**
 * Whether a lookup failed because GitHub said no (a 4xx other than a rate limit), as opposed to
 * not answering: only GitHub's no may deny a person what they asked for.
 */
function refusedLookup(err: unknown): boolean {
  return requestFailure(err) === "refused" && rateLimitRetryAfter(err) === undefined;
}

/** Whether a request failed with 304 Not Modified (Octokit reports it as an error). */
export function notModified(err: unknown): boolean {
  return (err as RequestErrorLike).status === 304;
}

/** How much earlier than a step's start (by the app's clock) GitHub's timestamps are looked at. */
const CLOCK_SLACK_MS = 10 * 60_000;

/** Who made an issue, a pull request or a comment, as GitHub reports it. */
type Authored = {
  user?: { login: string; type?: string } | null;
  performed_via_github_app?: { id: number } | null;
};

type RestComment = {
  id: number;
  body?: string | null;
  created_at: string;
  updated_at?: string;
  issue_url?: string;
  user: { login: string; type: string } | null;
  performed_via_github_app?: { id: number } | null;
};

/** The issue number at the end of a comment's `issue_url`. */
function issueOf(url: string | undefined): number | undefined {
  const m = url ? /\/issues\/([0-9]+)$/.exec(url) : null;
  return m ? Number(m[1]) : undefined;
}

/** GitHub through Octokit: the port the Probot app gives the issue controller. */
export class OctokitPort implements GitHubPort {
  private readonly octokit: Octokit;
  private readonly owner: string;
  private readonly repo: string;

  /** The client and repository this port acts on (the built-in GitHub tools read through them). */
  get repository(): { octokit: Octokit; repository: { owner: string; repo: string } } {
    return { octokit: this.octokit, repository: { owner: this.owner, repo: this.repo } };
  }

  constructor(private readonly o: OctokitPortOptions) {
    this.octokit = o.octokit;
    this.owner = o.owner;
    this.repo = o.repo;
  }

  private view(c: RestComment): ThreadComment {
    // The app's own bot account, written through the app and under its login when known (see
    // threadCommentOf in src/adapters/github-app/payloads.ts, which judges webhooks alike).
    const byThisApp =
      c.user?.type === "Bot" &&
      c.performed_via_github_app?.id === this.o.appId &&
      (this.o.botLogin === undefined || c.user.login === this.o.botLogin);
    return {
      id: String(c.id),
      author: c.user?.login ?? "ghost",
      bot: c.user?.type === "Bot",
      byThisApp,
      body: c.body ?? "",
      createdAt: c.created_at,
      ...(c.updated_at ? { updatedAt: c.updated_at } : {}),
      ...(issueOf(c.issue_url) !== undefined ? { issue: issueOf(c.issue_url) } : {}),
    };
  }

  /** The login this port writes as, when known: the bot login, or a person's token's login. */
  private selfLogin?: Promise<string | undefined>;
  private async ownLogin(): Promise<string | undefined> {
    if (this.o.botLogin !== undefined) return this.o.botLogin;
    if (this.o.appId !== 0) return undefined; // an installation token cannot ask who it is
    this.selfLogin ??= this.octokit.rest.users
      .getAuthenticated()
      .then(({ data }) => data.login)
      .catch(() => undefined);
    return this.selfLogin;
  }

  /**
   * Whether this app (or, locally, the token's owner) opened an issue or pull request: a hidden
   * marker alone proves nothing, since anyone can copy it into an issue of theirs.
   */
  private async authored(item: Authored): Promise<boolean> {
    if (
      this.o.appId !== 0 &&
      item.user?.type === "Bot" &&
      item.performed_via_github_app?.id === this.o.appId
    )
      return true;
    const login = await this.ownLogin();
    return login !== undefined && item.user?.login === login;
  }

  /**
   * A pull request's author. The pulls API does not name the app that opened one: a bot's pull
   * request that the bot login does not settle is looked up in the issues API (one request).
   */
  private async authoredPull(
    pr: { number: number; user?: { login: string; type?: string } | null } & Authored,
  ): Promise<boolean> {
    if (await this.authored(pr)) return true;
    if (this.o.appId === 0 || pr.user?.type !== "Bot") return false;
    const { data } = await this.octokit.rest.issues.get({
      owner: this.owner,
      repo: this.repo,
      issue_number: pr.number,
    });
    return this.authored(data as Authored);
  }

  /** Lookups made in this delivery, by login (and team), when the port serves one delivery. */
  private readonly looked = new Map<string, Promise<unknown>>();
  private once<T>(key: string, lookup: () => Promise<T>): Promise<T> {
    if (!this.o.perDelivery) return lookup();
    const known = this.looked.get(key) as Promise<T> | undefined;
    if (known) return known;
    const p = lookup();
    this.looked.set(key, p);
    return p;
  }

  permission(login: string): Promise<Permission | undefined> {
    return this.once(`permission\n${login.toLowerCase()}`, () => this.lookUpPermission(login));
  }

  private async lookUpPermission(login: string): Promise<Permission | undefined> {
    // Conditional: a role asked again in a later delivery (the guard re-checks approvers before
    // each effect) is answered 304 while unchanged, which GitHub does not count against the limit.
    const key = `permission\n${this.owner}/${this.repo}\n${login.toLowerCase()}`;
    const known = this.o.conditional?.get(key);
    try {
      const { data, headers } = await this.octokit.rest.repos
        .getCollaboratorPermissionLevel({
          owner: this.owner,
          repo: this.repo,
          username: login,
          ...(known ? { headers: { "if-none-match": known.etag } } : {}),
        })
        .catch((err: unknown) => {
          if (known && notModified(err)) return { data: known.data, headers: {} };
          throw err;
        });
      if (data !== known?.data) this.o.conditional?.remember(key, headers, data);
      // role_name is the real role; the legacy `permission` reports maintain as write and triage as read.
      const role = (data as { role_name?: string }).role_name;
      return (PERMISSIONS as readonly string[]).includes(role ?? "")
        ? (role as Permission)
        : undefined;
    } catch (err) {
      // GitHub's no (not a collaborator, not visible) denies; a lookup left unanswered (a
      // timeout, a 5xx, a rate limit) is not a no: it fails the delivery, which is tried again.
      if (refusedLookup(err)) return undefined;
      throw err;
    }
  }

  async teams(login: string, candidates: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (const team of candidates)
      if (await this.once(`team\n${login.toLowerCase()}\n${team}`, () => this.inTeam(login, team)))
        out.push(team);
    return out;
  }

  private async inTeam(login: string, team: string): Promise<boolean> {
    const [org, slug] = team.includes("/")
      ? (team.split("/", 2) as [string, string])
      : [this.owner, team];
    try {
      const { data } = await this.octokit.rest.teams.getMembershipForUserInOrg({
        org,
        team_slug: slug,
        username: login,
      });
      return data.state === "active";
    } catch (err) {
      // Not a member, or the app may not read teams: either way, no. Unanswered is not a no.
      if (refusedLookup(err)) return false;
      throw err;
    }
  }

  async comments(issue: number): Promise<ThreadComment[]> {
    const all = (await this.octokit.paginate(this.octokit.rest.issues.listComments, {
      owner: this.owner,
      repo: this.repo,
      issue_number: issue,
      per_page: 100,
    })) as RestComment[];
    return all.map((c) => this.view(c));
  }

  /** Comments changed since a time of the app's clock (less a slack for clocks that differ). */
  private async commentsSince(issue: number, since: string): Promise<ThreadComment[]> {
    const from = Date.parse(since);
    const all = (await this.octokit.paginate(this.octokit.rest.issues.listComments, {
      owner: this.owner,
      repo: this.repo,
      issue_number: issue,
      per_page: 100,
      ...(Number.isNaN(from) ? {} : { since: new Date(from - CLOCK_SLACK_MS).toISOString() }),
    })) as RestComment[];
    return all.map((c) => this.view(c));
  }

  /** Status comments of an issue: remembered ids fetched one by one, or one listing on a miss. */
  async statusComments(issue: number): Promise<ThreadComment[]> {
    const key = `${this.owner}/${this.repo}#${issue}`;
    const cached = this.o.statusCache?.get(key);
    if (cached) {
      const found: ThreadComment[] = [];
      for (const id of cached) {
        const c = await this.comment(issue, id);
        if (c) found.push(c);
      }
      return found;
    }
    const mine = (await this.comments(issue)).filter((c) => c.byThisApp && hasStateBlock(c.body));
    this.o.statusCache?.set(
      key,
      mine.map((c) => c.id),
    );
    return mine;
  }

  /**
   * The newest comment `wanted` accepts, looked for from the thread's last page back (`count`, the
   * issue's comment count from the webhook, names the last page; a page that says more follow is
   * followed to the last). `every` is the whole thread when every page was read on the way.
   */
  async newestComment(
    issue: number,
    wanted: (c: ThreadComment) => boolean,
    count?: number,
  ): Promise<{ found?: ThreadComment; every?: ThreadComment[] }> {
    const perPage = 100;
    const read = async (page: number) => {
      const { data, headers } = await this.octokit.rest.issues.listComments({
        owner: this.owner,
        repo: this.repo,
        issue_number: issue,
        per_page: perPage,
        ...(page > 1 ? { page } : {}),
      });
      const link = String(headers.link ?? "");
      const last = /[?&]page=([0-9]+)>; rel="last"/.exec(link)?.[1];
      return {
        comments: (data as RestComment[]).map((c) => this.view(c)),
        last: /rel="next"/.test(link) && last ? Number(last) : undefined,
      };
    };
    let page = Math.max(1, Math.ceil((count ?? 0) / perPage));
    let got = await read(page);
    const pages = new Map<number, ThreadComment[]>([[page, got.comments]]);
    if (got.last !== undefined && got.last > page) {
      page = got.last;
      got = await read(page);
      pages.set(page, got.comments);
    }
    for (let p = page; p >= 1; p--) {
      const comments = pages.get(p) ?? (await read(p)).comments;
      pages.set(p, comments);
      const found = [...comments].reverse().find(wanted);
      if (found) return { found };
    }
    return { every: [...pages.entries()].sort(([a], [b]) => a - b).flatMap(([, c]) => c) };
  }

  /** One comment; a re-read is conditional (a 304 answers from the remembered body). */
  async comment(_issue: number, id: string): Promise<ThreadComment | undefined> {
    const key = this.commentKey(id);
    const known = this.o.conditional?.get(key);
    try {
      const { data, headers } = await this.octokit.rest.issues.getComment({
        owner: this.owner,
        repo: this.repo,
        comment_id: Number(id),
        ...(known ? { headers: { "if-none-match": known.etag } } : {}),
      });
      this.o.conditional?.remember(key, headers, data);
      return this.view(data as RestComment);
    } catch (err) {
      if (known && notModified(err)) return this.view(known.data as RestComment);
      // Gone is an answer; a failure (or no answer) is not "gone": the event fails and is retried.
      if ((err as RequestErrorLike).status === 404) return undefined;
      throw err;
    }
  }

  remembered(id: string): ThreadComment | undefined {
    const known = this.o.conditional?.get(this.commentKey(id));
    return known ? this.view(known.data as RestComment) : undefined;
  }

  private commentKey(id: string): string {
    return `${this.owner}/${this.repo}/comments/${id}`;
  }

  createComment(issue: number, body: string): Promise<ThreadComment> {
    return this.postComment(issue, body);
  }

  /**
   * A comment, posted once even when an attempt fails after GitHub made it: found again by its
   * effect marker when it has one, else as this app's newest comment on the issue with this body.
   */
  private async postComment(issue: number, body: string, marker?: string): Promise<ThreadComment> {
    const data = await createOnce<RestComment>({
      create: async () =>
        (
          await this.octokit.rest.issues.createComment({
            owner: this.owner,
            repo: this.repo,
            issue_number: issue,
            body,
            ...SINGLE_ATTEMPT,
          })
        ).data as RestComment,
      find: () => this.postedComment(issue, body, marker),
      ...this.createOptions(),
    });
    const c = this.view(data);
    if (hasStateBlock(body)) this.o.statusCache?.add(`${this.owner}/${this.repo}#${issue}`, c.id);
    return { ...c, byThisApp: true };
  }

  private createOptions(): { retry?: Partial<CreateRetry> } {
    return this.o.createRetry ? { retry: this.o.createRetry } : {};
  }

  /**
   * The comment a failed attempt made, among the thread's newest: a marked one anywhere there (other
   * runs may have written since); an unmarked one only as this app's newest, since the same words
   * may have been written before.
   */
  private async postedComment(
    issue: number,
    body: string,
    marker: string | undefined,
  ): Promise<RestComment | undefined> {
    const recent = await newestComments(this.octokit, {
      owner: this.owner,
      repo: this.repo,
      issue,
    });
    const mine: RestComment[] = [];
    for (const c of recent) if (await this.authored(c)) mine.push(c);
    if (marker) return mine.findLast((c) => (c.body ?? "").includes(marker));
    const newest = mine.at(-1);
    return newest && (newest.body ?? "").trim() === body.trim() ? newest : undefined;
  }

  async createStatusComment(issue: number, body: string): Promise<ThreadComment> {
    const c = await this.createComment(issue, body);
    this.o.statusCache?.add(`${this.owner}/${this.repo}#${issue}`, c.id);
    return c;
  }

  async updateComment(_issue: number, id: string, body: string): Promise<void> {
    const { data, headers } = await this.octokit.rest.issues.updateComment({
      owner: this.owner,
      repo: this.repo,
      comment_id: Number(id),
      body,
    });
    // The comment as it now is: the next read of it can be answered 304.
    this.o.conditional?.remember(this.commentKey(id), headers, data);
  }

  /** Effect keys whose effect may have happened before (a result never saved): looked for first. */
  private readonly repeated = new Set<string>();
  mayHaveDone(key: string): void {
    this.repeated.add(key);
  }

  async react(_issue: number, commentId: string, reaction: Reaction): Promise<void> {
    try {
      await this.octokit.rest.reactions.createForIssueComment({
        owner: this.owner,
        repo: this.repo,
        comment_id: Number(commentId),
        content: reaction,
      });
    } catch {
      // A reaction is a courtesy; failing to add one must not fail the command.
    }
  }

  /** The effects, by kind; a GitHub error becomes a coded failure in `perform`. */
  readonly handlers: EffectHandlers = {
    branch: (effect) => this.branch(effect),
    commit: (effect) => this.commit(effect),
    pull_request: (effect, run) => this.pullRequest(effect, runIssue(run)),
    issue: (effect) => this.issue(effect),
    label: (effect, run) => this.label(effect, runIssue(run)),
    close: (effect, run) => this.close(effect, runIssue(run)),
    dispatch: (effect, run) =>
      this.dispatch(effect, run.stack?.length ? activeFrame(run).since : undefined),
    comment: (effect, run) => this.commentEffect(effect, runIssue(run), run),
    ai: (effect) => this.ai(effect),
    // The controller starts the other playbook; nothing happens on GitHub.
    start_playbook: async () => ({ ok: true, outputs: {} }),
    tool_call: async (effect) => ({
      ok: true,
      outputs: await performToolCalls(this.o.tools ?? NO_TOOLS, effect.params),
    }),
    // The app runs no code from a playbook: a script step is refused here, always.
    script: async (effect) => ({
      ok: false,
      error: playbookError(
        "PB-SCRIPT-REFUSED",
        `step ${effect.step} is a ${effect.params.shell} script, and the app does not run scripts`,
        SCRIPT_REFUSED_HINT,
      ),
    }),
  };

  async perform(effect: Effect, run: RunState): Promise<EffectOutcome> {
    try {
      return await performWith(this.handlers, effect, run);
    } catch (err) {
      return { ok: false, error: githubError(err, describeEffect(effect)) };
    }
  }

  /** Where a pull request stands (a local run asks instead of waiting for a webhook). */
  async pullRequestState(
    number: number,
  ): Promise<{ state: "open" | "closed"; merged: boolean; url: string }> {
    const { data } = await this.octokit.rest.pulls.get({
      owner: this.owner,
      repo: this.repo,
      pull_number: number,
    });
    return {
      state: data.state === "closed" ? "closed" : "open",
      merged: data.merged === true,
      url: data.html_url,
    };
  }

  /**
   * The awaited workflow run, once completed, matched as the webhook is (`workflowRunMatches`):
   * by its id when the dispatch returned one, otherwise among the workflow's recent completed
   * `workflow_dispatch` runs on the dispatched ref since the dispatch.
   */
  async completedWorkflowRun(
    awaiting: NonNullable<Frame["awaiting"]>,
    since: string,
  ): Promise<CompletedWorkflowRun | undefined> {
    const workflow = awaiting.workflow;
    if (workflow === undefined) return undefined;
    let runs: RawWorkflowRun[];
    if (awaiting.workflowRun !== undefined) {
      const { data } = await this.octokit.rest.actions.getWorkflowRun({
        owner: this.owner,
        repo: this.repo,
        run_id: awaiting.workflowRun,
      });
      runs = [data as RawWorkflowRun];
    } else {
      const d = awaiting.dispatched;
      const from = d ? Date.parse(d.at) - DISPATCH_CLOCK_SLACK_MS : Date.parse(since);
      const { data } = await this.octokit.rest.actions.listWorkflowRuns({
        owner: this.owner,
        repo: this.repo,
        workflow_id: workflow,
        event: "workflow_dispatch",
        status: "completed",
        ...(d ? { branch: d.ref } : {}),
        ...(d?.actor ? { actor: d.actor } : {}),
        ...(Number.isNaN(from)
          ? {}
          : { created: `>=${new Date(from).toISOString().slice(0, 19)}Z` }),
        per_page: 20,
      });
      runs = data.workflow_runs as RawWorkflowRun[];
    }
    for (const raw of runs) {
      if (raw.status !== "completed") continue;
      const found: CompletedWorkflowRun = {
        id: raw.id,
        conclusion: raw.conclusion ?? "unknown",
        run: workflowRunFacts(raw),
      };
      if (raw.html_url) found.url = raw.html_url;
      const event = {
        type: "workflow_run" as const,
        id: "",
        workflow,
        runId: found.id,
        conclusion: found.conclusion,
        run: found.run,
      };
      if (workflowRunMatches(awaiting, event)) return found;
    }
    return undefined;
  }

  private async headOf(branch: string): Promise<string | undefined> {
    try {
      const { data } = await this.octokit.rest.git.getRef({
        owner: this.owner,
        repo: this.repo,
        ref: `heads/${branch}`,
      });
      return data.object.sha;
    } catch (err) {
      if ((err as RequestErrorLike).status === 404) return undefined;
      throw err;
    }
  }

  /**
   * Create from the base head, or reuse an existing branch only where it holds nothing this run
   * did not put there: every commit beyond the base carries this run's trailer (one compare
   * request). Otherwise GH-CONFLICT, or with `if_exists: new-name` the first free name.
   */
  private async branch(effect: Effect<"branch">): Promise<EffectOutcome<"branch">> {
    const mode = ifExists(effect.params);
    const requested = effect.params.name;
    const base = effect.params.from ?? this.o.defaultBranch;
    for (const name of candidateNames(requested, mode)) {
      let existing = await this.headOf(name);
      if (!existing) {
        const sha = await this.headOf(base);
        if (!sha)
          return {
            ok: false,
            error: playbookError("GH-NOT-FOUND", `base branch '${base}' does not exist`),
          };
        try {
          await this.octokit.rest.git.createRef({
            owner: this.owner,
            repo: this.repo,
            ref: `refs/heads/${name}`,
            sha,
          });
          return { ok: true, outputs: { name, sha, created: true, url: this.treeUrl(name) } };
        } catch (err) {
          // Made meanwhile (a redelivery racing us, or someone else): checked like any existing one.
          if ((err as RequestErrorLike).status !== 422) throw err;
          existing = await this.headOf(name);
          if (!existing) throw err;
        }
      }
      if (mode === "fail") return { ok: false, error: branchExists(name) };
      const { data } = await this.octokit.rest.repos.compareCommitsWithBasehead({
        owner: this.owner,
        repo: this.repo,
        basehead: `${base}...${name}`,
      });
      const beyond = data.commits.map((c) => ({ sha: c.sha, message: c.commit.message }));
      // Without paging GitHub lists at most 250 commits: the rest cannot be checked.
      const unseen = Math.max(0, data.ahead_by - beyond.length);
      const foreign = foreignCommits(beyond, effect.key);
      if (foreign.length === 0 && unseen === 0)
        return {
          ok: true,
          outputs: { name, sha: existing, created: false, url: this.treeUrl(name) },
        };
      if (mode !== "new-name") return { ok: false, error: foreignBranch(name, foreign, unseen) };
    }
    return { ok: false, error: noFreeName(requested) };
  }

  private treeUrl(branch: string): string {
    return `https://github.com/${this.owner}/${this.repo}/tree/${branch}`;
  }

  /** One atomic commit with every file (tree with inline contents, commit, ref update); found again by its trailer. */
  private async commit(effect: Effect<"commit">): Promise<EffectOutcome<"commit">> {
    const branch = effect.params.branch;
    const trailer = runTrailer(effect.key);
    const parent = await this.headOf(branch);
    if (!parent)
      return {
        ok: false,
        error: playbookError("GH-NOT-FOUND", `branch '${branch}' does not exist`),
      };
    const { data: recent } = await this.octokit.rest.repos.listCommits({
      owner: this.owner,
      repo: this.repo,
      sha: branch,
      per_page: 20,
    });
    const found = recent.find((c) =>
      c.commit.message.split("\n").some((line) => line.trim() === trailer),
    );
    if (found)
      return { ok: true, outputs: { sha: found.sha, branch, created: false, url: found.html_url } };
    const files = effect.params.files ?? [];
    if (files.length === 0)
      return {
        ok: false,
        error: playbookError(
          "PB-EFFECT-FAILED",
          "on GitHub a commit needs files: (paths: globs are for local runs)",
        ),
      };
    const { data: parentCommit } = await this.octokit.rest.git.getCommit({
      owner: this.owner,
      repo: this.repo,
      commit_sha: parent,
    });
    const { data: tree } = await this.octokit.rest.git.createTree({
      owner: this.owner,
      repo: this.repo,
      base_tree: parentCommit.tree.sha,
      tree: files.map((f) => ({
        path: f.path,
        mode: "100644" as const,
        type: "blob" as const,
        content: f.content,
      })),
    });
    const { data: commit } = await this.octokit.rest.git.createCommit({
      owner: this.owner,
      repo: this.repo,
      message: `${effect.params.message}\n\n${trailer}`,
      tree: tree.sha,
      parents: [parent],
    });
    await this.octokit.rest.git.updateRef({
      owner: this.owner,
      repo: this.repo,
      ref: `heads/${branch}`,
      sha: commit.sha,
      force: false,
    });
    return { ok: true, outputs: { sha: commit.sha, branch, created: true, url: commit.html_url } };
  }

  /** Create, or reuse the open pull request for the head; labels and reviewers only when created. */
  private async pullRequest(
    effect: Effect<"pull_request">,
    issue: number,
  ): Promise<EffectOutcome<"pull_request">> {
    const p = effect.params;
    const head = p.head;
    const { data: open } = await this.octokit.rest.pulls.list({
      owner: this.owner,
      repo: this.repo,
      head: `${this.owner}:${head}`,
      state: "open",
      per_page: 5,
    });
    const existing = open[0];
    // Only the app's own pull request is the one a retry looks for; another is in the way.
    if (existing && !(await this.authoredPull(existing)))
      return {
        ok: false,
        error: playbookError(
          "GH-CONFLICT",
          `pull request #${existing.number} from '${head}' is open and was not opened by this app: close it, or use another branch; then /retry`,
        ),
      };
    if (existing)
      return {
        ok: true,
        outputs: {
          number: existing.number,
          url: existing.html_url,
          head,
          merged: false,
          created: false,
        },
      };
    const opened = await this.createPull(p, pullRequestMarker(issue, effect.key));
    if ("refused" in opened) return { ok: false, error: opened.refused };
    const pr = opened.pr;
    if (!opened.created)
      return {
        ok: true,
        outputs: { number: pr.number, url: pr.html_url, head, merged: false, created: false },
      };
    const labels = p.labels ?? [];
    if (labels.length)
      await this.octokit.rest.issues.addLabels({
        owner: this.owner,
        repo: this.repo,
        issue_number: pr.number,
        labels,
      });
    const reviewers = p.reviewers ?? [];
    const teams = p.team_reviewers ?? [];
    if (reviewers.length || teams.length)
      await this.octokit.rest.pulls.requestReviewers({
        owner: this.owner,
        repo: this.repo,
        pull_number: pr.number,
        reviewers,
        team_reviewers: teams,
      });
    return {
      ok: true,
      outputs: { number: pr.number, url: pr.html_url, head, merged: false, created: true },
    };
  }

  /**
   * Opens the pull request once: after an uncertain failure the next attempt looks for it by its
   * marker, and a 422 "already exists" adopts the open one of the head when it is this app's.
   */
  private createPull(p: EffectParams<"pull_request">, marker: string): Promise<OpenedPull> {
    const head = p.head;
    const base = p.base ?? this.o.defaultBranch;
    return createOnce<OpenedPull>({
      create: async () => {
        const { data } = await this.octokit.rest.pulls.create({
          owner: this.owner,
          repo: this.repo,
          head,
          base,
          title: p.title,
          body: `${p.body ?? ""}\n\n${marker}`,
          draft: p.draft === true,
          ...SINGLE_ATTEMPT,
        });
        return { pr: data, created: true };
      },
      find: () => this.markedPull(head, marker),
      conflict: async (err) =>
        pullRequestExists(err) ? this.openPullOf(head, base, marker) : undefined,
      ...this.createOptions(),
    });
  }

  /** This app's pull request from `head` carrying the marker, open or not (one listing). */
  private async markedPull(head: string, marker: string): Promise<OpenedPull | undefined> {
    const { data } = await this.octokit.rest.pulls.list({
      owner: this.owner,
      repo: this.repo,
      head: `${this.owner}:${head}`,
      state: "all",
      per_page: 30,
    });
    for (const pr of data)
      if ((pr.body ?? "").includes(marker) && (await this.authoredPull(pr)))
        return { pr, created: true };
    return undefined;
  }

  /**
   * The open pull request a 422 "already exists" names: adopted when this app opened it against
   * the expected base (created by this effect when it carries the marker); refused otherwise.
   */
  private async openPullOf(
    head: string,
    base: string,
    marker: string,
  ): Promise<OpenedPull | undefined> {
    const { data } = await this.octokit.rest.pulls.list({
      owner: this.owner,
      repo: this.repo,
      head: `${this.owner}:${head}`,
      state: "open",
      per_page: 5,
    });
    const pr = data[0];
    if (!pr) return undefined;
    if (!(await this.authoredPull(pr)))
      return {
        refused: playbookError(
          "GH-CONFLICT",
          `pull request #${pr.number} from '${head}' is open and was not opened by this app: close it, or use another branch; then /retry`,
        ),
      };
    if (pr.base.ref !== base)
      return {
        refused: playbookError(
          "GH-CONFLICT",
          `pull request #${pr.number} from '${head}' is open against '${pr.base.ref}', not '${base}': close it, or change the step's base; then /retry`,
        ),
      };
    return { pr, created: (pr.body ?? "").includes(marker) };
  }

  async proposeFiles(
    issue: number,
    key: string,
    p: FileProposal,
  ): Promise<EffectOutcome<"pull_request">> {
    try {
      return await proposeWith(
        {
          branch: (e) => this.branch(e),
          commit: (e) => this.commit(e),
          pullRequest: (e, n) => this.pullRequest(e, n),
        },
        issue,
        key,
        p,
      );
    } catch (err) {
      return {
        ok: false,
        error: githubError(err, `propose ${p.files.map((f) => f.path).join(", ")}`),
      };
    }
  }

  async linkedPullRequests(issue: number, limit: number): Promise<LinkedPullRequest[]> {
    const numbers: number[] = [];
    // The first pages of the timeline: cross-references come as pull requests name the issue.
    for (let page = 1; page <= TIMELINE_PAGES && numbers.length < limit; page++) {
      const { data } = await this.octokit.rest.issues.listEventsForTimeline({
        owner: this.owner,
        repo: this.repo,
        issue_number: issue,
        per_page: 100,
        page,
      });
      for (const e of data as TimelineReference[]) {
        const source = e.event === "cross-referenced" ? e.source?.issue : undefined;
        if (
          source?.pull_request &&
          source.repository?.full_name?.toLowerCase() ===
            `${this.owner}/${this.repo}`.toLowerCase() &&
          !numbers.includes(source.number) &&
          numbers.length < limit
        )
          numbers.push(source.number);
      }
      if (data.length < 100) break;
    }
    const out: LinkedPullRequest[] = [];
    for (const pull_number of numbers) {
      const at = { owner: this.owner, repo: this.repo, pull_number };
      const { data: pr } = await this.octokit.rest.pulls.get(at);
      const { data: files } = await this.octokit.rest.pulls.listFiles({ ...at, per_page: 100 });
      const { data: reviews } = await this.octokit.rest.pulls.listReviews({ ...at, per_page: 100 });
      const approvedBy = [
        ...new Set(
          reviews
            .filter((r) => r.state === "APPROVED")
            .flatMap((r) => (r.user ? [r.user.login] : [])),
        ),
      ];
      out.push({
        number: pr.number,
        title: pr.title,
        branch: pr.head.ref,
        base: pr.base.ref,
        merged: pr.merged === true || pr.merged_at != null,
        files: files.map((f) => f.filename),
        ...(approvedBy.length > 0 ? { approvedBy } : {}),
      });
    }
    return out;
  }

  async issuesLabelled(
    labels: readonly string[],
    limit: number,
  ): Promise<{ number: number; labels: string[]; comments: number }[]> {
    const { data } = await this.octokit.rest.issues.listForRepo({
      owner: this.owner,
      repo: this.repo,
      labels: labels.join(","),
      state: "all",
      sort: "updated",
      direction: "desc",
      per_page: Math.min(100, limit),
    });
    return data
      .filter((i) => !i.pull_request)
      .map((i) => ({
        number: i.number,
        labels: i.labels.map((l) => (typeof l === "string" ? l : (l.name ?? ""))),
        comments: i.comments,
      }));
  }

  /** Look for the issue's hidden marker among recent issues before creating (the search index lags). */
  private async issue(effect: Effect<"issue">): Promise<EffectOutcome<"issue">> {
    const p = effect.params;
    const marker = issueMarker(effect.key);
    const found = await this.markedIssue(marker);
    if (found)
      return { ok: true, outputs: { number: found.number, url: found.html_url, created: false } };
    const data = await createOnce({
      create: async () =>
        (
          await this.octokit.rest.issues.create({
            owner: this.owner,
            repo: this.repo,
            title: p.title,
            body: `${p.body ?? ""}\n\n${marker}`,
            labels: p.labels ?? [],
            assignees: p.assignees ?? [],
            ...SINGLE_ATTEMPT,
          })
        ).data,
      find: () => this.markedIssue(marker),
      ...this.createOptions(),
    });
    return { ok: true, outputs: { number: data.number, url: data.html_url, created: true } };
  }

  /** This app's issue carrying a marker, among the 100 newest of the repository. */
  private async markedIssue(
    marker: string,
  ): Promise<{ number: number; html_url: string } | undefined> {
    const { data: recent } = await this.octokit.rest.issues.listForRepo({
      owner: this.owner,
      repo: this.repo,
      state: "all",
      sort: "created",
      direction: "desc",
      per_page: 100,
    });
    for (const i of recent)
      if ((i.body ?? "").includes(marker) && (await this.authored(i as Authored))) return i;
    return undefined;
  }

  private async label(effect: Effect<"label">, issue: number): Promise<EffectOutcome<"label">> {
    const p = effect.params;
    const target = p.issue ? Number(p.issue) : issue;
    const add = p.add ?? [];
    let labels: string[] = [];
    if (add.length) {
      const { data } = await this.octokit.rest.issues.addLabels({
        owner: this.owner,
        repo: this.repo,
        issue_number: target,
        labels: add,
      });
      labels = data.map((l) => l.name);
    }
    for (const name of p.remove ?? []) {
      try {
        const { data } = await this.octokit.rest.issues.removeLabel({
          owner: this.owner,
          repo: this.repo,
          issue_number: target,
          name,
        });
        labels = data.map((l) => l.name);
      } catch (err) {
        if ((err as RequestErrorLike).status !== 404) throw err; // already gone is fine
      }
    }
    return { ok: true, outputs: { labels } };
  }

  private async close(effect: Effect<"close">, issue: number): Promise<EffectOutcome<"close">> {
    const p = effect.params;
    const target = p.issue ? Number(p.issue) : issue;
    const { data: current } = await this.octokit.rest.issues.get({
      owner: this.owner,
      repo: this.repo,
      issue_number: target,
    });
    if (current.state === "closed") return { ok: true, outputs: { state: "closed" } };
    if (p.comment) await this.postComment(target, p.comment);
    await this.octokit.rest.issues.update({
      owner: this.owner,
      repo: this.repo,
      issue_number: target,
      state: "closed",
      state_reason: p.reason === "not_planned" ? "not_planned" : "completed",
    });
    return { ok: true, outputs: { state: "closed" } };
  }

  /**
   * workflow_dispatch has no idempotency key: a dispatch lost between the request and the saved
   * state can happen twice. GitHub returns the run's id when asked (`return_run_details`); then
   * only that run ends the wait. Where it answers 204 without a body (a server without the
   * option), the outputs carry what else tells the run: this repository, the ref, GitHub's time
   * of the request (its `date` header), the app's login and the correlation value, which the
   * step's `correlation_input` receives. A dispatch answered with a 5xx or not at all may have
   * started the workflow: before dispatching again, the workflow's recent runs are looked at
   * (`dispatchedRun`) and one this dispatch started is adopted.
   */
  private async dispatch(
    effect: Effect<"dispatch">,
    stepSince: string | undefined,
  ): Promise<EffectOutcome<"dispatch">> {
    const p = effect.params;
    const workflow = p.workflow;
    const ref = p.ref ?? this.o.defaultBranch;
    const inputs: Record<string, string> = Object.fromEntries(
      Object.entries(p.inputs ?? {}).map(([k, v]) => [k, String(v)]),
    );
    const correlationInput = p.correlation_input || undefined;
    const correlation = correlationInput ? dispatchCorrelation(effect.key) : undefined;
    if (correlationInput && correlation) inputs[correlationInput] = correlation;
    const request = {
      owner: this.owner,
      repo: this.repo,
      workflow_id: workflow,
      ref,
      inputs,
      ...SINGLE_ATTEMPT,
    };
    const route = "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches";
    // The step began (by the app's clock) before any attempt of its dispatch.
    const since =
      stepSince && !Number.isNaN(Date.parse(stepSince)) ? stepSince : new Date().toISOString();
    const response: { status: number; headers: Record<string, unknown>; data: unknown } =
      await createOnce({
        create: async () => {
          try {
            return await this.octokit.request(route, { ...request, return_run_details: true });
          } catch (err) {
            // A server that does not know the option refuses it: dispatch without it.
            const status = (err as RequestErrorLike).status;
            if ((status !== 400 && status !== 422) || !/return_run_details/.test(String(err)))
              throw err;
            return await this.octokit.request(route, request);
          }
        },
        find: () => this.dispatchedRun(workflow, ref, since, correlation),
        ...this.createOptions(),
      });
    const details = (response.status === 200 ? response.data : undefined) as
      { workflow_run_id?: unknown; html_url?: unknown } | undefined;
    const runId = details?.workflow_run_id;
    if (typeof runId === "number" && Number.isSafeInteger(runId) && runId > 0)
      return {
        ok: true,
        outputs: {
          run_id: runId,
          url:
            typeof details?.html_url === "string"
              ? details.html_url
              : `https://github.com/${this.owner}/${this.repo}/actions/runs/${runId}`,
        },
      };
    const date = Date.parse(String(response.headers.date ?? ""));
    const outputs: DispatchOutputs = {
      url: `https://github.com/${this.owner}/${this.repo}/actions/workflows/${workflow}`,
      repository: `${this.owner}/${this.repo}`,
      ref: dispatchedRef(ref),
      // GitHub's clock; the app's only when GitHub sent no date.
      dispatched_at: new Date(Number.isNaN(date) ? Date.now() : date).toISOString(),
    };
    if (this.o.botLogin) outputs.actor = this.o.botLogin;
    if (correlation) outputs.correlation = correlation;
    return { ok: true, outputs };
  }

  /**
   * A run of the workflow that an earlier attempt of this dispatch started, as the dispatch would
   * have answered it (200 with its id), or undefined: a `workflow_dispatch` run of the workflow's
   * file on the ref, created since the step began (less the clock's slack), by the app, with
   * the correlation value in its title when the step has one — the facts a wait matches by.
   */
  private async dispatchedRun(
    workflow: string,
    ref: string,
    since: string,
    correlation: string | undefined,
  ): Promise<{ status: number; headers: Record<string, unknown>; data: unknown } | undefined> {
    const dispatched = {
      repository: `${this.owner}/${this.repo}`,
      ref: dispatchedRef(ref),
      at: since,
      ...(this.o.botLogin ? { actor: this.o.botLogin } : {}),
      ...(correlation ? { correlation } : {}),
    };
    const from = new Date(Date.parse(since) - DISPATCH_CLOCK_SLACK_MS);
    const { data } = await this.octokit.rest.actions.listWorkflowRuns({
      owner: this.owner,
      repo: this.repo,
      workflow_id: workflow,
      event: "workflow_dispatch",
      branch: dispatched.ref,
      created: `>=${from.toISOString().slice(0, 19)}Z`,
      per_page: 20,
    });
    const found = (data.workflow_runs as RawWorkflowRun[]).find((raw) =>
      workflowRunMatches(
        { workflow, dispatched },
        {
          type: "workflow_run",
          id: "",
          workflow,
          runId: raw.id,
          conclusion: "",
          run: workflowRunFacts(raw),
        },
      ),
    );
    if (!found) return undefined;
    return {
      status: 200,
      headers: {},
      data: { workflow_run_id: found.id, ...(found.html_url ? { html_url: found.html_url } : {}) },
    };
  }

  /**
   * The AI adapter's answer; the files the step expects must then be on the default branch (an
   * ai step names no branch of its own).
   */
  private async ai(effect: Effect<"ai">): Promise<EffectOutcome<"ai">> {
    const tools = this.o.tools;
    const answered = await performAiEffect(this.o.ai, effect.params, undefined, {
      ...(tools ? { tools } : {}),
    });
    if (!answered.ok) return answered;
    return checkExpectedFiles(answered.outputs, effect.params, {
      where: `on branch ${this.o.defaultBranch}`,
      missing: (paths) => this.missingFiles(this.o.defaultBranch, paths),
    });
  }

  /** Which of `paths` are not files on `branch`: one listing of its tree, and a look at each path it leaves out. */
  private async missingFiles(branch: string, paths: readonly string[]): Promise<string[]> {
    const head = await this.headOf(branch);
    if (!head) return [...paths];
    const { data } = await this.octokit.rest.git.getTree({
      owner: this.owner,
      repo: this.repo,
      tree_sha: head,
      recursive: "1",
    });
    const files = new Set(data.tree.filter((e) => e.type === "blob").map((e) => e.path));
    const unlisted = paths.filter((p) => !files.has(p));
    // A truncated listing (a very large tree) leaves files out: ask for those one by one.
    if (!data.truncated) return unlisted;
    const missing: string[] = [];
    for (const path of unlisted) if (!(await this.isFile(path, head))) missing.push(path);
    return missing;
  }

  private async isFile(path: string, ref: string): Promise<boolean> {
    try {
      const { data } = await this.octokit.rest.repos.getContent({
        owner: this.owner,
        repo: this.repo,
        path,
        ref,
      });
      return !Array.isArray(data) && data.type === "file";
    } catch (err) {
      if ((err as RequestErrorLike).status === 404) return false;
      throw err;
    }
  }

  /**
   * A comment step's comment carries its key. Its id is in the step's outputs once saved; only an
   * effect that may have happened before (its result not saved) is looked for, among the comments
   * changed since the step asked for it (the `since` filter), never in the whole thread.
   */
  private async commentEffect(
    effect: Effect<"comment">,
    runIssue: number,
    run: RunState,
  ): Promise<EffectOutcome<"comment">> {
    const p = effect.params;
    const issue = p.issue ? Number(p.issue) : runIssue;
    const marker = issueMarker(effect.key);
    const since = activeFrame(run).since;
    if (p.reply_to) return this.reviewReply(effect, issue, Number(p.reply_to), marker, since);
    const existing = this.repeated.has(effect.key)
      ? (await this.commentsSince(issue, since)).find((c) => c.byThisApp && c.body.includes(marker))
      : undefined;
    const id = existing?.id ?? (await this.postComment(issue, `${p.body}\n\n${marker}`, marker)).id;
    return {
      ok: true,
      outputs: {
        id,
        url: `https://github.com/${this.owner}/${this.repo}/issues/${issue}#issuecomment-${id}`,
      },
    };
  }

  /** A reply in a pull request's review thread; found again by its key, like a comment. */
  private async reviewReply(
    effect: Effect<"comment">,
    pull: number,
    replyTo: number,
    marker: string,
    since: string,
  ): Promise<EffectOutcome<"comment">> {
    const repo = { owner: this.owner, repo: this.repo, pull_number: pull };
    let found: { id: number; html_url: string } | undefined;
    if (this.repeated.has(effect.key)) {
      const from = Date.parse(since);
      const all = (await this.octokit.paginate(this.octokit.rest.pulls.listReviewComments, {
        ...repo,
        per_page: 100,
        ...(Number.isNaN(from) ? {} : { since: new Date(from - CLOCK_SLACK_MS).toISOString() }),
      })) as (RestComment & { html_url: string })[];
      found = all.find((c) => this.view(c).byThisApp && (c.body ?? "").includes(marker));
    }
    found ??= await createOnce<{ id: number; html_url: string }>({
      create: async () =>
        (
          await this.octokit.rest.pulls.createReplyForReviewComment({
            ...repo,
            comment_id: replyTo,
            body: `${effect.params.body}\n\n${marker}`,
            ...SINGLE_ATTEMPT,
          })
        ).data,
      find: () => this.newestReviewComment(pull, marker),
      ...this.createOptions(),
    });
    return { ok: true, outputs: { id: String(found.id), url: found.html_url } };
  }

  /** This app's review comment carrying a marker, among the pull request's 100 newest. */
  private async newestReviewComment(
    pull: number,
    marker: string,
  ): Promise<{ id: number; html_url: string } | undefined> {
    const { data } = await this.octokit.rest.pulls.listReviewComments({
      owner: this.owner,
      repo: this.repo,
      pull_number: pull,
      sort: "created",
      direction: "desc",
      per_page: 100,
    });
    for (const c of data)
      if ((c.body ?? "").includes(marker) && (await this.authored(c as Authored))) return c;
    return undefined;
  }
}

/** A pull request this effect opened or adopted, or why one in the way is not adopted. */
type OpenedPull =
  { pr: { number: number; html_url: string }; created: boolean } | { refused: PlaybookError };

/** Timeline pages read for an issue's cross-references (100 events each). */
const TIMELINE_PAGES = 3;

/** The part of a timeline event a cross-reference is read from. */
interface TimelineReference {
  event?: string;
  source?: {
    issue?: {
      number: number;
      pull_request?: unknown;
      repository?: { full_name?: string };
    };
  };
}
