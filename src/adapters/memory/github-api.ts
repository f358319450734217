/**
 * An in-memory GitHub: the part of the REST API the app uses (refs, commits, trees, blobs,
 * issues, comments, pull requests, labels, permissions, reactions, timelines, workflow
 * dispatches), answering from a model of one repository that requests read and change. `serve()`
 * puts it on a loopback HTTP server, as a GitHub a process reaches through its API URL: the
 * playground runs the real app against it, and the tests do too. Every request is recorded
 * (method, path, body, status), and the comment events GitHub would send are queued in `events`.
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

export const API = "https://api.github.com";

export interface RecordedRequest {
  method: string;
  /** The path with its query string, decoded. */
  path: string;
  body: unknown;
  status: number;
  /** The Authorization header, for requests to the model served on loopback (`serve()`). */
  authorization?: string;
}

export interface ApiUser {
  login: string;
  id: number;
  type: "User" | "Bot";
}

export interface ApiComment {
  id: number;
  issue: number;
  body: string;
  user: ApiUser;
  performed_via_github_app: { id: number; slug: string } | null;
  created_at: string;
  updated_at: string;
}

export interface ApiIssue {
  number: number;
  title: string;
  body: string;
  state: "open" | "closed";
  state_reason: string | null;
  labels: string[];
  user: ApiUser;
  pull_request?: boolean;
  created_at?: string;
  /** When it last changed (its opening, a label): the issue in a webhook is as at its event. */
  updated_at?: string;
}

/**
 * An issue's event (GET /issues/:n/events), as GitHub lists them: labels added, and others
 * (`mentioned`, `subscribed`, …) that the model records only when a test asks.
 */
export interface ApiIssueEvent {
  id: number;
  issue: number;
  event: string;
  label?: { name: string };
  actor: ApiUser;
  created_at: string;
}

export interface ApiPull {
  number: number;
  head: string;
  base: string;
  title: string;
  body: string;
  state: "open" | "closed";
  merged: boolean;
  draft: boolean;
  reviewers: string[];
  /** Who opened it: the app for pull requests it creates. */
  user: ApiUser;
  /**
   * Files it changes, as GitHub lists them (set by a test; else the trees' difference): a name
   * (modified), or a name with its status (and, renamed, its previous name).
   */
  files?: (string | ApiPullFile)[];
  /** People whose review approved it. */
  approvedBy?: string[];
}

/** A file of a pull request as `GET /pulls/:n/files` lists it. */
export interface ApiPullFile {
  filename: string;
  status: "added" | "removed" | "modified" | "renamed" | "copied" | "changed" | "unchanged";
  previous_filename?: string;
}

export interface ApiCommit {
  sha: string;
  message: string;
  tree: string;
  parents: string[];
}

/** A comment event GitHub would send after a request of the app (or of a person). */
export interface PendingCommentEvent {
  action: "created" | "edited" | "deleted";
  comment: ApiComment;
  /** Who did it (GitHub's `sender`): the comment's author unless someone else edited or deleted it. */
  sender?: ApiUser;
  /** The body before an edit (GitHub's `changes.body.from`). */
  previous?: string;
}

export type Fault = (req: { method: string; path: string; body: unknown }) =>
  | {
      status: number;
      body?: unknown;
      headers?: Record<string, string>;
      /** The request takes effect all the same; only its answer is lost (a proxy's 502 after it). */
      applied?: boolean;
    }
  | undefined;

export interface MemoryGitHubApiOptions {
  owner: string;
  repo: string;
  defaultBranch: string;
  appId: number;
  appSlug?: string;
  /** Files of the default branch's first commit. */
  files?: Record<string, string>;
  /** Whether the organisation has a `.github` repository (with these files). */
  orgFiles?: Record<string, string>;
  clock?: () => Date;
  /**
   * The first comment id (default 1000). GitHub's comment ids are unique across repositories:
   * several in-memory repositories standing for one GitHub take ranges of their own.
   */
  firstCommentId?: number;
}

/** An answer: status, JSON body (or "" for none), headers. */
export type Reply = [number, unknown, Record<string, string>?];

/** A workflow run a dispatch started. */
export interface ApiWorkflowRun {
  id: number;
  workflow: string;
  ref: string;
  inputs: Record<string, string>;
  createdAt: string;
  actor: string;
}

function sha(...parts: unknown[]): string {
  return createHash("sha1").update(JSON.stringify(parts)).digest("hex");
}

/** One repository's git data: refs, commits, trees and blobs, content-addressed. */
export class ApiRepository {
  readonly refs = new Map<string, string>();
  readonly commits = new Map<string, ApiCommit>();
  readonly trees = new Map<string, Map<string, string>>();
  readonly blobs = new Map<string, string>();
  private counter = 0;

  constructor(
    readonly defaultBranch: string,
    files: Record<string, string>,
  ) {
    const tree = this.makeTree(new Map(), files);
    const root = this.makeCommit("Initial commit", tree, []);
    this.refs.set(`heads/${defaultBranch}`, root.sha);
  }

  blob(content: string): string {
    const s = sha("blob", content);
    this.blobs.set(s, content);
    return s;
  }

  makeTree(base: Map<string, string>, files: Record<string, string>): string {
    const entries = new Map(base);
    for (const [path, content] of Object.entries(files)) entries.set(path, this.blob(content));
    const s = sha("tree", [...entries.entries()].sort());
    this.trees.set(s, entries);
    return s;
  }

  makeCommit(message: string, tree: string, parents: string[]): ApiCommit {
    const c: ApiCommit = {
      sha: sha("commit", message, tree, parents, this.counter++),
      message,
      tree,
      parents,
    };
    this.commits.set(c.sha, c);
    return c;
  }

  /** Commits reachable from a sha, newest first (first parents only). */
  history(from: string): ApiCommit[] {
    const out: ApiCommit[] = [];
    let at: string | undefined = from;
    while (at) {
      const c = this.commits.get(at);
      if (!c) break;
      out.push(c);
      at = c.parents[0];
    }
    return out;
  }

  /** Every commit reachable from a sha (all parents). */
  reachable(from: string): Set<string> {
    const seen = new Set<string>();
    const todo = [from];
    for (let at = todo.pop(); at !== undefined; at = todo.pop()) {
      const c = this.commits.get(at);
      if (!c || seen.has(at)) continue;
      seen.add(at);
      todo.push(...c.parents);
    }
    return seen;
  }

  /** Commits reachable from head but not from base, oldest first (like `git log base..head`, reversed). */
  ahead(base: string, head: string): ApiCommit[] {
    const onBase = this.reachable(base);
    return [...this.reachable(head)]
      .filter((s) => !onBase.has(s))
      .map((s) => this.commits.get(s) as ApiCommit)
      .reverse();
  }
}

/** What `serve()` asks of a request before reading it. */
export interface ServeOptions {
  /** Consulted first: a refusal here is the answer (JSON `{ error }`), and the body is not read. */
  admit?: (req: IncomingMessage) => { status: number; error: string } | undefined;
  /** Bytes of a body read at most; a larger one is refused with 413 (default: no limit). */
  maxBodyBytes?: number;
}

/** A refused request's answer; the connection closes, so the rest of its body is never read. */
function refuseRequest(res: ServerResponse, refusal: { status: number; error: string }): void {
  res.writeHead(refusal.status, {
    "content-type": "application/json; charset=utf-8",
    connection: "close",
  });
  res.end(JSON.stringify({ error: refusal.error }), () => res.socket?.destroySoon());
}

/** The model and its answers; `serve()` puts it on a loopback HTTP server. */
export class MemoryGitHubApi {
  readonly owner: string;
  readonly name: string;
  readonly appId: number;
  readonly botLogin: string;
  readonly repo: ApiRepository;
  readonly org: ApiRepository | undefined;
  readonly issues = new Map<number, ApiIssue>();
  readonly comments = new Map<number, ApiComment>();
  /** Pull request review comments (threads: `in_reply_to_id` names the first comment). */
  readonly reviewComments = new Map<
    number,
    ApiComment & { pull: number; in_reply_to_id?: number; path: string }
  >();
  readonly pulls = new Map<number, ApiPull>();
  readonly permissions = new Map<string, string>();
  /** The repository's labels the app created (name → colour and description). */
  readonly repoLabels = new Map<string, { color: string; description: string }>();
  /** The installation and repository ids the app lists (those of the example payloads). */
  installationId = 2;
  repositoryId = 186853002;
  /** team "org/slug" → member logins */
  readonly teams = new Map<string, Set<string>>();
  readonly reactions: { commentId: number; content: string; user?: ApiUser }[] = [];
  /** Labels added to issues, in order (GET /issues/:n/events). */
  readonly issueEvents: ApiIssueEvent[] = [];
  readonly dispatches: { workflow: string; ref: string; inputs: unknown }[] = [];
  /** The runs dispatches created, in order. */
  readonly workflowRuns: ApiWorkflowRun[] = [];
  /**
   * Whether a dispatch asked for `return_run_details` gets the run's id (github.com); false
   * answers 204 without a body, as a server without the option does.
   */
  runDetails = true;
  /** Workflow runs the Actions API lists and returns (REST-shaped, e.g. a payload's `workflow_run`). */
  listedRuns: Record<string, unknown>[] = [];
  readonly requests: RecordedRequest[] = [];
  /** Comment events GitHub would deliver, in order, not yet delivered by the test. */
  readonly events: PendingCommentEvent[] = [];
  /** Whose personal token `GET /user` reports (local runs use one). */
  tokenUser = "dev";
  /** Consulted before every request: a response here replaces the model's. */
  fault: Fault | undefined;
  private nextIssue = 1;
  private nextComment = 1000;
  private readonly clock: () => Date;

  constructor(o: MemoryGitHubApiOptions) {
    this.owner = o.owner;
    this.name = o.repo;
    this.appId = o.appId;
    this.botLogin = `${o.appSlug ?? "playbook-bot"}[bot]`;
    this.repo = new ApiRepository(o.defaultBranch, o.files ?? { "README.md": "# test\n" });
    this.org = o.orgFiles ? new ApiRepository("main", o.orgFiles) : undefined;
    let t = Date.parse("2026-03-01T09:00:00Z");
    this.clock = o.clock ?? (() => new Date((t += 1000)));
    if (o.firstCommentId !== undefined) this.nextComment = o.firstCommentId;
  }

  // ---- the model: what people do ----

  /** The model's clock (every reading moves it on when it is the default one). */
  now(): Date {
    return this.clock();
  }

  user(login: string): ApiUser {
    return {
      login,
      id: Number.parseInt(sha(login).slice(0, 6), 16),
      type: login.endsWith("[bot]") ? "Bot" : "User",
    };
  }

  openIssue(title: string, body: string, author: string, labels: string[] = []): ApiIssue {
    const issue: ApiIssue = {
      number: this.nextIssue++,
      title,
      body,
      state: "open",
      state_reason: null,
      labels,
      user: this.user(author),
      created_at: this.clock().toISOString(),
    };
    issue.updated_at = issue.created_at;
    this.issues.set(issue.number, issue);
    for (const l of labels)
      this.recordLabel(issue.number, l, issue.user, issue.created_at as string);
    return issue;
  }

  /** Someone adds a label to an issue, as GitHub records it (no webhook is sent by the fake). */
  labelAs(issue: number, label: string, login: string): ApiIssueEvent {
    const i = this.issues.get(issue);
    if (!i) throw new Error(`no issue ${issue}`);
    if (!i.labels.includes(label)) i.labels.push(label);
    i.updated_at = this.clock().toISOString();
    return this.recordLabel(issue, label, this.user(login), i.updated_at);
  }

  /** Events of another kind on an issue (`mentioned`, `subscribed`, …): they start nothing. */
  recordEvents(issue: number, event: string, login: string, count = 1): void {
    for (let i = 0; i < count; i++)
      this.issueEvents.push({
        id: 70_000 + this.issueEvents.length,
        issue,
        event,
        actor: this.user(login),
        created_at: this.clock().toISOString(),
      });
  }

  private recordLabel(issue: number, label: string, actor: ApiUser, at: string): ApiIssueEvent {
    const e: ApiIssueEvent = {
      id: 70_000 + this.issueEvents.length,
      issue,
      event: "labeled",
      label: { name: label },
      actor,
      created_at: at,
    };
    this.issueEvents.push(e);
    return e;
  }

  /** Answers HTTP requests as GitHub's API would, from the model (conditional GETs included). */
  private requestListener(
    options: ServeOptions = {},
  ): (req: IncomingMessage, res: ServerResponse) => void {
    const max = options.maxBodyBytes ?? Number.POSITIVE_INFINITY;
    return (req, res) => {
      const refused = options.admit?.(req);
      if (refused) return refuseRequest(res, refused);
      if (Number(req.headers["content-length"] ?? 0) > max)
        return refuseRequest(res, { status: 413, error: `a body is at most ${max} bytes` });
      const chunks: Buffer[] = [];
      let size = 0;
      const onData = (c: Buffer) => {
        size += c.length;
        if (size > max) {
          req.off("data", onData).off("end", onEnd).pause();
          refuseRequest(res, { status: 413, error: `a body is at most ${max} bytes` });
          return;
        }
        chunks.push(c);
      };
      req.on("data", onData);
      const onEnd = () => {
        const method = (req.method ?? "GET").toUpperCase();
        const raw = Buffer.concat(chunks).toString("utf8");
        const uri = req.url ?? "/";
        const ifNoneMatch = req.headers["if-none-match"];
        const [status, body, headers] =
          typeof ifNoneMatch === "string"
            ? this.conditional(method, uri, raw, ifNoneMatch)
            : this.handle(method, uri, raw);
        const recorded = this.requests[this.requests.length - 1];
        if (recorded && typeof req.headers.authorization === "string")
          recorded.authorization = req.headers.authorization;
        const text = body === "" || body === undefined ? "" : JSON.stringify(body);
        res.writeHead(status, {
          ...(text ? { "content-type": "application/json; charset=utf-8" } : {}),
          ...headers,
        });
        res.end(status === 304 || status === 204 ? undefined : text);
      };
      req.on("end", onEnd);
    };
  }

  /**
   * The model on a loopback HTTP server (port 0), as a GitHub API a process reaches through its
   * API URL (`GITHUB_API_URL`, Probot's `baseUrl`): `url` is its base, `close` stops it.
   */
  async serve(options: ServeOptions = {}): Promise<{ url: string; close: () => Promise<void> }> {
    const server = createServer(this.requestListener(options));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address() as { port: number };
    return {
      url: `http://127.0.0.1:${address.port}`,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }

  /** A comment by a person (or another bot): recorded as GitHub would, with its created event. */
  postAs(issue: number, login: string, body: string): ApiComment {
    const c = this.addComment(issue, body, this.user(login), null);
    this.events.push({ action: "created", comment: { ...c } });
    return c;
  }

  /**
   * A `workflow_run.completed` payload for a run a dispatch started: a real payload (`example`,
   * from @octokit/webhooks-examples) given the run's id, event, workflow file, ref, creation time,
   * actor and this repository (its `repository`). Tests then change what they want to differ.
   */
  completedWorkflowRun<T extends Record<string, unknown>>(
    example: T,
    run: ApiWorkflowRun,
    conclusion = "success",
  ): T {
    const p = example as Record<string, Record<string, unknown>>;
    const base = p.workflow_run ?? {};
    const repository = {
      ...(base.repository as Record<string, unknown>),
      id: p.repository?.id,
      full_name: p.repository?.full_name,
    };
    const actor = { ...(base.actor as Record<string, unknown>), ...this.user(run.actor) };
    p.workflow_run = {
      ...base,
      id: run.id,
      event: "workflow_dispatch",
      path: `.github/workflows/${run.workflow}`,
      head_branch: run.ref,
      created_at: run.createdAt,
      status: "completed",
      conclusion,
      actor,
      triggering_actor: actor,
      repository,
      head_repository: repository,
      html_url: `https://github.com/${this.owner}/${this.name}/actions/runs/${run.id}`,
    };
    return example;
  }

  /** A comment by this app, added without an event (what the app might have written elsewhere). */
  appComment(issue: number, body: string): ApiComment {
    return this.addComment(
      issue,
      body,
      this.user(this.botLogin),
      this.appOf(this.user(this.botLogin)),
    );
  }

  /** Add many comments at once (no events): a long thread. */
  seedComments(issue: number, count: number, login = "someone"): void {
    for (let i = 0; i < count; i++) this.addComment(issue, `comment ${i}`, this.user(login), null);
  }

  /** When an edit happens: now, but never at the creation's instant (a clock held still in tests). */
  private editTime(c: ApiComment): string {
    const now = this.clock().getTime();
    return new Date(Math.max(now, Date.parse(c.created_at) + 1000)).toISOString();
  }

  /** Someone edits a comment: its author unless `by` names another person (write users can edit any). */
  editAs(id: number, body: string, by?: string): ApiComment {
    const c = this.comments.get(id);
    if (!c) throw new Error(`no comment ${id}`);
    const previous = c.body;
    c.body = body;
    c.updated_at = this.editTime(c);
    this.events.push({
      action: "edited",
      comment: { ...c },
      sender: by ? this.user(by) : c.user,
      previous,
    });
    return c;
  }

  deleteAs(id: number, by?: string): ApiComment {
    const c = this.comments.get(id);
    if (!c) throw new Error(`no comment ${id}`);
    this.comments.delete(id);
    this.events.push({ action: "deleted", comment: { ...c }, sender: by ? this.user(by) : c.user });
    return c;
  }

  /** Merge (or close) a pull request as a person would; merging moves the base branch. */
  closePull(number: number, merged: boolean): ApiPull {
    const pr = this.pulls.get(number);
    if (!pr) throw new Error(`no pull request ${number}`);
    pr.state = "closed";
    pr.merged = merged;
    if (merged) {
      const head = this.repo.refs.get(`heads/${pr.head}`) as string;
      const base = this.repo.refs.get(`heads/${pr.base}`) as string;
      const tree = (this.repo.commits.get(head) as ApiCommit).tree;
      const c = this.repo.makeCommit(`Merge pull request #${number}`, tree, [base, head]);
      this.repo.refs.set(`heads/${pr.base}`, c.sha);
    }
    return pr;
  }

  /** Someone other than the app opens a pull request (a decoy, or a person's own change). */
  openPullAs(login: string, head: string, title: string, body: string): ApiPull {
    const number = this.nextIssue++;
    const pr: ApiPull = {
      number,
      head,
      base: this.repo.defaultBranch,
      title,
      body,
      state: "open",
      merged: false,
      draft: false,
      reviewers: [],
      user: this.user(login),
    };
    this.pulls.set(number, pr);
    return pr;
  }

  /** Someone pushes a commit to a branch (made from the default branch when missing). */
  pushAs(branch: string, message: string, files: Record<string, string> = {}): ApiCommit {
    const ref = `heads/${branch}`;
    const parent =
      this.repo.refs.get(ref) ?? (this.repo.refs.get(`heads/${this.repo.defaultBranch}`) as string);
    const tree = this.repo.makeTree(
      this.repo.trees.get((this.repo.commits.get(parent) as ApiCommit).tree) ?? new Map(),
      files,
    );
    const c = this.repo.makeCommit(message, tree, [parent]);
    this.repo.refs.set(ref, c.sha);
    return c;
  }

  /** A file's text at the head of a branch, or undefined. */
  fileAt(branch: string, path: string): string | undefined {
    const sha = this.repo.refs.get(`heads/${branch}`);
    const commit = sha ? this.repo.commits.get(sha) : undefined;
    const blob = commit ? this.repo.trees.get(commit.tree)?.get(path) : undefined;
    return blob === undefined ? undefined : this.repo.blobs.get(blob);
  }

  /** The files under `prefix` at the head of a branch, by path. */
  filesUnder(branch: string, prefix: string): Record<string, string> {
    const sha = this.repo.refs.get(`heads/${branch}`);
    const commit = sha ? this.repo.commits.get(sha) : undefined;
    const tree = commit ? this.repo.trees.get(commit.tree) : undefined;
    const out: Record<string, string> = {};
    for (const [path, blob] of tree ?? [])
      if (path.startsWith(prefix)) out[path] = this.repo.blobs.get(blob) ?? "";
    return out;
  }

  /** Paths whose content differs between a pull request's head and its base. */
  changedFiles(pr: ApiPull): string[] {
    const treeOf = (ref: string) => {
      const sha = this.repo.refs.get(`heads/${ref}`);
      const commit = sha ? this.repo.commits.get(sha) : undefined;
      return (commit && this.repo.trees.get(commit.tree)) ?? new Map<string, string>();
    };
    const head = treeOf(pr.head);
    const base = treeOf(pr.base);
    return [...new Set([...head.keys(), ...base.keys()])]
      .filter((path) => head.get(path) !== base.get(path))
      .sort();
  }

  /** Commits of pull requests' heads, by pull request number. */
  pullCommits(number: number): ApiCommit[] {
    const pr = this.pulls.get(number);
    const head = pr ? this.repo.refs.get(`heads/${pr.head}`) : undefined;
    const base = pr ? this.repo.refs.get(`heads/${pr.base}`) : undefined;
    if (!head || !base) return [];
    return this.repo.ahead(base, head);
  }

  /** This app's comments that hold a state block. */
  statusComments(issue: number): ApiComment[] {
    return [...this.comments.values()].filter(
      (c) =>
        c.issue === issue &&
        c.performed_via_github_app?.id === this.appId &&
        c.body.includes("<!-- playbook-bot:state "),
    );
  }

  branches(): string[] {
    return [...this.repo.refs.keys()].map((r) => r.replace(/^heads\//, ""));
  }

  /** Commits (on any branch) whose message has this line. */
  commitsWith(line: RegExp): ApiCommit[] {
    return [...this.repo.commits.values()].filter((c) =>
      c.message.split("\n").some((l) => line.test(l)),
    );
  }

  restComment(c: ApiComment): Record<string, unknown> {
    return {
      id: c.id,
      node_id: `IC_${c.id}`,
      url: `${API}/repos/${this.owner}/${this.name}/issues/comments/${c.id}`,
      html_url: `https://github.com/${this.owner}/${this.name}/issues/${c.issue}#issuecomment-${c.id}`,
      issue_url: `${API}/repos/${this.owner}/${this.name}/issues/${c.issue}`,
      body: c.body,
      user: c.user,
      created_at: c.created_at,
      updated_at: c.updated_at,
      author_association: c.user.type === "Bot" ? "NONE" : "MEMBER",
      performed_via_github_app: c.performed_via_github_app,
      // Like GitHub: the comment's reactions, counted by content.
      reactions: Object.fromEntries(
        ["+1", "-1", "laugh", "confused", "heart", "hooray", "rocket", "eyes"].map((k) => [
          k,
          this.reactions.filter((r) => r.commentId === c.id && r.content === k).length,
        ]),
      ),
    };
  }

  restIssue(i: ApiIssue): Record<string, unknown> {
    return {
      id: 5000 + i.number,
      number: i.number,
      title: i.title,
      body: i.body,
      state: i.state,
      state_reason: i.state_reason,
      user: i.user,
      labels: i.labels.map((name) => ({ name })),
      html_url: `https://github.com/${this.owner}/${this.name}/issues/${i.number}`,
      performed_via_github_app: this.appOf(i.user),
      // As the webhook's issue says: how many comments the thread has.
      comments: [...this.comments.values()].filter((c) => c.issue === i.number).length,
      ...(i.created_at ? { created_at: i.created_at } : {}),
      ...(i.updated_at ? { updated_at: i.updated_at } : {}),
      ...(i.pull_request ? { pull_request: {} } : {}),
    };
  }

  restPull(p: ApiPull): Record<string, unknown> {
    return {
      id: 9000 + p.number,
      number: p.number,
      title: p.title,
      body: p.body,
      state: p.state,
      merged: p.merged,
      draft: p.draft,
      html_url: `https://github.com/${this.owner}/${this.name}/pull/${p.number}`,
      head: { ref: p.head, label: `${this.owner}:${p.head}` },
      base: { ref: p.base },
      user: p.user,
    };
  }

  /** Like GitHub: what the app made (with its installation token) names the app. */
  appOf(user: ApiUser): ApiComment["performed_via_github_app"] {
    return user.login === this.botLogin
      ? { id: this.appId, slug: this.botLogin.replace(/\[bot\]$/, "") }
      : null;
  }

  /** A review comment by someone on a pull request: the first of a thread. */
  addReviewComment(pull: number, body: string, login = "reviewer"): number {
    const at = this.clock().toISOString();
    const id = this.nextComment++;
    this.reviewComments.set(id, {
      id,
      issue: pull,
      pull,
      path: "src/index.ts",
      body,
      user: this.user(login),
      performed_via_github_app: null,
      created_at: at,
      updated_at: at,
    });
    return id;
  }

  private addComment(
    issue: number,
    body: string,
    user: ApiUser,
    app: ApiComment["performed_via_github_app"],
  ): ApiComment {
    const at = this.clock().toISOString();
    const c: ApiComment = {
      id: this.nextComment++,
      issue,
      body,
      user,
      performed_via_github_app: app,
      created_at: at,
      updated_at: at,
    };
    this.comments.set(c.id, c);
    return c;
  }

  // ---- requests ----

  /** Requests since a mark (an index into `requests`). */
  since(mark: number): RecordedRequest[] {
    return this.requests.slice(mark);
  }

  /**
   * Like GitHub, every JSON answer carries an ETag (a hash of the body); a GET whose
   * `If-None-Match` names the current one is answered 304 without a body (recorded with status
   * 304: GitHub does not count it against the rate limit).
   */
  conditional(method: string, uri: string, rawBody: unknown, ifNoneMatch: string): Reply {
    const reply = this.handle(method, uri, rawBody);
    if (method !== "GET" || reply[0] !== 200 || reply[2]?.etag !== ifNoneMatch) return reply;
    const recorded = this.requests[this.requests.length - 1];
    if (recorded) recorded.status = 304;
    return [304, "", { etag: ifNoneMatch }];
  }

  /** Installation tokens issued (POST /app/installations/:id/access_tokens). */
  tokensIssued = 0;
  /** What an installation token starts with (a count follows); a secret one makes them unguessable. */
  installationTokenPrefix = "ghs_fake";

  handle(method: string, uri: string, rawBody: unknown): Reply {
    const path = decodeURIComponent(uri);
    const body = typeof rawBody === "string" && rawBody !== "" ? safeJson(rawBody) : rawBody;
    const fault = this.fault?.({ method, path, body });
    let reply: Reply;
    if (fault?.applied) this.routeSafely(method, path, body);
    if (fault) reply = [fault.status, fault.body ?? { message: "fault" }, fault.headers];
    else reply = this.routeSafely(method, path, body);
    if (reply[0] === 200 && (method === "GET" || method === "PATCH"))
      reply = [reply[0], reply[1], { ...reply[2], etag: etagOf(reply[1]) }];
    this.requests.push({ method, path, body, status: reply[0] });
    return reply;
  }

  private routeSafely(method: string, path: string, body: unknown): Reply {
    try {
      return this.route(method, path, body);
    } catch (err) {
      return [500, { message: String(err) }];
    }
  }

  private route(method: string, path: string, body: unknown): Reply {
    const url = new URL(path, API);
    const q = url.searchParams;
    const p = url.pathname;
    const b = (body ?? {}) as Record<string, unknown>;
    const repoPrefix = `/repos/${this.owner}/`;
    // A person's token (a local run) asks who it is.
    if (p === "/user" && method === "GET") return [200, this.user(this.tokenUser)];
    // The app's installations, and the repositories one may reach: this repository only.
    if (p === "/app/installations" && method === "GET")
      return [200, [{ id: this.installationId, account: this.user(this.owner) }]];
    if (p === "/installation/repositories" && method === "GET")
      return [
        200,
        {
          total_count: 1,
          repositories: [
            {
              id: this.repositoryId,
              name: this.name,
              full_name: `${this.owner}/${this.name}`,
              owner: this.user(this.owner),
              default_branch: this.repo.defaultBranch,
            },
          ],
        },
      ];
    // The app itself, as its JWT sees it: its bot account is `<slug>[bot]`.
    if (p === "/app" && method === "GET")
      return [200, { id: this.appId, slug: this.botLogin.replace(/\[bot\]$/, "") }];
    // The app's installation token, as a Probot app asks for one (then cached for an hour).
    if (/^\/app\/installations\/[0-9]+\/access_tokens$/.test(p) && method === "POST") {
      this.tokensIssued++;
      return [
        201,
        {
          token: `${this.installationTokenPrefix}${this.tokensIssued}`,
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
          permissions: { issues: "write", contents: "write", pull_requests: "write" },
          repository_selection: "all",
        },
      ];
    }
    if (!p.startsWith(repoPrefix) && !p.startsWith("/orgs/")) return notFound();
    let m: RegExpExecArray | null;

    if (
      (m = /^\/orgs\/([^/]+)\/teams\/([^/]+)\/memberships\/([^/]+)$/.exec(p)) &&
      method === "GET"
    ) {
      const members = this.teams.get(`${m[1]}/${m[2]}`);
      return members?.has(m[3] as string) ? [200, { state: "active", role: "member" }] : notFound();
    }
    const rest = p.slice(repoPrefix.length);
    const slash = rest.indexOf("/");
    const repoName = slash === -1 ? rest : rest.slice(0, slash);
    const sub = slash === -1 ? "" : rest.slice(slash);
    const repo = repoName === this.name ? this.repo : repoName === ".github" ? this.org : undefined;
    if (!repo) return notFound();
    // The installation that holds a repository, as the app's JWT asks (an alert route names one).
    if (sub === "/installation" && method === "GET") return [200, { id: this.installationId }];
    if (sub === "" && method === "GET")
      return [
        200,
        {
          id: repo === this.repo ? this.repositoryId : this.repositoryId + 1,
          name: repoName,
          full_name: `${this.owner}/${repoName}`,
          default_branch: repo.defaultBranch,
        },
      ];

    // git data
    if ((m = /^\/git\/ref\/(.+)$/.exec(sub)) && method === "GET") {
      const s = repo.refs.get(m[1] as string);
      return s ? [200, { ref: `refs/${m[1]}`, object: { sha: s, type: "commit" } }] : notFound();
    }
    if (sub === "/git/refs" && method === "POST") {
      const ref = String(b.ref).replace(/^refs\//, "");
      if (repo.refs.has(ref)) return [422, { message: "Reference already exists" }];
      if (!repo.commits.has(String(b.sha))) return [422, { message: "Object does not exist" }];
      repo.refs.set(ref, String(b.sha));
      return [201, { ref: `refs/${ref}`, object: { sha: b.sha, type: "commit" } }];
    }
    if ((m = /^\/git\/refs\/(.+)$/.exec(sub)) && method === "PATCH") {
      const ref = m[1] as string;
      const current = repo.refs.get(ref);
      if (!current) return [422, { message: "Reference does not exist" }];
      const next = String(b.sha);
      if (!b.force && !repo.history(next).some((c) => c.sha === current))
        return [422, { message: "Update is not a fast forward" }];
      repo.refs.set(ref, next);
      return [200, { ref: `refs/${ref}`, object: { sha: next, type: "commit" } }];
    }
    if ((m = /^\/git\/trees\/([0-9a-f]+)$/.exec(sub)) && method === "GET") {
      const treeSha = repo.commits.get(m[1] as string)?.tree ?? (m[1] as string);
      const tree = repo.trees.get(treeSha);
      if (!tree) return notFound();
      return [
        200,
        {
          sha: treeSha,
          truncated: false,
          tree: [...tree.entries()].map(([path, s]) => ({
            path,
            mode: "100644",
            type: "blob",
            sha: s,
            size: (repo.blobs.get(s) ?? "").length,
          })),
        },
      ];
    }
    if ((m = /^\/git\/blobs\/([0-9a-f]+)$/.exec(sub)) && method === "GET") {
      const content = repo.blobs.get(m[1] as string);
      return content === undefined
        ? notFound()
        : [
            200,
            { sha: m[1], encoding: "base64", content: Buffer.from(content).toString("base64") },
          ];
    }
    if ((m = /^\/git\/commits\/([0-9a-f]+)$/.exec(sub)) && method === "GET") {
      const c = repo.commits.get(m[1] as string);
      return c
        ? [
            200,
            {
              sha: c.sha,
              message: c.message,
              tree: { sha: c.tree },
              parents: c.parents.map((s) => ({ sha: s })),
            },
          ]
        : notFound();
    }
    if (sub === "/git/trees" && method === "POST") {
      const base = repo.trees.get(String(b.base_tree));
      if (!base) return [422, { message: "base_tree not found" }];
      const files: Record<string, string> = {};
      for (const e of b.tree as { path: string; content: string }[]) files[e.path] = e.content;
      const s = repo.makeTree(base, files);
      return [201, { sha: s, tree: [] }];
    }
    if (sub === "/git/commits" && method === "POST") {
      const c = repo.makeCommit(String(b.message), String(b.tree), b.parents as string[]);
      return [
        201,
        {
          sha: c.sha,
          html_url: `https://github.com/${this.owner}/${this.name}/commit/${c.sha}`,
          message: c.message,
        },
      ];
    }
    if ((m = /^\/compare\/(.+)\.\.\.(.+)$/.exec(sub)) && method === "GET") {
      const resolve = (ref: string) => repo.refs.get(`heads/${ref}`) ?? repo.commits.get(ref)?.sha;
      const base = resolve(m[1] as string);
      const head = resolve(m[2] as string);
      if (!base || !head) return notFound();
      const ahead = repo.ahead(base, head);
      const behind = repo.ahead(head, base);
      const status =
        ahead.length && behind.length
          ? "diverged"
          : ahead.length
            ? "ahead"
            : behind.length
              ? "behind"
              : "identical";
      return [
        200,
        {
          status,
          ahead_by: ahead.length,
          behind_by: behind.length,
          total_commits: ahead.length,
          // Like GitHub without paging: at most 250 commits, the newest last.
          commits: ahead.slice(-250).map((c) => ({
            sha: c.sha,
            html_url: `https://github.com/${this.owner}/${this.name}/commit/${c.sha}`,
            commit: { message: c.message },
          })),
        },
      ];
    }
    if (sub === "/commits" && method === "GET") {
      const head = repo.refs.get(`heads/${q.get("sha")}`);
      if (!head) return notFound();
      const perPage = Number(q.get("per_page") ?? 30);
      return [
        200,
        repo
          .history(head)
          .slice(0, perPage)
          .map((c) => ({
            sha: c.sha,
            html_url: `https://github.com/${this.owner}/${this.name}/commit/${c.sha}`,
            commit: { message: c.message },
          })),
      ];
    }

    // collaborators
    if ((m = /^\/collaborators\/([^/]+)\/permission$/.exec(sub)) && method === "GET") {
      const role = this.permissions.get(m[1] as string);
      if (!role) return notFound();
      const legacy = role === "maintain" ? "write" : role === "triage" ? "read" : role;
      return [200, { permission: legacy, role_name: role, user: this.user(m[1] as string) }];
    }

    // The repository's issue comments, as GitHub lists them: `since` an update time, sorted by
    // creation (the default) or update, paged with links.
    if (sub === "/issues/comments" && method === "GET") {
      const since = q.get("since");
      const byUpdate = q.get("sort") === "updated";
      const key = (c: ApiComment) =>
        (byUpdate ? c.updated_at : c.created_at) + String(c.id).padStart(12, "0");
      const all = [...this.comments.values()]
        .filter((c) => since === null || Date.parse(c.updated_at) >= Date.parse(since))
        .sort((a, b) => (key(a) < key(b) ? -1 : 1));
      if (q.get("direction") === "desc") all.reverse();
      const perPage = Number(q.get("per_page") ?? 30);
      const page = Number(q.get("page") ?? 1);
      const pages = Math.max(1, Math.ceil(all.length / perPage));
      const headers: Record<string, string> = {};
      if (page < pages) {
        const next = new URL(url.toString());
        next.searchParams.set("page", String(page + 1));
        headers.link = `<${next.toString()}>; rel="next"`;
      }
      return [
        200,
        all.slice((page - 1) * perPage, page * perPage).map((c) => this.restComment(c)),
        headers,
      ];
    }

    // comments
    if ((m = /^\/issues\/([0-9]+)\/comments$/.exec(sub))) {
      const issue = Number(m[1]);
      if (method === "GET") {
        const since = q.get("since");
        const all = [...this.comments.values()].filter(
          (c) =>
            c.issue === issue && (since === null || Date.parse(c.updated_at) >= Date.parse(since)),
        );
        const perPage = Number(q.get("per_page") ?? 30);
        const page = Number(q.get("page") ?? 1);
        const pages = Math.max(1, Math.ceil(all.length / perPage));
        const slice = all
          .slice((page - 1) * perPage, page * perPage)
          .map((c) => this.restComment(c));
        const headers: Record<string, string> = {};
        if (page < pages) {
          const link = (n: number) =>
            `<${API}/repos/${this.owner}/${this.name}/issues/${issue}/comments?per_page=${perPage}${since === null ? "" : `&since=${encodeURIComponent(since)}`}&page=${n}>`;
          headers.link = `${link(page + 1)}; rel="next", ${link(pages)}; rel="last"`;
        }
        return [200, slice, headers];
      }
      if (method === "POST") {
        if (!this.issues.has(issue)) return notFound();
        const c = this.addComment(issue, String(b.body), this.user(this.botLogin), {
          id: this.appId,
          slug: this.botLogin.replace(/\[bot\]$/, ""),
        });
        this.events.push({ action: "created", comment: { ...c } });
        return [201, this.restComment(c)];
      }
    }
    if ((m = /^\/issues\/comments\/([0-9]+)$/.exec(sub))) {
      const c = this.comments.get(Number(m[1]));
      if (!c) return notFound();
      if (method === "GET") return [200, this.restComment(c)];
      if (method === "PATCH") {
        const previous = c.body;
        c.body = String(b.body);
        c.updated_at = this.editTime(c);
        this.events.push({
          action: "edited",
          comment: { ...c },
          sender: this.user(this.botLogin),
          previous,
        });
        return [200, this.restComment(c)];
      }
    }
    if ((m = /^\/issues\/comments\/([0-9]+)\/reactions$/.exec(sub)) && method === "POST") {
      // Like GitHub: the same reaction twice is the existing one (200), not a second.
      const i = this.reactions.findIndex(
        (r) => r.commentId === Number(m?.[1]) && r.content === String(b.content),
      );
      if (i !== -1) return [200, { id: i + 1, content: b.content }];
      this.reactions.push({
        commentId: Number(m[1]),
        content: String(b.content),
        user: this.user(this.botLogin),
      });
      return [201, { id: this.reactions.length, content: b.content }];
    }
    if ((m = /^\/issues\/comments\/([0-9]+)\/reactions$/.exec(sub)) && method === "GET") {
      const content = q.get("content");
      return [
        200,
        this.reactions
          .map((r, i) => ({ ...r, id: i + 1 }))
          .filter((r) => r.commentId === Number(m?.[1]) && (!content || r.content === content))
          .map((r) => ({ id: r.id, content: r.content, user: r.user ?? this.user(this.botLogin) })),
      ];
    }
    if ((m = /^\/issues\/([0-9]+)\/events$/.exec(sub)) && method === "GET") {
      // Oldest first, paged with links (next and last) as GitHub pages them.
      const issue = Number(m[1]);
      const all = this.issueEvents
        .filter((e) => e.issue === issue)
        .map(({ issue: _, ...e }) =>
          e.label ? { ...e, label: { ...e.label, color: "ededed" } } : e,
        );
      const perPage = Number(q.get("per_page") ?? 30);
      const page = Number(q.get("page") ?? 1);
      const pages = Math.max(1, Math.ceil(all.length / perPage));
      const headers: Record<string, string> = {};
      if (page < pages) {
        const link = (n: number) =>
          `<${API}/repos/${this.owner}/${this.name}/issues/${issue}/events?per_page=${perPage}&page=${n}>`;
        headers.link = `${link(page + 1)}; rel="next", ${link(pages)}; rel="last"`;
      }
      return [200, all.slice((page - 1) * perPage, page * perPage), headers];
    }

    // An issue's timeline: the pull requests whose title or body names it (`#n`), as
    // cross-references.
    if ((m = /^\/issues\/([0-9]+)\/timeline$/.exec(sub)) && method === "GET") {
      const n = Number(m[1]);
      const names = new RegExp(`(^|[^\\w])#${n}(?![\\w])`);
      const events = [...this.pulls.values()]
        .filter((pr) => names.test(`${pr.title}\n${pr.body}`))
        .map((pr) => ({
          event: "cross-referenced",
          actor: pr.user,
          created_at: this.clock().toISOString(),
          source: {
            type: "issue",
            issue: {
              number: pr.number,
              title: pr.title,
              state: pr.state,
              pull_request: { merged_at: pr.merged ? this.clock().toISOString() : null },
              repository: { full_name: `${this.owner}/${this.name}` },
            },
          },
        }));
      return [200, events];
    }
    // issues
    if (sub === "/issues" && method === "GET") {
      // Like GitHub: open ones unless `state` says otherwise; `labels` names labels all present.
      const state = q.get("state") ?? "open";
      const wanted = (q.get("labels") ?? "").split(",").filter(Boolean);
      const list = [...this.issues.values()]
        .reverse()
        .filter((i) => state === "all" || i.state === state)
        .filter((i) => wanted.every((l) => i.labels.includes(l)))
        .slice(0, Number(q.get("per_page") ?? 30));
      return [200, list.map((i) => this.restIssue(i))];
    }
    if (sub === "/labels" && method === "POST") {
      const name = String(b.name ?? "");
      if (this.repoLabels.has(name))
        return [422, { message: "Validation Failed", errors: [{ code: "already_exists" }] }];
      this.repoLabels.set(name, {
        color: String(b.color ?? ""),
        description: String(b.description ?? ""),
      });
      return [201, { name, color: b.color, description: b.description }];
    }
    if (sub === "/issues" && method === "POST") {
      const i = this.openIssue(
        String(b.title),
        String(b.body ?? ""),
        this.botLogin,
        (b.labels as string[]) ?? [],
      );
      return [201, this.restIssue(i)];
    }
    if ((m = /^\/issues\/([0-9]+)$/.exec(sub))) {
      const n = Number(m[1]);
      // A pull request is an issue too: its issue view names the app that opened it.
      const i = this.issues.get(n) ?? (this.pulls.has(n) ? this.pullIssue(n) : undefined);
      if (!i) return notFound();
      if (method === "GET") return [200, this.restIssue(i)];
      if (method === "PATCH") {
        if (b.state) i.state = b.state as ApiIssue["state"];
        if (b.state_reason !== undefined) i.state_reason = b.state_reason as string;
        return [200, this.restIssue(i)];
      }
    }
    if ((m = /^\/issues\/([0-9]+)\/labels$/.exec(sub)) && method === "POST") {
      const n = Number(m[1]);
      const target = this.issues.get(n) ?? (this.pulls.has(n) ? this.pullIssue(n) : undefined);
      if (!target) return notFound();
      for (const l of b.labels as string[])
        if (!target.labels.includes(l)) {
          target.labels.push(l);
          target.updated_at = this.clock().toISOString();
          this.recordLabel(n, l, this.user(this.botLogin), target.updated_at);
        }
      return [200, target.labels.map((name) => ({ name }))];
    }
    if ((m = /^\/issues\/([0-9]+)\/labels\/(.+)$/.exec(sub)) && method === "DELETE") {
      const i = this.issues.get(Number(m[1]));
      if (!i || !i.labels.includes(m[2] as string)) return notFound();
      i.labels = i.labels.filter((l) => l !== m?.[2]);
      i.updated_at = this.clock().toISOString();
      return [200, i.labels.map((name) => ({ name }))];
    }

    // pull request review comments
    if ((m = /^\/pulls\/([0-9]+)\/comments$/.exec(sub)) && method === "GET") {
      const pull = Number(m[1]);
      const since = q.get("since");
      const list = [...this.reviewComments.values()].filter(
        (c) => c.pull === pull && (!since || c.updated_at >= since),
      );
      if (q.get("direction") === "desc") list.reverse();
      return [
        200,
        list.map((c) => ({
          ...c,
          html_url: `https://github.com/r/pull/${pull}#discussion_r${c.id}`,
        })),
      ];
    }
    if ((m = /^\/pulls\/([0-9]+)\/comments\/([0-9]+)\/replies$/.exec(sub)) && method === "POST") {
      const pull = Number(m[1]);
      const first = this.reviewComments.get(Number(m[2]));
      if (!this.pulls.has(pull) || first?.pull !== pull) return notFound();
      const at = this.clock().toISOString();
      const user = this.user(this.botLogin);
      const c = {
        id: this.nextComment++,
        issue: pull,
        pull,
        path: first.path,
        in_reply_to_id: first.in_reply_to_id ?? first.id,
        body: String(b.body),
        user,
        performed_via_github_app: this.appOf(user),
        created_at: at,
        updated_at: at,
      };
      this.reviewComments.set(c.id, c);
      return [201, { ...c, html_url: `https://github.com/r/pull/${pull}#discussion_r${c.id}` }];
    }

    // pull requests
    if (sub === "/pulls" && method === "GET") {
      const head = (q.get("head") ?? "").replace(/^[^:]+:/, "");
      const state = q.get("state") ?? "open";
      const list = [...this.pulls.values()].filter(
        (pr) => pr.head === head && (state === "all" || pr.state === state),
      );
      return [200, list.map((pr) => this.restPull(pr))];
    }
    if (sub === "/pulls" && method === "POST") {
      if (!repo.refs.has(`heads/${String(b.head)}`))
        return [422, { message: "head does not exist" }];
      if ([...this.pulls.values()].some((pr) => pr.head === b.head && pr.state === "open"))
        return [
          422,
          {
            // As GitHub words it: the reason is in `errors`, the message is generic.
            message: "Validation Failed",
            errors: [
              {
                resource: "PullRequest",
                code: "custom",
                message: `A pull request already exists for ${this.owner}:${String(b.head)}.`,
              },
            ],
          },
        ];
      const number = this.nextIssue++;
      const pr: ApiPull = {
        number,
        head: String(b.head),
        base: String(b.base),
        title: String(b.title),
        body: String(b.body ?? ""),
        state: "open",
        merged: false,
        draft: b.draft === true,
        reviewers: [],
        user: this.user(this.botLogin),
      };
      this.pulls.set(number, pr);
      return [201, this.restPull(pr)];
    }
    if ((m = /^\/pulls\/([0-9]+)$/.exec(sub)) && method === "GET") {
      const pr = this.pulls.get(Number(m[1]));
      return pr ? [200, this.restPull(pr)] : notFound();
    }
    if ((m = /^\/pulls\/([0-9]+)\/files$/.exec(sub)) && method === "GET") {
      const pr = this.pulls.get(Number(m[1]));
      if (!pr) return notFound();
      // As GitHub: per_page up to 100 (default 30), numbered pages, at most 3000 files in all.
      const files = (pr.files ?? this.changedFiles(pr))
        .map((f) => (typeof f === "string" ? { filename: f, status: "modified" } : f))
        .slice(0, 3000);
      const perPage = Math.min(100, Number(q.get("per_page") ?? 30));
      const page = Number(q.get("page") ?? 1);
      return [200, files.slice((page - 1) * perPage, page * perPage)];
    }
    if ((m = /^\/pulls\/([0-9]+)\/reviews$/.exec(sub)) && method === "GET") {
      const pr = this.pulls.get(Number(m[1]));
      if (!pr) return notFound();
      return [
        200,
        (pr.approvedBy ?? []).map((login, i) => ({
          id: i + 1,
          user: this.user(login),
          state: "APPROVED",
        })),
      ];
    }
    if ((m = /^\/pulls\/([0-9]+)\/requested_reviewers$/.exec(sub)) && method === "POST") {
      const pr = this.pulls.get(Number(m[1]));
      if (!pr) return notFound();
      pr.reviewers.push(
        ...((b.reviewers as string[]) ?? []),
        ...((b.team_reviewers as string[]) ?? []),
      );
      return [201, this.restPull(pr)];
    }
    if ((m = /^\/actions\/workflows\/([^/]+)\/runs$/.exec(sub)) && method === "GET") {
      const file = `.github/workflows/${m[1]}`;
      const runs = this.listedRuns.filter(
        (r) => r.path === file || String(r.workflow_id) === m?.[1],
      );
      return [200, { total_count: runs.length, workflow_runs: runs }];
    }
    if ((m = /^\/actions\/runs\/([0-9]+)$/.exec(sub)) && method === "GET") {
      const run = this.listedRuns.find((r) => String(r.id) === m?.[1]);
      return run ? [200, run] : notFound();
    }
    if ((m = /^\/actions\/workflows\/([^/]+)\/dispatches$/.exec(sub)) && method === "POST") {
      this.dispatches.push({ workflow: m[1] as string, ref: String(b.ref), inputs: b.inputs });
      // GitHub creates the run and answers with its clock in `date` (whole seconds); with
      // return_run_details (and a server that has it) the answer is 200 with the run's id.
      const at = this.clock();
      at.setUTCMilliseconds(0);
      const run: ApiWorkflowRun = {
        id: 7000 + this.workflowRuns.length,
        workflow: m[1] as string,
        ref: String(b.ref),
        inputs: (b.inputs as Record<string, string> | undefined) ?? {},
        createdAt: at.toISOString().replace(".000Z", "Z"),
        actor: this.botLogin,
      };
      this.workflowRuns.push(run);
      const date = { date: at.toUTCString() };
      if (b.return_run_details === true && this.runDetails)
        return [
          200,
          {
            workflow_run_id: run.id,
            run_url: `${API}/repos/${this.owner}/${this.name}/actions/runs/${run.id}`,
            html_url: `https://github.com/${this.owner}/${this.name}/actions/runs/${run.id}`,
          },
          date,
        ];
      return [204, "", date];
    }
    return notFound();
  }

  private readonly pullIssues = new Map<number, ApiIssue>();
  private pullIssue(n: number): ApiIssue {
    let i = this.pullIssues.get(n);
    if (!i) {
      const pr = this.pulls.get(n);
      i = {
        number: n,
        title: pr?.title ?? "",
        body: pr?.body ?? "",
        state: "open",
        state_reason: null,
        labels: [],
        user: pr?.user ?? this.user(this.botLogin),
        pull_request: true,
      };
      this.pullIssues.set(n, i);
    }
    return i;
  }

  pullLabels(n: number): string[] {
    return this.pullIssues.get(n)?.labels ?? [];
  }
}

/** A weak ETag for a JSON answer, as GitHub sends. */
function etagOf(body: unknown): string {
  return `W/"${createHash("sha256").update(JSON.stringify(body)).digest("hex").slice(0, 40)}"`;
}

function notFound(): Reply {
  return [404, { message: "Not Found" }];
}

export function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}
