import { playbookError, type PlaybookError } from "../../core/engine/errors.js";
import type { Effect } from "../../core/engine/events.js";
import type { Frame, RunState } from "../../core/engine/state.js";
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
import { checkExpectedFiles } from "../../runtime/ai.js";
import type { Permission } from "../../core/format/types.js";
import {
  hasStateBlock,
  proposeWith,
  type CompletedWorkflowRun,
  type FileProposal,
  type GitHubPort,
  type LinkedPullRequest,
  type Reaction,
  type ThreadComment,
} from "../../runtime/github-port.js";
import { dispatchCorrelation } from "../github/workflow-runs.js";
import { NO_TOOLS, performToolCalls, type ToolRunner } from "../../runtime/tool-calls.js";

export interface MemoryIssue {
  number: number;
  title: string;
  body: string;
  author: string;
  labels: string[];
  state: "open" | "closed";
  stateReason?: string;
}

export interface MemoryPullRequest {
  number: number;
  title: string;
  body: string;
  head: string;
  base: string;
  draft: boolean;
  labels: string[];
  state: "open" | "closed";
  merged: boolean;
  /** Who opened it: the app's login for pull requests it created. */
  author?: string;
  /** When it was opened, and merged (ISO 8601). */
  createdAt?: string;
  mergedAt?: string;
  /** Who approved it in a review. */
  approvedBy?: string[];
}

/** One line of the thread's history, for transcripts. */
export type ThreadEntry =
  | { kind: "comment"; id: string }
  | { kind: "label"; actor: string; label: string; added: boolean }
  | { kind: "event"; text: string };

/**
 * An in-memory GitHub repository: issues with comments and reactions, branches and commits,
 * pull requests, labels and workflow runs. It implements the same port as the Octokit adapter,
 * so the issue controller runs against it unchanged (simulate, tests).
 */
type StoredComment = ThreadComment & { issue: number; reactions: Reaction[]; edits: number };

function issueNotFound(issue: unknown): { ok: false; error: PlaybookError } {
  return { ok: false, error: playbookError("GH-NOT-FOUND", `issue #${String(issue)} not found`) };
}

function publicView(c: StoredComment): ThreadComment {
  return {
    id: c.id,
    author: c.author,
    bot: c.bot,
    byThisApp: c.byThisApp,
    body: c.body,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt ?? c.createdAt,
    issue: c.issue,
  };
}

export class MemoryGitHub implements GitHubPort {
  readonly issues = new Map<number, MemoryIssue>();
  readonly pulls = new Map<number, MemoryPullRequest>();
  readonly branches = new Map<string, string[]>([["main", ["c0"]]]);
  readonly commits = new Map<string, { message: string; files: Record<string, string> }>([
    ["c0", { message: "Initial commit", files: {} }],
  ]);
  readonly comments_ = new Map<
    string,
    ThreadComment & { issue: number; reactions: Reaction[]; edits: number }
  >();
  readonly thread = new Map<number, ThreadEntry[]>();
  readonly dispatched: {
    key: string;
    workflow: string;
    ref: string;
    inputs: Record<string, unknown>;
    runId: number;
  }[] = [];
  /** Replies posted in pull request review threads. */
  readonly reviewReplies: { pull: number; replyTo: number; body: string }[] = [];
  readonly permissions = new Map<string, Permission>();
  readonly teamMembers = new Map<string, string[]>();
  /** Requests made, by kind: what a benchmark or test counts. */
  readonly calls: string[] = [];
  /** Comments made by `comment` effects, by effect key (the Octokit adapter finds them by a marker). */
  private readonly effectComments = new Map<string, string>();
  private nextNumber = 1;
  private nextComment = 1;
  private nextSha = 1;

  /** The tools investigate steps call (a simulation may give canned results). */
  tools: ToolRunner = NO_TOOLS;
  /** What the AI answers, by step id (a simulation may give them); others get a placeholder. */
  aiAnswers: Record<string, string> = {};

  constructor(
    readonly appLogin = "playbook-bot[bot]",
    private readonly clock: () => Date = () => new Date(),
  ) {}

  private entries(issue: number): ThreadEntry[] {
    let t = this.thread.get(issue);
    if (!t) {
      t = [];
      this.thread.set(issue, t);
    }
    return t;
  }

  openIssue(title: string, body: string, author: string, labels: string[] = []): MemoryIssue {
    const issue: MemoryIssue = {
      number: this.nextNumber++,
      title,
      body,
      author,
      labels: [...labels],
      state: "open",
    };
    this.issues.set(issue.number, issue);
    this.entries(issue.number);
    return issue;
  }

  addLabel(issue: number, label: string, actor: string): void {
    const i = this.issues.get(issue);
    if (i && !i.labels.includes(label)) i.labels.push(label);
    this.entries(issue).push({ kind: "label", actor, label, added: true });
  }

  note(issue: number, text: string): void {
    this.entries(issue).push({ kind: "event", text });
  }

  /** A person (or another bot) writes a comment. */
  postAs(issue: number, author: string, body: string, bot = false): ThreadComment {
    return this.addComment(issue, author, body, bot, false);
  }

  private addComment(
    issue: number,
    author: string,
    body: string,
    bot: boolean,
    byThisApp: boolean,
  ): StoredComment {
    const c: StoredComment = {
      id: String(this.nextComment++),
      author,
      bot,
      byThisApp,
      body,
      createdAt: this.clock().toISOString(),
      issue,
      reactions: [],
      edits: 0,
    };
    this.comments_.set(c.id, c);
    this.entries(issue).push({ kind: "comment", id: c.id });
    return c;
  }

  editAs(id: string, body: string): void {
    const c = this.comments_.get(id);
    if (c) {
      c.body = body;
      c.edits++;
      c.updatedAt = this.editTime(c);
    }
  }

  deleteComment(id: string): void {
    const c = this.comments_.get(id);
    if (c) c.body = "";
    this.comments_.delete(id);
  }

  async permission(login: string): Promise<Permission | undefined> {
    this.calls.push("permission");
    return this.permissions.get(login.toLowerCase());
  }

  async teams(login: string, candidates: readonly string[]): Promise<string[]> {
    this.calls.push("teams");
    return candidates.filter((t) =>
      (this.teamMembers.get(t.toLowerCase()) ?? []).includes(login.toLowerCase()),
    );
  }

  async comments(issue: number): Promise<ThreadComment[]> {
    this.calls.push("list comments");
    return [...this.comments_.values()].filter((c) => c.issue === issue).map(publicView);
  }

  async issuesLabelled(
    labels: readonly string[],
    limit: number,
  ): Promise<{ number: number; labels: string[]; comments: number }[]> {
    this.calls.push("list issues");
    return [...this.issues.values()]
      .filter((i) => labels.every((l) => i.labels.includes(l)))
      .reverse()
      .slice(0, limit)
      .map((i) => ({
        number: i.number,
        labels: [...i.labels],
        comments: [...this.comments_.values()].filter((c) => c.issue === i.number).length,
      }));
  }

  async statusComments(issue: number): Promise<ThreadComment[]> {
    this.calls.push("list comments");
    return [...this.comments_.values()]
      .filter((c) => c.issue === issue && c.byThisApp && hasStateBlock(c.body))
      .map(publicView);
  }

  /** Workflow runs that ended, by run id (set by `finishWorkflow`). */
  readonly workflowResults = new Map<number, string>();

  finishWorkflow(runId: number, conclusion: string): void {
    this.workflowResults.set(runId, conclusion);
  }

  /**
   * The awaited run once finished. This GitHub returns every dispatched run's id (as GitHub does
   * when asked for the run's details), so a wait is matched by that id and nothing else.
   */
  async completedWorkflowRun(
    awaiting: NonNullable<Frame["awaiting"]>,
  ): Promise<CompletedWorkflowRun | undefined> {
    this.calls.push("get workflow run");
    const d = this.dispatched.find((x) => x.runId === awaiting.workflowRun);
    const conclusion = d ? this.workflowResults.get(d.runId) : undefined;
    if (!d || conclusion === undefined) return undefined;
    return {
      id: d.runId,
      conclusion,
      url: `https://github.test/actions/runs/${d.runId}`,
      run: {
        event: "workflow_dispatch",
        path: `.github/workflows/${d.workflow}`,
        workflowId: 0,
        headBranch: d.ref,
        createdAt: "",
        actor: this.appLogin,
        triggeringActor: this.appLogin,
        repository: "",
        repositoryId: 0,
        headRepositoryId: 0,
      },
    };
  }

  async pullRequestState(
    number: number,
  ): Promise<{ state: "open" | "closed"; merged: boolean; url: string }> {
    this.calls.push("get pull request");
    const pr = this.pulls.get(number);
    if (!pr) throw new Error(`pull request ${number} not found`);
    return { state: pr.state, merged: pr.merged, url: `https://github.test/pull/${number}` };
  }

  async comment(issue: number, id: string): Promise<ThreadComment | undefined> {
    this.calls.push("get comment");
    const c = this.comments_.get(id);
    if (!c || c.issue !== issue) return undefined;
    return publicView(c);
  }

  async createComment(issue: number, body: string): Promise<ThreadComment> {
    this.calls.push("create comment");
    const c = this.addComment(issue, this.appLogin, body, true, true);
    return publicView(c);
  }

  async createStatusComment(issue: number, body: string): Promise<ThreadComment> {
    return this.createComment(issue, body);
  }

  async updateComment(_issue: number, id: string, body: string): Promise<void> {
    this.calls.push("update comment");
    const c = this.comments_.get(id);
    if (!c) throw new Error(`comment ${id} not found`);
    c.body = body;
    c.edits++;
    c.updatedAt = this.editTime(c);
  }

  /** When an edit happens: now, but never at the creation's instant (a clock held still in tests). */
  private editTime(c: StoredComment): string {
    const now = this.clock().getTime();
    return new Date(Math.max(now, Date.parse(c.createdAt) + 1000)).toISOString();
  }

  async react(_issue: number, commentId: string, reaction: Reaction): Promise<void> {
    this.calls.push("reaction");
    const c = this.comments_.get(commentId);
    if (c && !c.reactions.includes(reaction)) c.reactions.push(reaction);
  }

  reactionsOf(id: string): Reaction[] {
    return this.comments_.get(id)?.reactions ?? [];
  }

  editsOf(id: string): number {
    return this.comments_.get(id)?.edits ?? 0;
  }

  private sha(): string {
    return `sha${String(this.nextSha++).padStart(4, "0")}`;
  }

  /** Merge or close a pull request, as a person would. */
  closePull(number: number, merged: boolean): MemoryPullRequest | undefined {
    const pr = this.pulls.get(number);
    if (!pr) return undefined;
    pr.state = "closed";
    pr.merged = merged;
    if (merged) {
      pr.mergedAt = this.clock().toISOString();
      const head = this.branches.get(pr.head) ?? [];
      const base = this.branches.get(pr.base) ?? [];
      this.branches.set(pr.base, [...base, ...head.filter((c) => !base.includes(c))]);
    }
    return pr;
  }

  /** A person pushes a commit of `files` to `branch` (made from main when it does not exist). */
  pushAs(branch: string, message: string, files: Record<string, string>): string {
    const commits = this.branches.get(branch) ?? [...(this.branches.get("main") ?? [])];
    const sha = this.sha();
    this.commits.set(sha, { message, files: { ...files } });
    this.branches.set(branch, [...commits, sha]);
    return sha;
  }

  /** A person opens a pull request from `head` into main; naming `#n` links it to issue n. */
  openPullAs(author: string, head: string, title: string, body = ""): MemoryPullRequest {
    const pr: MemoryPullRequest = {
      number: this.nextNumber++,
      title,
      body,
      head,
      base: "main",
      draft: false,
      labels: [],
      state: "open",
      merged: false,
      author,
      createdAt: this.clock().toISOString(),
    };
    this.pulls.set(pr.number, pr);
    for (const n of linkedIssues(`${title}\n${body}`))
      if (this.issues.has(n)) this.note(n, `#${pr.number} "${title}" mentioned this issue`);
    return pr;
  }

  /** A file as it stands at the tip of a branch, or undefined. */
  fileAt(branch: string, path: string): string | undefined {
    for (const sha of [...(this.branches.get(branch) ?? [])].reverse()) {
      const files = this.commits.get(sha)?.files ?? {};
      if (Object.hasOwn(files, path)) return files[path];
    }
    return undefined;
  }

  /** Pull requests that name the issue (`#n` in their title or description), as GitHub links them. */
  async linkedPullRequests(issue: number, limit: number): Promise<LinkedPullRequest[]> {
    this.calls.push("list timeline");
    return [...this.pulls.values()]
      .filter(
        (pr) =>
          pr.author !== this.appLogin && linkedIssues(`${pr.title}\n${pr.body}`).includes(issue),
      )
      .slice(0, limit)
      .map((pr) => {
        const base = new Set(this.branches.get(pr.base) ?? []);
        const files = new Set<string>();
        for (const sha of this.branches.get(pr.head) ?? [])
          if (!base.has(sha) || pr.merged)
            for (const f of Object.keys(this.commits.get(sha)?.files ?? {})) files.add(f);
        const out: LinkedPullRequest = {
          number: pr.number,
          title: pr.title,
          branch: pr.head,
          base: pr.base,
          merged: pr.merged,
          files: [...files],
          approvedBy: [...(pr.approvedBy ?? [])],
        };
        const at = pr.mergedAt ?? pr.createdAt;
        if (at !== undefined) out.at = at;
        return out;
      });
  }

  /** Files proposed in a pull request of the app's, through the same effects a run uses. */
  async proposeFiles(
    issue: number,
    key: string,
    proposal: FileProposal,
  ): Promise<EffectOutcome<"pull_request">> {
    this.calls.push("propose files");
    return proposeWith(
      {
        branch: async (e) => this.branch(e),
        commit: async (e) => this.commit(e),
        pullRequest: async (e, n) => this.pullRequest(e, n),
      },
      issue,
      key,
      proposal,
    );
  }

  /** The effects, by kind: what GitHub would do, in memory. */
  readonly handlers: EffectHandlers = {
    branch: async (effect) => this.branch(effect),
    commit: async (effect) => this.commit(effect),
    pull_request: async (effect, run) => this.pullRequest(effect, runIssue(run)),
    issue: async (effect, run) => this.issue(effect, runIssue(run)),
    label: async (effect, run) => this.label(effect, runIssue(run)),
    close: (effect, run) => this.close(effect, runIssue(run)),
    dispatch: async (effect, run) => this.dispatch(effect, runIssue(run)),
    comment: (effect, run) => this.commentEffect(effect, runIssue(run)),
    ai: (effect) => this.ai(effect),
    start_playbook: async () => ({ ok: true, outputs: {} }),
    // Canned results where a simulation gives them; otherwise no tool is configured.
    tool_call: async (effect) => ({
      ok: true,
      outputs: await performToolCalls(this.tools, effect.params),
    }),
    // Simulated, like the AI: a golden case or a simulation scripts a failure with fail_effect.
    script: async (effect) => ({
      ok: true,
      outputs: { exit_code: 0, stdout: `(simulated ${effect.params.shell} script)`, stderr: "" },
    }),
  };

  async perform(effect: Effect, run: RunState): Promise<EffectOutcome> {
    this.calls.push(`effect ${effect.kind}`);
    return performWith(this.handlers, effect, run);
  }

  /** Like the GitHub adapter: reuse a branch only where it holds nothing but this run's commits. */
  private branch(effect: Effect<"branch">): EffectOutcome<"branch"> {
    const p = effect.params;
    const mode = ifExists(p);
    const from = this.branches.get(p.from ?? "main") ?? [];
    for (const name of candidateNames(p.name, mode)) {
      const existing = this.branches.get(name);
      if (!existing) {
        this.branches.set(name, [...from]);
        return {
          ok: true,
          outputs: { name, sha: from[from.length - 1] ?? "", created: true, url: treeUrl(name) },
        };
      }
      if (mode === "fail") return { ok: false, error: branchExists(name) };
      const beyond = existing
        .filter((sha) => !from.includes(sha))
        .map((sha) => ({ sha, message: this.commits.get(sha)?.message ?? "" }));
      const foreign = foreignCommits(beyond, effect.key);
      if (foreign.length === 0)
        return {
          ok: true,
          outputs: {
            name,
            sha: existing[existing.length - 1] ?? "",
            created: false,
            url: treeUrl(name),
          },
        };
      if (mode !== "new-name") return { ok: false, error: foreignBranch(name, foreign) };
    }
    return { ok: false, error: noFreeName(p.name) };
  }

  private commit(effect: Effect<"commit">): EffectOutcome<"commit"> {
    const p = effect.params;
    const branch = p.branch;
    const commits = this.branches.get(branch);
    if (!commits)
      return {
        ok: false,
        error: playbookError("GH-NOT-FOUND", `branch '${branch}' does not exist`),
      };
    const trailer = runTrailer(effect.key);
    const found = commits.find((c) =>
      this.commits
        .get(c)
        ?.message.split("\n")
        .some((line) => line.trim() === trailer),
    );
    if (found)
      return { ok: true, outputs: { sha: found, branch, created: false, url: commitUrl(found) } };
    const files: Record<string, string> = {};
    for (const f of p.files ?? []) files[f.path] = f.content;
    const sha = this.sha();
    this.commits.set(sha, { message: `${p.message}\n\n${trailer}`, files });
    commits.push(sha);
    return { ok: true, outputs: { sha, branch, created: true, url: commitUrl(sha) } };
  }

  private pullRequest(
    effect: Effect<"pull_request">,
    issueNumber: number,
  ): EffectOutcome<"pull_request"> {
    const p = effect.params;
    const head = p.head;
    const open = [...this.pulls.values()].find((pr) => pr.head === head && pr.state === "open");
    if (open && open.author !== this.appLogin)
      return {
        ok: false,
        error: playbookError(
          "GH-CONFLICT",
          `pull request #${open.number} from '${head}' is open and was not opened by this app: close it, or use another branch`,
        ),
      };
    const pr: MemoryPullRequest = open ?? {
      number: this.nextNumber++,
      title: p.title,
      body: p.body ?? "",
      head,
      base: p.base ?? "main",
      draft: p.draft === true,
      labels: p.labels ?? [],
      state: "open",
      merged: false,
      author: this.appLogin,
      createdAt: this.clock().toISOString(),
    };
    if (!open) {
      this.pulls.set(pr.number, pr);
      this.note(issueNumber, `pull request #${pr.number} "${pr.title}" opened from ${pr.head}`);
    }
    return {
      ok: true,
      outputs: {
        number: pr.number,
        url: `https://github.test/pull/${pr.number}`,
        head,
        merged: false,
      },
    };
  }

  private issue(effect: Effect<"issue">, issueNumber: number): EffectOutcome<"issue"> {
    const p = effect.params;
    const marker = issueMarker(effect.key);
    // Only the app's own issues: anyone can write the marker into an issue of theirs.
    const existing = [...this.issues.values()].find(
      (i) => i.author === this.appLogin && i.body.includes(marker),
    );
    const issue =
      existing ??
      this.openIssue(p.title, `${p.body ?? ""}\n\n${marker}`, this.appLogin, p.labels ?? []);
    if (!existing) this.note(issueNumber, `issue #${issue.number} "${issue.title}" opened`);
    return {
      ok: true,
      outputs: { number: issue.number, url: `https://github.test/issues/${issue.number}` },
    };
  }

  private label(effect: Effect<"label">, issueNumber: number): EffectOutcome<"label"> {
    const p = effect.params;
    const target = this.issues.get(p.issue ? Number(p.issue) : issueNumber);
    if (!target) return issueNotFound(p.issue ?? issueNumber);
    for (const l of p.add ?? []) if (!target.labels.includes(l)) target.labels.push(l);
    const remove = p.remove ?? [];
    target.labels = target.labels.filter((l) => !remove.includes(l));
    this.note(issueNumber, `labels of #${target.number}: ${target.labels.join(", ") || "(none)"}`);
    return { ok: true, outputs: { labels: [...target.labels] } };
  }

  private async close(
    effect: Effect<"close">,
    issueNumber: number,
  ): Promise<EffectOutcome<"close">> {
    const p = effect.params;
    const target = this.issues.get(p.issue ? Number(p.issue) : issueNumber);
    if (!target) return issueNotFound(p.issue ?? issueNumber);
    if (p.comment && target.state === "open") await this.createComment(target.number, p.comment);
    if (target.state === "open")
      this.note(target.number, `issue #${target.number} closed as ${String(p.reason)}`);
    target.state = "closed";
    target.stateReason = String(p.reason);
    return { ok: true, outputs: { state: "closed" } };
  }

  private dispatch(effect: Effect<"dispatch">, issueNumber: number): EffectOutcome<"dispatch"> {
    const p = effect.params;
    const found = this.dispatched.find((d) => d.key === effect.key);
    const inputs: Record<string, unknown> = { ...p.inputs };
    if (p.correlation_input) inputs[p.correlation_input] = dispatchCorrelation(effect.key);
    const d = found ?? {
      key: effect.key,
      workflow: p.workflow,
      ref: p.ref ?? "main",
      inputs,
      runId: 1000 + this.dispatched.length,
    };
    if (!found) {
      this.dispatched.push(d);
      this.note(issueNumber, `workflow ${d.workflow} started (run ${d.runId})`);
    }
    return {
      ok: true,
      outputs: { run_id: d.runId, url: `https://github.test/actions/runs/${d.runId}` },
    };
  }

  private async commentEffect(
    effect: Effect<"comment">,
    runIssue: number,
  ): Promise<EffectOutcome<"comment">> {
    const p = effect.params;
    const issueNumber = p.issue ? Number(p.issue) : runIssue;
    const earlier = this.comments_.get(this.effectComments.get(effect.key) ?? "");
    let c = earlier?.issue === issueNumber ? publicView(earlier) : undefined;
    if (!c) {
      if (p.reply_to) {
        // A review-thread reply: kept on the pull request's thread, marked as the reply it is.
        this.reviewReplies.push({ pull: issueNumber, replyTo: Number(p.reply_to), body: p.body });
        this.note(runIssue, `replied to review comment ${p.reply_to} on #${issueNumber}`);
      }
      c = await this.createComment(issueNumber, p.body);
    }
    this.effectComments.set(effect.key, c.id);
    return {
      ok: true,
      outputs: { id: c.id, url: `https://github.test/issues/${issueNumber}#comment-${c.id}` },
    };
  }

  /** A simulated answer; the files the step expects must then be on main, as on GitHub. */
  private ai(effect: Effect<"ai">): Promise<EffectOutcome<"ai">> {
    const text = Object.hasOwn(this.aiAnswers, effect.step)
      ? (this.aiAnswers[effect.step] as string)
      : `(simulated AI answer to: ${effect.params.prompt.split("\n")[0]?.slice(0, 60)})`;
    return checkExpectedFiles({ text }, effect.params, {
      where: "on branch main",
      missing: async (paths) => {
        const files = new Set(
          (this.branches.get("main") ?? []).flatMap((sha) =>
            Object.keys(this.commits.get(sha)?.files ?? {}),
          ),
        );
        return paths.filter((path) => !files.has(path));
      },
    });
  }
}

/** The issue numbers a text names as `#n` (as GitHub cross-references them). */
function linkedIssues(text: string): number[] {
  return [...text.matchAll(/(?<![\w/])#(\d{1,9})\b/g)].map((m) => Number(m[1]));
}

/** Where this GitHub shows a branch and a commit (the forms of github.com's pages). */
function treeUrl(branch: string): string {
  return `https://github.test/tree/${branch}`;
}

function commitUrl(sha: string): string {
  return `https://github.test/commit/${sha}`;
}
