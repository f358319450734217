import {
  answeredCommands,
  issueOfComment,
  listLabelledIssues,
  listUpdatedComments,
  readIssueReplays,
  type RestReconcileComment,
} from "../github/reconcile-reader.js";
import { readStatusComment } from "../../runtime/run-service/status-comment.js";
import type { Octokit } from "../github/octokit-port.js";
import type { AppMetrics } from "../metrics/metrics.js";
import { LockTimeoutError, type Coordination } from "../../runtime/coordination.js";
import {
  RECONCILE_WINDOW_MS,
  isCommandComment,
  issueReplays,
  runDueAt,
  type Replay,
} from "../../runtime/reconcile.js";
import { WAITING_LABEL, type IssueAddress } from "../../runtime/run-service/wake-ups.js";

/**
 * The app's safety net, level-triggered like a Kubernetes controller's resync: every interval
 * (and once at start) each repository of each installation is looked at again, and what was
 * asked for but never done is done — a command whose delivery was lost or whose work failed after
 * GitHub was answered (GitHub never redelivers a 2xx), a run whose next step never came (its
 * save's `issue_comment.edited` was lost), a wait whose wake-up was lost. Cheaply: the
 * repository's recently updated comments and its waiting issues are asked for conditionally
 * (`If-None-Match`), so an idle sweep is two 304s per repository, which GitHub does not count
 * against the rate limit. What one sweep found and could not do is tried again by the next.
 */

export interface ReconcileSweepOptions {
  /** How often every repository is swept (default 2 minutes). */
  intervalMs?: number;
  /** Sweep once at start (default true): a restarted process finds what the last one left. */
  onStart?: boolean;
  /**
   * How long a run's own continuation (the edit of its status comment) is given to come before a
   * sweep carries the run on (default 30 s).
   */
  graceMs?: number;
  /** Given the sweep once the app is loaded (tests run it with their own clock). */
  onSweep?: (sweep: ReconcileSweep) => void;
}

export const DEFAULT_RECONCILE_INTERVAL_MS = 2 * 60_000;

/** The sweep's options: as given, else from the config (RECONCILE_INTERVAL; 0: no sweep). */
export function sweepOptions(
  given: false | ReconcileSweepOptions | undefined,
  configuredMs: number | undefined,
): false | ReconcileSweepOptions {
  if (given !== undefined) return given;
  if (configuredMs === 0) return false;
  return configuredMs ? { intervalMs: configuredMs } : {};
}
const DEFAULT_GRACE_MS = 30_000;
/** Pages (of 100) of a repository's updated comments read per sweep. */
const MAX_COMMENT_PAGES = 5;
const MAX_WAITING_PAGES = 10;
const MAX_REPOSITORIES = 1000;
/** The installations' repositories are listed again after this long. */
const REPOSITORIES_TTL_MS = 10 * 60_000;
/** A sweep's record of a repository is kept this long without a sweep. */
const STATE_TTL_MS = 7 * 24 * 3_600_000;
/** Comments updated this long before the newest one seen are looked at again (late arrivals). */
const OVERLAP_MS = 60_000;
/** How many answered commands a repository's record remembers (enough for OVERLAP_MS). */
const MAX_ANSWERED = 200;

/** What the app gives the sweep. */
export interface SweepHost {
  coordination: Coordination;
  clock: () => Date;
  metrics: AppMetrics;
  log: (level: "info" | "warn" | "error", line: string) => void;
  appId: number;
  /** The bot account's login, when configured (else asked of GitHub once). */
  botLogin?: string;
  /** The app's Octokit (no installation) or an installation's. */
  auth: (installation?: number) => Promise<Octokit>;
  /** Handles a delivery as if GitHub had sent it. */
  receive: (id: string, name: string, payload: unknown) => Promise<void>;
  /** The key that seals the runs' state in a repository's status comments. */
  stateKey: (installation: number, repository: number) => Buffer;
  /** Carries on the open runs of an issue (continuation and tick), inside its lock. */
  carryOn: (address: IssueAddress, eventId: string) => Promise<void>;
  /** Ticks every run of an issue, inside its lock. */
  tick: (address: IssueAddress, eventId: string) => Promise<void>;
  /** Whether the store knows which runs of the issue wait for a time (their wake-ups are set). */
  waitKnown: (address: IssueAddress) => Promise<boolean>;
}

interface Repository {
  id: number;
  name: string;
  owner: { login: string };
  default_branch: string;
}

/** What a sweep remembers of a repository, in the coordination store (shared by replicas). */
interface RepoSweepState {
  /** The `since` of the comment listing: moved on once a day, so its ETag mostly holds. */
  since: string;
  etag?: string;
  /** The newest update looked at. */
  seen?: string;
  waitingEtag?: string;
  waiting?: number[];
  /** Status comments whose run needs carrying on, by comment id: its issue and from when. */
  watch: Record<string, { issue: number; at: number }>;
  /** Issues whose replays failed: read again by the next sweep. */
  pending: number[];
  /** Commands lately found answered (or replayed): not asked about again (the newest kept). */
  answered?: number[];
}

/** What one sweep did (for logs and tests). */
export interface SweepReport {
  repositories: number;
  replayed: number;
  carriedOn: number;
  woken: number;
  failed: number;
}

export class ReconcileSweep {
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<SweepReport> | undefined;
  private stopped = false;
  private repositories:
    { at: number; list: { installation: number; repo: Repository }[] } | undefined;
  private login: string | undefined;

  constructor(
    private readonly host: SweepHost,
    private readonly o: ReconcileSweepOptions = {},
  ) {
    this.login = host.botLogin;
  }

  /** How long after it was accepted anything is done at the latest: an interval and one pass. */
  get intervalMs(): number {
    return this.o.intervalMs ?? DEFAULT_RECONCILE_INTERVAL_MS;
  }

  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.run().catch(() => undefined), this.intervalMs);
    this.timer.unref();
    if (this.o.onStart !== false) void this.run().catch(() => undefined);
  }

  /** One sweep of every repository (one at a time: a sweep under way is joined). */
  run(): Promise<SweepReport> {
    if (this.stopped) return Promise.resolve(emptyReport());
    this.running ??= this.sweepAll().finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private async sweepAll(): Promise<SweepReport> {
    const report = emptyReport();
    let list: { installation: number; repo: Repository }[];
    try {
      list = await this.repositoriesToSweep();
    } catch (err) {
      this.host.log(
        "error",
        `reconcile: the installations' repositories could not be listed: ${String(err)}`,
      );
      report.failed++;
      return report;
    }
    for (const { installation, repo } of list) {
      if (this.stopped) break;
      try {
        const octokit = await this.host.auth(installation);
        await this.host.coordination.withLock(
          `reconcile:${installation}:${repo.id}`,
          () => this.sweepRepository(octokit, installation, repo, report),
          // One sweep per repository at a time, across replicas: another one sweeps it now.
          { waitMs: 0, leaseMs: 60_000 },
        );
        report.repositories++;
      } catch (err) {
        if (err instanceof LockTimeoutError) continue;
        report.failed++;
        this.host.log(
          "warn",
          `reconcile: ${repo.owner.login}/${repo.name} could not be swept (${String(err)}); the next sweep tries again`,
        );
      }
    }
    return report;
  }

  /** Every installation's repositories (listed again every REPOSITORIES_TTL_MS). */
  private async repositoriesToSweep(): Promise<{ installation: number; repo: Repository }[]> {
    const now = Date.now();
    if (this.repositories && now - this.repositories.at < REPOSITORIES_TTL_MS)
      return this.repositories.list;
    const appOctokit = await this.host.auth();
    if (!this.login) {
      const { data } = await appOctokit.request("GET /app");
      this.login = `${(data as { slug: string }).slug}[bot]`;
    }
    const installations = await appOctokit.paginate(appOctokit.rest.apps.listInstallations, {
      per_page: 100,
    });
    const list: { installation: number; repo: Repository }[] = [];
    for (const installation of installations) {
      const octokit = await this.host.auth(installation.id);
      const repos = (await octokit.paginate(octokit.rest.apps.listReposAccessibleToInstallation, {
        per_page: 100,
      })) as Repository[];
      if (repos.length > MAX_REPOSITORIES)
        this.host.log(
          "warn",
          `reconcile: installation ${installation.id}: only the first ${MAX_REPOSITORIES} of ${repos.length} repositories are swept`,
        );
      for (const repo of repos.slice(0, MAX_REPOSITORIES))
        list.push({ installation: installation.id, repo });
    }
    this.repositories = { at: now, list };
    return list;
  }

  private async sweepRepository(
    octokit: Octokit,
    installation: number,
    repo: Repository,
    report: SweepReport,
  ): Promise<void> {
    const key = `reconcile:${installation}:${repo.id}`;
    const now = this.host.clock().getTime();
    const state = (await this.host.coordination.get<RepoSweepState>(key)) ?? fresh(now);
    // The listing's `since` moves once a day: between moves an idle listing is answered 304.
    if (Date.parse(state.since) < now - 2 * RECONCILE_WINDOW_MS) {
      state.since = new Date(now - RECONCILE_WINDOW_MS).toISOString();
      delete state.etag;
    }
    const address = (issue: number): IssueAddress => ({
      installation,
      repository: repo.id,
      owner: repo.owner.login,
      repo: repo.name,
      defaultBranch: repo.default_branch,
      issue,
    });
    const commands = await this.readUpdates(octokit, installation, repo, state, now);
    await this.wakeWaiting(octokit, repo, state, address, now, report);
    const pending = new Set(state.pending);
    // An issue's commands from the listing, or (an issue whose replays failed) read again.
    const todo = new Map<number, RestReconcileComment[] | undefined>(commands);
    for (const issue of pending) if (!todo.has(issue)) todo.set(issue, undefined);
    for (const [issue, listed] of todo) {
      try {
        const replays = listed
          ? await this.unanswered(octokit, repo, listed, now, state)
          : await readIssueReplays(octokit, {
              owner: repo.owner.login,
              repo: repo.name,
              issue,
              botLogin: this.botLogin(),
              since: now - RECONCILE_WINDOW_MS,
              labels: false,
              answersOf: () => [],
              ignoredLabels: new Set(),
              onCut: (line) =>
                this.host.log("warn", `reconcile: ${repo.owner.login}/${repo.name}${line}`),
            });
        await this.replay(octokit, installation, repo, issue, replays, report);
        remember(
          state,
          replays.map((r) => (r.kind === "command" ? r.comment.id : 0)),
        );
        pending.delete(issue);
      } catch (err) {
        const status = (err as { status?: number }).status;
        if (status === 404 || status === 410) {
          pending.delete(issue); // the issue is gone (or moved): nothing to do there
          continue;
        }
        pending.add(issue);
        report.failed++;
        this.host.log(
          "warn",
          `reconcile: ${repo.owner.login}/${repo.name}#${issue}: replays failed (${String(err)}); the next sweep tries again`,
        );
      }
    }
    state.pending = [...pending];
    await this.carryOnDue(state, address, now, report);
    await this.host.coordination.put(key, state, STATE_TTL_MS);
  }

  /**
   * The repository's comments updated since the last sweep (conditionally): the commands among
   * them, by issue; the runs in this app's status comments are watched when they need carrying on.
   */
  private async readUpdates(
    octokit: Octokit,
    installation: number,
    repo: Repository,
    state: RepoSweepState,
    now: number,
  ): Promise<Map<number, RestReconcileComment[]>> {
    const commands = new Map<number, RestReconcileComment[]>();
    const listed = await listUpdatedComments(octokit, {
      owner: repo.owner.login,
      repo: repo.name,
      since: state.since,
      maxPages: MAX_COMMENT_PAGES,
      ...(state.etag ? { etag: state.etag } : {}),
    });
    if (listed.notModified) return commands;
    if (listed.etag) state.etag = listed.etag;
    else delete state.etag;
    if (!listed.complete)
      this.host.log(
        "warn",
        `reconcile: ${repo.owner.login}/${repo.name}: more than ${MAX_COMMENT_PAGES * 100} comments were updated since the last sweep; the older ones are not looked at`,
      );
    const from = state.seen ? Date.parse(state.seen) - OVERLAP_MS : -Infinity;
    const key = this.host.stateKey(installation, repo.id);
    for (const c of listed.items) {
      const issue = issueOfComment(c);
      const updated = Date.parse(c.updated_at ?? c.created_at);
      if (issue === undefined || updated < from) continue;
      if (this.byThisApp(c)) {
        const read = readStatusComment(c.body ?? "", { key, issue, comment: String(c.id) });
        const at = read.ok
          ? runDueAt(read.run, updated, this.o.graceMs ?? DEFAULT_GRACE_MS)
          : undefined;
        if (at === undefined) delete state.watch[String(c.id)];
        else state.watch[String(c.id)] = { issue, at };
      } else if (
        isCommandComment(c) &&
        Date.parse(c.created_at) >= now - RECONCILE_WINDOW_MS &&
        !state.answered?.includes(c.id)
      ) {
        commands.set(issue, [...(commands.get(issue) ?? []), c]);
      }
      if (!state.seen || updated > Date.parse(state.seen))
        state.seen = c.updated_at ?? c.created_at;
    }
    return commands;
  }

  /** The commands of one issue the bot has not answered, oldest first. */
  private async unanswered(
    octokit: Octokit,
    repo: Repository,
    comments: RestReconcileComment[],
    now: number,
    state: RepoSweepState,
  ): Promise<Replay<RestReconcileComment>[]> {
    const login = this.botLogin();
    const answered = await answeredCommands(octokit, repo.owner.login, repo.name, comments, login);
    remember(state, [...answered]);
    return issueReplays({
      comments,
      labelEvents: [],
      answered,
      answeredEvents: new Set(),
      ignoredLabels: new Set(),
      since: now - RECONCILE_WINDOW_MS,
    });
  }

  /** Each replay handled as its webhook would be, under its stable id (done once). */
  private async replay(
    octokit: Octokit,
    installation: number,
    repo: Repository,
    number: number,
    replays: Replay<RestReconcileComment>[],
    report: SweepReport,
  ): Promise<void> {
    if (replays.length === 0) return;
    // The issue as it is now (its labels, body and comment count), read once.
    const issue = await octokit.rest.issues
      .get({ owner: repo.owner.login, repo: repo.name, issue_number: number })
      .then(
        ({ data }) => data,
        (err: { status?: number }) => {
          if (err.status === 404 || err.status === 410) return undefined; // gone: nothing to do
          throw err;
        },
      );
    if (!issue) return;
    const repository = {
      id: repo.id,
      name: repo.name,
      full_name: `${repo.owner.login}/${repo.name}`,
      owner: repo.owner,
      default_branch: repo.default_branch,
    };
    for (const r of replays) {
      if (r.kind !== "command") continue;
      this.host.log("info", `reconcile: ${repository.full_name}#${number}: replaying ${r.id}`);
      await this.host.receive(r.id, "issue_comment", {
        action: "created",
        issue,
        comment: r.comment,
        repository,
        installation: { id: installation },
        sender: r.comment.user,
      });
      this.host.metrics.reconcileReplays.inc({ kind: "command" });
      report.replayed++;
    }
  }

  /**
   * The issues carrying the waiting label (conditionally) whose wake-ups the store does not know
   * (a store that lost them) get a tick, which sets them again.
   */
  private async wakeWaiting(
    octokit: Octokit,
    repo: Repository,
    state: RepoSweepState,
    address: (issue: number) => IssueAddress,
    now: number,
    report: SweepReport,
  ): Promise<void> {
    const listed = await listLabelledIssues(octokit, {
      owner: repo.owner.login,
      repo: repo.name,
      label: WAITING_LABEL.name,
      maxPages: MAX_WAITING_PAGES,
      ...(state.waitingEtag ? { etag: state.waitingEtag } : {}),
    });
    if (!listed.notModified) {
      if (listed.etag) state.waitingEtag = listed.etag;
      else delete state.waitingEtag;
      state.waiting = listed.items;
    }
    for (const issue of state.waiting ?? []) {
      if (await this.host.waitKnown(address(issue))) continue;
      try {
        this.host.log(
          "info",
          `reconcile: ${repo.owner.login}/${repo.name}#${issue}: waits for a time the store does not know; ticking it`,
        );
        await this.host.tick(address(issue), `reconcile-wake:${now}`);
        this.host.metrics.reconcileReplays.inc({ kind: "wake" });
        report.woken++;
      } catch (err) {
        // Still unknown to the store: the next sweep tries again.
        report.failed++;
        this.host.log(
          "warn",
          `reconcile: ${repo.owner.login}/${repo.name}#${issue}: the tick failed (${String(err)}); the next sweep tries again`,
        );
      }
    }
  }

  /** The watched runs due for carrying on, one issue at a time. */
  private async carryOnDue(
    state: RepoSweepState,
    address: (issue: number) => IssueAddress,
    now: number,
    report: SweepReport,
  ): Promise<void> {
    const due = new Set(
      Object.values(state.watch)
        .filter((w) => w.at <= now)
        .map((w) => w.issue),
    );
    for (const issue of due) {
      const a = address(issue);
      try {
        this.host.log("info", `reconcile: ${a.owner}/${a.repo}#${issue}: carrying its runs on`);
        await this.host.carryOn(a, `reconcile:${now}`);
        this.host.metrics.reconcileReplays.inc({ kind: "carry-on" });
        report.carriedOn++;
        // What the runs do next shows in their status comments, which the next listing reads.
        for (const [id, w] of Object.entries(state.watch))
          if (w.issue === issue) delete state.watch[id];
      } catch (err) {
        report.failed++;
        this.host.log(
          "warn",
          `reconcile: ${a.owner}/${a.repo}#${issue}: its runs could not be carried on (${String(err)}); the next sweep tries again`,
        );
      }
    }
  }

  private botLogin(): string {
    return this.login ?? "";
  }

  /** This app's own comment: made with its installation token (or by its bot account). */
  private byThisApp(c: RestReconcileComment): boolean {
    return (
      c.user?.type === "Bot" &&
      (c.performed_via_github_app?.id === this.host.appId || c.user.login === this.login)
    );
  }
}

/** Commands known answered: the newest MAX_ANSWERED are kept. */
function remember(state: RepoSweepState, ids: number[]): void {
  const known = new Set([...(state.answered ?? []), ...ids.filter((id) => id > 0)]);
  state.answered = [...known].sort((a, b) => a - b).slice(-MAX_ANSWERED);
}

function fresh(now: number): RepoSweepState {
  // A store without a record (the first sweep, or the in-memory store after a restart) looks
  // back as far as commands are replayed.
  return { since: new Date(now - RECONCILE_WINDOW_MS).toISOString(), watch: {}, pending: [] };
}

function emptyReport(): SweepReport {
  return { repositories: 0, replayed: 0, carriedOn: 0, woken: 0, failed: 0 };
}
