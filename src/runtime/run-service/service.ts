import type { Reply, WorkflowRunFacts } from "../../core/engine/events.js";
import type { HostCapabilities } from "../../core/engine/requirements.js";
import type { NormalizedAlert } from "../../core/alerts/types.js";
import type { PlaybookBundle } from "../../core/steps/types.js";
import type { AiAdapter } from "../ai.js";
import type { Coordination, Fence, LockOptions } from "../coordination.js";
import type { GitHubPort, ThreadComment } from "../github-port.js";
import { withDeadline } from "../lru.js";
import { openingLabelEventId } from "../reconcile.js";
import type { TraceLog } from "../ports.js";
import {
  IssueController,
  type IssueRef,
  type PlaybookCatalog,
  type RunObserver,
} from "./controller.js";
import { StatusCommentCache } from "./status-ids.js";
import { IssueWakeUps, WAITING_LABEL, type IssueAddress } from "./wake-ups.js";

/** How long an issue's status-comment ids are remembered across events, and how many at most. */
const STATUS_IDS_TTL_MS = 30 * 24 * 3_600_000;
const MAX_STATUS_IDS = 100;
/** How long a repository's awaited workflows route their `workflow_run` to waiting issues. */
const AWAITED_TTL_MS = 30 * 24 * 3_600_000;

/** What the service needs of the host of one repository (GitHub, through Octokit, in the app). */
export interface RepositoryHost {
  /** The port one issue's work goes through; it remembers status comments in `statusIds`. */
  port(statusIds: StatusCommentCache): GitHubPort;
  /** The playbooks at the default branch's head (asked only when an event needs them). */
  catalog(): Promise<PlaybookCatalog>;
  /** The playbooks at a commit a run is pinned to; `untrusted` when it is not on the default branch. */
  catalogAt(commit: string): Promise<PlaybookCatalog | "untrusted" | undefined>;
  /** The issue as it is now; undefined when it is gone. */
  issue(number: number): Promise<IssueRef | undefined>;
  /** Puts the waiting label on an issue or takes it off. */
  setWaitingLabel(issue: number, change: "add" | "remove"): Promise<void>;
}

/** Where an event happened: the issue's address, what is known of it, and its repository's host. */
export interface IssueAt {
  address: IssueAddress;
  issue: IssueRef;
  repository: RepositoryHost;
}

/** A person or bot that did something, as the event names them. */
export interface Sender {
  login: string;
  bot: boolean;
}

/**
 * What happens on an issue, in the service's words: every host (the app's webhooks, the Actions
 * runtime, the playground, `simulate`) translates its world into these.
 */
export type IssueEvent =
  | { type: "labeled"; label: string; by: Sender; eventId: string }
  | { type: "opened"; labels: string[]; byText: boolean; by: Sender; eventId: string }
  | { type: "new-comment"; comment: ThreadComment; eventId: string }
  | { type: "comment-changed"; commentId: string; eventId: string }
  | { type: "continuation"; commentId: string; eventId: string; edited?: ThreadComment }
  | { type: "status-edited"; comment: ThreadComment; before: string | undefined; by: string }
  | { type: "status-deleted"; comment: ThreadComment; by: string }
  | { type: "pull-request-closed"; number: number; merged: boolean; url: string; eventId: string }
  | {
      type: "workflow-run";
      workflow: string;
      runId: number;
      conclusion: string;
      eventId: string;
      details: { run?: WorkflowRunFacts; url?: string };
    }
  | { type: "alert"; bundle: PlaybookBundle; alert: NormalizedAlert; eventId: string }
  | { type: "tick"; run?: string; eventId: string }
  | { type: "carry-on"; eventId: string };

export interface RunServiceOptions {
  coordination: Coordination;
  clock: () => Date;
  /** The issue lock's wait and lease. */
  lock: LockOptions;
  /** How long one event's work on one issue may take. */
  eventTimeoutMs: number;
  /** The state key of a repository: seals every state block to its comment. */
  stateKey(installation: number, repository: number): Buffer;
  host?: HostCapabilities;
  ai?: AiAdapter;
  /** Where a repository's runs' trace records go; undefined: not kept. */
  trace?(repository: string): TraceLog | undefined;
  /** Told what the runs of an issue do (metrics, logs). */
  observe?(issue: string): RunObserver;
  /** true: a run goes on until it waits (simulate, the playground); false: one step per event. */
  inProcess: boolean;
  /** The store lives for one event only (the Actions runtime): the waiting label carries the wait. */
  ephemeralStore?: boolean;
  /** Approvals a state names without their comments are believed (see ControllerOptions). */
  stateKeyPrivate?: boolean;
  /** A wake-up was recorded for this time: the timer should look then. */
  armTimer(at: number): void;
}

/** What one event's work on one issue leaves to do before the issue's lock is let go. */
interface IssueWork {
  statusIds: StatusCommentCache;
  /** Shared-store writes the work started (awaited workflows). */
  writes: Promise<unknown>[];
  /** Every run of the issue was ticked, and none is left unfinished. */
  noneLeft?: boolean;
  /** A run began to wait for a workflow during this work. */
  awaitsWorkflow?: boolean;
}

/**
 * The one door to runs on issues. A host hands it an event on an issue; it takes the issue's lock,
 * loads the issue's runs, lets the event move them (the controller asks the engine once and
 * drives the interpreter), and keeps what replicas share: the status comments' ids, the awaited
 * workflows, the wake-ups and the waiting label.
 */
export class RunService {
  constructor(private readonly o: RunServiceOptions) {}

  /** The lock an issue's work holds: a delivery's dedupe takes it too. */
  static lockKey(a: Pick<IssueAddress, "owner" | "repo" | "issue">): string {
    return `issue:${a.owner}/${a.repo}#${a.issue}`;
  }

  /** One event on one issue, alone across replicas (the issue's lock), within the event's time. */
  send(at: IssueAt, event: IssueEvent): Promise<void> {
    return this.locked(at, (fence) => this.sendLocked(at, event, fence));
  }

  /** `work` under the issue's lock, within one event's time. */
  private locked<T>(at: IssueAt, work: (fence: Fence) => Promise<T>): Promise<T> {
    const { owner, repo, issue } = at.address;
    return withDeadline(
      this.o.coordination.withLock(RunService.lockKey(at.address), work, this.o.lock),
      this.o.eventTimeoutMs,
      `work on ${owner}/${repo}#${issue}`,
    );
  }

  /**
   * The same, for a caller that holds the issue's lock already (a delivery's dedupe): `fence` is
   * that lock, confirmed before each write the event's work makes.
   */
  async sendLocked(at: IssueAt, event: IssueEvent, fence?: Fence): Promise<void> {
    await this.issueWork(at, fence, async (w, controller) => {
      if (event.type === "tick" || event.type === "carry-on") {
        const issue = await at.repository.issue(at.address.issue);
        if (!issue) return; // gone
        at = { ...at, issue };
      }
      await dispatch(controller(at), event, w);
    });
  }

  /**
   * The work of one event on one issue. The issue's status-comment ids come from the shared store
   * and go back after the work succeeded (after a failure the next event lists the thread), so
   * every replica sees the runs another one started.
   */
  private async issueWork(
    at: IssueAt,
    fence: Fence | undefined,
    work: (w: IssueWork, controller: (at: IssueAt) => IssueController) => Promise<void>,
  ): Promise<void> {
    const { owner, repo, issue } = at.address;
    const issueKey = `${owner}/${repo}#${issue}`;
    const storeKey = `status-ids:${issueKey}`;
    const known = await this.o.coordination.get<string[]>(storeKey);
    const w: IssueWork = { statusIds: new StatusCommentCache(), writes: [] };
    if (known) {
      w.statusIds.set(issueKey, known);
      await this.o.coordination.delete(storeKey);
    }
    let last: IssueAt = at;
    let wakeUps: IssueWakeUps | undefined;
    await work(w, (now) => {
      last = now;
      wakeUps = this.wakeUpsOf(now.address);
      return this.controllerOf(now, w, wakeUps, fence);
    });
    for (const r of await Promise.allSettled(w.writes)) if (r.status === "rejected") throw r.reason;
    if (wakeUps) await this.label(last, w, wakeUps);
    const ids = w.statusIds.get(issueKey) ?? known;
    if (ids && ids.length <= MAX_STATUS_IDS)
      await this.o.coordination.put(storeKey, ids, STATUS_IDS_TTL_MS);
  }

  private wakeUpsOf(address: IssueAddress): IssueWakeUps {
    return new IssueWakeUps(this.o.coordination, address, (at) => this.o.armTimer(at));
  }

  /** The waiting label follows the issue's waits for a time once the work succeeded. */
  private async label(at: IssueAt, w: IssueWork, wakeUps: IssueWakeUps): Promise<void> {
    const { labels } = at.issue;
    const labelled = labels ? labels.includes(WAITING_LABEL.name) : undefined;
    const ephemeral = this.o.ephemeralStore === true;
    // In the Actions runtime a run waiting for a workflow carries the label too: its
    // `workflow_run` finds the issue by it, as no store outlives the workflow run.
    const change =
      ephemeral && w.awaitsWorkflow && labelled !== true
        ? "add"
        : await wakeUps.labelChange(labelled);
    // A store that lives for one event only does not know which runs wait for a time: the label
    // goes once a tick of them all leaves none unfinished.
    if (change === "remove" && ephemeral && !w.noneLeft) return;
    if (change) await at.repository.setWaitingLabel(at.address.issue, change);
  }

  private controllerOf(
    at: IssueAt,
    w: IssueWork,
    wakeUps: IssueWakeUps,
    fence: Fence | undefined,
  ): IssueController {
    const { address, repository } = at;
    const { owner, repo } = address;
    const trace = this.o.trace?.(`${owner}/${repo}`);
    const observe = this.o.observe?.(`${owner}/${repo}#${address.issue}`);
    return new IssueController({
      port: repository.port(w.statusIds),
      wakeUps,
      ...(fence ? { fence } : {}),
      ...(observe ? { observe } : {}),
      ...(trace ? { trace } : {}),
      ...(this.o.host ? { host: this.o.host } : {}),
      ...(this.o.ai ? { ai: this.o.ai } : {}),
      ...(this.o.stateKeyPrivate ? { stateKeyPrivate: true } : {}),
      catalog: () => repository.catalog(),
      catalogAt: (commit) => repository.catalogAt(commit),
      stateKey: this.o.stateKey(address.installation, address.repository),
      memory: this.o.coordination,
      clock: this.o.clock,
      issue: at.issue,
      repo: { owner, name: repo, default_branch: address.defaultBranch },
      inProcess: this.o.inProcess,
      // A store that lives for one event cannot tell an older state put back from the newest
      // (the Actions runtime, whose state secret every workflow can read): a /cancel on the
      // thread is re-read before each effect instead.
      // For the same reason an approval counts only for the run its words name; and the reply
      // budget, which such a store forgets, is counted from the bot's replies on the thread.
      ...(this.o.ephemeralStore
        ? { cancelFacts: true, namedApprovals: true, markReplies: true }
        : {}),
      // Dispatched workflows a run waits for, by repository and workflow (its file name or id, as
      // the playbook names it): a route only; the step decides which run it awaits.
      onAwaitWorkflow: (workflow) => {
        w.awaitsWorkflow = true;
        const written = this.o.coordination.addToSet(
          awaitedKey(owner, repo, workflow),
          String(address.issue),
          AWAITED_TTL_MS,
        );
        written.catch(() => undefined); // reported when the work's writes are awaited
        w.writes.push(written);
      },
    });
  }

  /** The issues whose runs wait for a workflow of a repository (its file name or id). */
  async awaiting(owner: string, repo: string, workflow: string): Promise<number[]> {
    const members = await this.o.coordination.members(awaitedKey(owner, repo, workflow));
    return members.map(Number).filter(Number.isSafeInteger);
  }

  /** A run started for an alert, on the triage issue it opened: the reply says how it went. */
  async startForAlert(
    at: IssueAt,
    bundle: PlaybookBundle,
    alert: NormalizedAlert,
    eventId: string,
  ) {
    let reply: Reply | undefined;
    await this.locked(at, (fence) =>
      this.issueWork(at, fence, async (_w, controller) => {
        reply = await controller(at).startForAlert(bundle, alert, eventId);
      }),
    );
    return reply;
  }
}

function awaitedKey(owner: string, repo: string, workflow: string): string {
  return `awaited:${owner}/${repo}:${workflow}`;
}

/** Hands an event to the issue's controller: the one place an event becomes a controller call. */
async function dispatch(c: IssueController, e: IssueEvent, w: IssueWork): Promise<void> {
  switch (e.type) {
    case "labeled":
      return void (await c.onLabeled(e.label, e.by, e.eventId));
    case "opened":
      return opened(c, e);
    case "new-comment":
      return c.onComment(e.comment, e.eventId);
    case "comment-changed":
      return c.onCommentChanged(e.commentId, e.eventId);
    case "continuation":
      return c.onContinuation(e.commentId, e.eventId, e.edited);
    case "status-edited":
      return c.onStatusCommentEdited(e.comment, e.before, e.by);
    case "status-deleted":
      return c.onStatusCommentDeleted(e.comment, e.by);
    case "pull-request-closed":
      return c.onPullRequestClosed(e.number, e.merged, e.eventId, e.url);
    case "workflow-run":
      return c.onWorkflowRun(e.workflow, e.runId, e.conclusion, e.eventId, e.details);
    case "alert":
      return void (await c.startForAlert(e.bundle, e.alert, e.eventId));
    case "carry-on":
      return void (await c.carryOn(e.eventId));
    case "tick":
      await c.onTick(e.eventId, e.run || undefined);
      if (!e.run) w.noneLeft = !(await c.hasUnfinishedRuns());
  }
}

/** A new issue: each of its labels may start a run; failing that, its text may (`on.issues`). */
async function opened(c: IssueController, e: IssueEvent & { type: "opened" }): Promise<void> {
  let named = false;
  // Each label under the opening's id: GitHub's `issues.labeled` for it is the same start.
  for (const label of e.labels)
    named = (await c.onLabeled(label, e.by, openingLabelEventId(label))) || named;
  if (!named && e.byText) await c.onOpened(e.by, e.eventId);
}
