import { createHmac } from "node:crypto";
import type { EngineEnv, StartRequest, StartResult } from "../../core/engine/engine.js";
import type {
  CommandName,
  Message,
  Reply,
  RunEvent,
  WorkflowRunFacts,
} from "../../core/engine/events.js";
import { collectInputs, parseIssueForm, type InputSources } from "../../core/engine/inputs.js";
import { selectForIssue } from "../../core/alerts/select.js";
import {
  describeUnmet,
  unmetRequirements,
  type HostCapabilities,
} from "../../core/engine/requirements.js";
import {
  atLeast,
  DEFAULT_RUN_PERMISSION,
  permissionRank,
  runPermissionOf,
} from "../../core/engine/policy.js";
import { playbookError, type PlaybookError } from "../../core/engine/errors.js";
import { RunDriver, beginRun } from "./driver.js";
import { ApprovalGuard } from "./approval-guard.js";
import { REPLY_BUDGET, markedReply, replyBudgetKey } from "./reply-budget.js";
import {
  approvalPromptLine,
  commentRunToken,
  runNamesComment,
  unnamedApproval,
  withOlderRuns,
} from "./named-approvals.js";
import { defaultBranchRefusal } from "./default-branch-guard.js";
import { cancelStands } from "./cancel-guard.js";
import { RecordingScheduler } from "../time.js";
import type { Scheduler } from "../ports.js";
import type { IssueWakeUps } from "./wake-ups.js";
import type { Handoff, TraceLog } from "../ports.js";
import { handoffOrigin } from "../../core/trace/build.js";
import {
  MAX_TRACE,
  activeFrame,
  isFinished,
  pushBounded,
  tokenChars,
  type Actor,
  type RunContext,
  type RunOrigin,
  type RunState,
} from "../../core/engine/state.js";
import { commandLines } from "../../core/engine/lanes.js";
import { commandTarget, namedRun, type CandidateRun } from "../../core/engine/command-target.js";
import type { PlaybookBundle } from "../../core/steps/types.js";
import type { NormalizedAlert } from "../../core/alerts/types.js";
import { HELP_TEXT, parseCommands } from "../../core/engine/commands.js";
import { AdhocWork } from "./adhoc-work.js";
import { systematise } from "./systematise.js";
import type { AiAdapter } from "../ai.js";
import { issueTrace, refusalRecord, refusalTraceId, type Refusal } from "./issue-trace.js";
import { renderTraceComment } from "./trace-comment.js";
import { exportTrace, type TraceFormat } from "../../core/trace/export.js";
import type { GitHubPort, ThreadComment } from "../github-port.js";
import { graphOf } from "../../core/format/graph.js";
import type { Permission } from "../../core/format/types.js";
import { formatText } from "../../core/format/report/text.js";
import type { FileReport } from "../../core/rules/validate.js";
import type { CommandArgs, Effect } from "../../core/engine/events.js";
import type { EffectPerformer } from "../effects.js";
import { capAlertData, shortened } from "../../core/alerts/caps.js";
import {
  fittedReply,
  frozenNotice,
  invalidInputsNotice,
  requirementsNotice,
  invalidPlaybookNotice,
  labelRefusedNotice,
  messageComment,
  refusalReply,
  runList,
  startingNotice,
  statusDeletedNotice,
  statusEditedNotice,
} from "../../core/markdown/index.js";
import type { StateSeal } from "../state-codec.js";
import type { Coordination, Fence } from "../coordination.js";
import {
  MAX_INDEX_EVENTS,
  MAX_INDEX_OPEN,
  handledEvents,
  hasStateBlock,
  readIndexBlock,
  readStatusComment,
  renderStatusComment,
  withStarted,
  type OpenRunIndex,
} from "./status-comment.js";

/** The playbooks an issue can run: from the repository, its organisation and the bundled library. */
export interface PlaybookCatalog {
  get(id: string): PlaybookBundle | undefined;
  all(): PlaybookBundle[];
  /** The report of an invalid playbook with this id (or file name), to show on the issue. */
  problems?(id: string): FileReport | undefined;
  /** The file a playbook was read from and its text, where known. */
  sourceOf?(id: string): { file: string; source: string } | undefined;
}

export interface IssueRef {
  number: number;
  title: string;
  url: string;
  author: string;
  body?: string;
  /** How many comments the issue has (the webhook says): names the thread's last page. */
  comments?: number;
  /** The issue's labels, when the event says. */
  labels?: string[];
}

/**
 * What the app remembers across events, shared by its replicas through the coordination port (see
 * docs/running.md, "One replica, or several with Redis"): the highest state sequence number the app wrote or read for a run (a state
 * never goes back), replies to one person on one issue (the reply budget), and status comments
 * whose frozen notice has been posted (the thread is listed only once).
 */
export type RunMemory = Pick<Coordination, "raiseTo" | "spend" | "get" | "put">;

/** How long a run's sequence number and a frozen notice are remembered. */
export const RUN_MEMORY_TTL_MS = 90 * 24 * 3_600_000;

export { REPLY_BUDGET };

export interface ControllerOptions {
  port: GitHubPort;
  /**
   * The playbooks at the default branch's head, or how to get them: only starting a run needs
   * them (a run carries on with the playbooks of the commit it is pinned to), so an event that
   * only moves a run does not ask GitHub where the default branch is.
   */
  catalog: PlaybookCatalog | (() => Promise<PlaybookCatalog>);
  /** The repository's state key (`repositoryStateKey`): seals every state block to its comment. */
  stateKey: Buffer;
  clock: () => Date;
  /** The AI adapter: words a drafted playbook (`/systematise`); the mock leaves it as drafted. */
  ai?: AiAdapter;
  issue: IssueRef;
  repo: { owner: string; name: string; default_branch: string };
  /**
   * true: keep going until the run waits (CLI simulate, tests). false: one transition per event;
   * the app's own edit of the status comment brings the next (GitHub App).
   */
  inProcess: boolean;
  /**
   * The playbooks at an earlier commit, for runs pinned to it (absent: the current catalog);
   * `untrusted` when that commit is not reachable from the default branch.
   */
  catalogAt?: (commit: string) => Promise<PlaybookCatalog | "untrusted" | undefined>;
  /** Shared across events (one per app; the coordination port). */
  memory: RunMemory;
  /** Told when a run starts waiting for a dispatched workflow (the app routes workflow_run by it). */
  onAwaitWorkflow?: (workflow: string) => void;
  /**
   * Where the runs' waits for a time are recorded (the app's timer delivers them as ticks).
   * Absent: they are only written down, and the next event on the issue carries them on.
   */
  wakeUps?: IssueWakeUps;
  /** The secrets and tools this app has: a run whose playbooks require others does not start. */
  host?: HostCapabilities;
  /** Told what runs do (metrics and logs); absent: nobody is. */
  observe?: RunObserver;
  /** Where runs' trace records go (see src/runtime/trace.ts); absent: they are not kept. */
  trace?: TraceLog;
  /**
   * The issue's lock this event's work holds: confirmed with the store before each effect and
   * each save, so a replica whose lease ran out during a slow request writes nothing more.
   */
  fence?: Pick<Fence, "confirm">;
  /**
   * Whether the state key is this host's alone (the GitHub App's server): the guard then believes
   * who approved and re-checks only their roles. See `ApprovalGuardOptions.stateKeyPrivate`.
   */
  stateKeyPrivate?: boolean;
  /**
   * Re-read the thread for a `/cancel` against a run before each of its effects (see
   * cancel-guard.ts): for a host whose state secret the people it guards against can read.
   */
  cancelFacts?: boolean;
  /**
   * An approval counts for a run only when its words name the run (`/approve <run-id>`): for a
   * host whose state secret the people it guards against can read, so that a state they seal
   * cannot claim a maintainer's approval of another run. A bare `/approve` is answered with the
   * command to write, and the request for approval says it.
   */
  namedApprovals?: boolean;
  /**
   * Replies carry a hidden marker naming the person answered: for a host whose store lives for
   * one event, which counts the reply budget from the bot's own comments (see reply-budget.ts).
   */
  markReplies?: boolean;
}

/** What the controller reports as it goes: runs starting and changing status, effects, refusals. */
export interface RunObserver {
  /** A run started (its first state is saved). */
  started?(run: RunState): void;
  /** A saved run's status is not what it was when this event found it. */
  status?(run: RunState, before: RunState["status"]): void;
  /** A step's effect was performed (`ok`: it succeeded), in `ms`. */
  effect?(effect: Effect, ok: boolean, ms: number, run: RunState): void;
  /** The event was refused: a label or every command of a comment (its sender is told why). */
  refused?(): void;
}

/** A command's answer, and whether a run's engine gave it (and so traced it). */
type CommandReply = Reply & { inRun?: boolean };

interface LoadedRun {
  run: RunState;
  commentId: string;
  catalog: PlaybookCatalog;
}

/**
 * Which event a notice answers, hidden in it: a runtime that replays an issue's events (the
 * Actions runtime, whose pending runs GitHub may replace) knows from it that one was answered.
 */
export function answersMarker(eventId: string): string {
  return `\n<!-- playbook-bot:answers ${eventId.replace(/[^A-Za-z0-9:_.-]/g, "")} -->\n`;
}

/** The events a notice says it answers (see `answersMarker`). */
export function answeredEvents(body: string): string[] {
  return [...body.matchAll(/<!-- playbook-bot:answers ([A-Za-z0-9:_.-]+) -->/g)].map(
    (m) => m[1] as string,
  );
}

/** A command's words when there are none. */
const EMPTY_ARGS: CommandArgs = { positional: [], values: {}, text: "" };

/** Messages that need people's attention get a comment of their own; the rest live in the status. */
const POSTED: ReadonlySet<Message["kind"]> = new Set([
  "waiting",
  "reminder",
  "failure",
  "done",
  "report",
]);

/**
 * Runs playbooks on one issue: starts them from labels and /run, feeds them commands and
 * outside events, performs their effects through the port, and keeps each run's state in its
 * status comment. The same code serves the GitHub App and `simulate`.
 */
export class IssueController {
  private readonly memory: RunMemory;
  /** Where waits for a time go: the app's wake-ups, or (without them) only written down. */
  private readonly scheduler: Scheduler;
  /** The commenter's role, looked up once when a comment arrives (re-checked before effects). */
  private arrival: { login: string; permission: Permission | undefined } | undefined;
  /** How a command is answered in words: within the commenter's reply budget. */
  private replyTo: (text: string) => Promise<boolean> = (text) =>
    this.o.port.createComment(this.o.issue.number, fittedReply(text)).then(() => true);
  /** Whether the commenter has any role above read in the repository. */
  private member = true;
  /** Whether a `/systematise` of the comment being handled has already been answered. */
  private systematised = false;
  /** Whether a person without a role above read started a run with the comment being handled. */
  private outsiderStarted = false;

  /** The check before every effect that the approvals it rests on still hold. */
  private readonly guard: ApprovalGuard;

  constructor(private readonly o: ControllerOptions) {
    this.memory = o.memory;
    this.guard = new ApprovalGuard({
      port: o.port,
      issue: o.issue.number,
      ...(o.stateKeyPrivate ? { stateKeyPrivate: true } : {}),
      ...(o.namedApprovals ? { runNamed: true } : {}),
    });
    this.scheduler = o.wakeUps?.scheduler ?? new RecordingScheduler();
  }

  private head: Promise<PlaybookCatalog> | undefined;
  /** The playbooks at the default branch's head, asked for once per controller (one event). */
  private headCatalog(): Promise<PlaybookCatalog> {
    const c = this.o.catalog;
    this.head ??= typeof c === "function" ? c() : Promise.resolve(c);
    return this.head;
  }

  /** A state block is valid only in the comment the app created for its run, on this issue. */
  private seal(commentId: string): StateSeal {
    return { key: this.o.stateKey, issue: this.o.issue.number, comment: commentId };
  }

  private seqKey(commentId: string, runId: string): string {
    return `${this.o.repo.owner}/${this.o.repo.name}#${this.o.issue.number}:${commentId}:${runId}`;
  }

  /**
   * Save a run into its status comment (sealed to it) and remember how far it got. The comment
   * also carries the issue's open-run index as it is after this save (see `OpenRunIndex`).
   */
  private async save(run: RunState, commentId: string, catalog: PlaybookCatalog): Promise<void> {
    // Without the index at hand (a restart), the comment's own sealed copy is carried on: only
    // the newest status comment's copy is ever believed, and every copy it had since it was
    // created (from the complete index) still names each run open now.
    const stored = await this.memory.get<OpenRunIndex>(this.indexKey());
    const before = this.fetched.get(commentId);
    const carried = stored
      ? undefined
      : before && readIndexBlock(before.body, this.seal(commentId));
    const index = withRun(stored ?? carried ?? (await this.openIndex()), commentId, run);
    const body = renderStatusComment(run, (id) => catalog.get(id), this.seal(commentId), index);
    await this.o.port.updateComment(this.o.issue.number, commentId, body);
    await this.memory.raiseTo(this.seqKey(commentId, run.id), run.seq, RUN_MEMORY_TTL_MS);
    // Its wait for a time (if any) is set again when the run stops to wait.
    await this.o.wakeUps?.saved(run.id);
    if (!carried) await this.memory.put(this.indexKey(), index, RUN_MEMORY_TTL_MS);
    this.fetched.set(commentId, ownComment(commentId, body));
  }

  /** Comments read (or written) in this event, by id: read once; forgotten when the next begins. */
  private readonly fetched = new Map<string, ThreadComment>();

  /** A new event begins: what the last one read may have changed since. */
  private beginEvent(): void {
    this.fetched.clear();
    this.guard.forget();
  }

  /** Where the app notes that a person's comment was edited or deleted (see onCommentChanged). */
  private changedKey(commentId: string): string {
    return `comment-changed:${this.o.repo.owner}/${this.o.repo.name}#${this.o.issue.number}:${commentId}`;
  }

  private indexKey(): string {
    return `open-runs:${this.o.repo.owner}/${this.o.repo.name}#${this.o.issue.number}`;
  }

  /**
   * The issue's open-run index: from the coordination store; after a restart (or an expiry) from
   * the newest status comment, found from the thread's last page back, its seal checked; else
   * built by listing the thread once.
   */
  private async openIndex(): Promise<OpenRunIndex> {
    const known = await this.memory.get<OpenRunIndex>(this.indexKey());
    if (known) return known;
    const found = await this.o.port.newestComment?.(
      this.o.issue.number,
      (c) => c.byThisApp && hasStateBlock(c.body),
      this.o.issue.comments,
    );
    if (found?.found) {
      const c = found.found;
      this.fetched.set(c.id, c);
      const index = readIndexBlock(c.body, this.seal(c.id));
      if (index) {
        await this.memory.put(this.indexKey(), index, RUN_MEMORY_TTL_MS);
        return index;
      }
    }
    // No index to believe: every status comment of the thread is read (once).
    await this.runs(found?.every);
    return (await this.memory.get<OpenRunIndex>(this.indexKey())) ?? { open: [], events: [] };
  }

  /**
   * The runs that may still move (open, or failed and retryable), newest first, read from the
   * status comments the open-run index names; finished runs cost nothing. `events`: events the
   * issue's finished runs handled (a redelivery of one is known).
   */
  private async liveRuns(): Promise<{ runs: LoadedRun[]; events: string[] }> {
    const index = await this.openIndex();
    const runs: LoadedRun[] = [];
    for (const id of index.open) {
      const c =
        this.fetched.get(id) ??
        (await this.newestRemembered(id)) ??
        (await this.o.port.comment(this.o.issue.number, id));
      // What the index points to is verified like any status comment (this app's, sealed to it).
      if (!c || !c.byThisApp || !hasStateBlock(c.body)) continue;
      this.fetched.set(id, c);
      const loaded = await this.load(c);
      if (loaded && mayMove(loaded.run)) runs.push(loaded);
    }
    const open = runs.map((r) => r.commentId);
    if (open.join() !== index.open.join())
      await this.memory.put(this.indexKey(), { ...index, open }, RUN_MEMORY_TTL_MS);
    return { runs, events: handledEvents(index) };
  }

  /**
   * A status comment as this process last wrote or read it, when its state is the newest any
   * replica saved for that run (the coordination store says): no need to ask GitHub. A person's
   * later edit of it is its own event (put back or frozen there), so it is not missed.
   */
  private async newestRemembered(id: string): Promise<ThreadComment | undefined> {
    const c = this.o.port.remembered?.(id);
    if (!c?.byThisApp) return undefined;
    const read = readStatusComment(c.body, this.seal(id));
    if (!read.ok) return undefined;
    const { highest } = await this.memory.raiseTo(
      this.seqKey(id, read.run.id),
      0,
      RUN_MEMORY_TTL_MS,
    );
    return highest === read.run.seq ? c : undefined;
  }

  /** Whether a run on this issue already handled this event (a redelivery). */
  private static handled(live: { runs: LoadedRun[]; events: string[] }, eventId: string) {
    return (
      live.events.includes(eventId) || live.runs.some((r) => r.run.recentEvents.includes(eventId))
    );
  }

  /** Whether the app may answer this person with a comment now (reactions are always possible). */
  /** A reply to `login` as it is posted (marked where the budget is counted on GitHub). */
  private marked(text: string, login: string): string {
    return this.o.markReplies ? markedReply(text, login) : text;
  }

  private mayReply(login: string): Promise<boolean> {
    const key = replyBudgetKey(this.o.repo, this.o.issue.number, login);
    return this.memory.spend(key, REPLY_BUDGET, this.o.clock().getTime());
  }

  private env(catalog: PlaybookCatalog): EngineEnv {
    return { now: this.o.clock(), ...this.catalogEnv(catalog) };
  }

  /** The playbooks a run may enter, and why one of them is missing when its file does not load. */
  private catalogEnv(catalog: PlaybookCatalog): Omit<EngineEnv, "now"> {
    return { playbooks: (id) => catalog.get(id), invalidPlaybook: (id) => catalog.problems?.(id) };
  }

  /**
   * A run uses the playbooks of the commit it started on (runs are pinned), when that is known,
   * and only a commit on the default branch.
   */
  private async catalogOf(run: RunState): Promise<PlaybookCatalog | "untrusted"> {
    const commit = run.stack[0]?.commit;
    if (!commit || !this.o.catalogAt) return this.headCatalog();
    return (await this.o.catalogAt(commit)) ?? this.headCatalog();
  }

  /**
   * The run in one of this app's comments: only from a block sealed to this very comment, issue and
   * repository, never older than what the app last wrote, with playbooks from the default branch.
   */
  private async load(c: ThreadComment): Promise<LoadedRun | undefined> {
    const read = readStatusComment(c.body, this.seal(c.id));
    if (!read.ok) {
      if (read.reason !== "absent") await this.frozen(c, read.detail);
      return undefined;
    }
    const seen = await this.memory.raiseTo(
      this.seqKey(c.id, read.run.id),
      read.run.seq,
      RUN_MEMORY_TTL_MS,
    );
    if (seen.behind) {
      await this.frozen(
        c,
        `its state block is older than the one this app last wrote (step ${read.run.seq}, not ${seen.highest}): an earlier block was put back`,
      );
      return undefined;
    }
    const catalog = await this.catalogOf(read.run);
    if (catalog === "untrusted") {
      await this.frozen(
        c,
        `it names playbooks at commit ${String(read.run.stack[0]?.commit).slice(0, 12)}, which is not on the default branch`,
      );
      return undefined;
    }
    return { run: read.run, commentId: c.id, catalog };
  }

  private context(): RunContext {
    const i = this.o.issue;
    return {
      issue: { number: i.number, title: i.title.slice(0, 256), url: i.url, author: i.author },
      repo: {
        owner: this.o.repo.owner,
        name: this.o.repo.name,
        full_name: `${this.o.repo.owner}/${this.o.repo.name}`,
        default_branch: this.o.repo.default_branch,
      },
      url: i.url,
    };
  }

  /**
   * Runs on this issue, newest first, read from this app's status comments only (`thread`: the
   * whole thread, when it was just listed). The open-run index is rebuilt from them.
   */
  async runs(thread?: readonly ThreadComment[]): Promise<LoadedRun[]> {
    const out: LoadedRun[] = [];
    const comments = thread
      ? thread.filter((c) => c.byThisApp && hasStateBlock(c.body))
      : await this.o.port.statusComments(this.o.issue.number);
    for (const c of comments) {
      if (!c.byThisApp || !hasStateBlock(c.body)) continue;
      this.fetched.set(c.id, c);
      const loaded = await this.load(c);
      if (loaded) out.push(loaded);
    }
    out.reverse();
    const known = await this.memory.get<OpenRunIndex>(this.indexKey());
    await this.memory.put(this.indexKey(), indexOf(out, known), RUN_MEMORY_TTL_MS);
    return out;
  }

  /** A state block that does not verify stops that run; nothing proceeds on a guess. */
  private async frozen(c: ThreadComment, detail: string): Promise<void> {
    const notice = frozenNotice(c.id, detail);
    const key = `frozen:${this.seqKey(c.id, "")}`;
    if ((await this.memory.get(key)) !== undefined) return;
    const existing = (await this.o.port.comments(this.o.issue.number)).some(
      (x) => x.byThisApp && x.body.includes(`#issuecomment-${c.id}) is frozen`),
    );
    if (!existing) await this.o.port.createComment(this.o.issue.number, notice);
    await this.memory.put(key, true, RUN_MEMORY_TTL_MS);
  }

  /**
   * Someone other than this app edited a status comment. Only the app writes run state, so the run
   * is frozen (or, when it had ended, put back as the app wrote it) and the issue is told why.
   */
  async onStatusCommentEdited(
    c: ThreadComment,
    previousBody: string | undefined,
    editor: string,
  ): Promise<void> {
    this.beginEvent(); // what an earlier event read may have changed since
    const seal = this.seal(c.id);
    const reads = [previousBody, c.body]
      .filter((b): b is string => b !== undefined)
      .map((b) => readStatusComment(b, seal));
    const verified = reads.flatMap((r) => (r.ok ? [r.run] : []));
    // Any copy of the open-run index sealed to this comment is carried on when it is saved.
    const carrier = [previousBody, c.body].find((b) => b && readIndexBlock(b, seal));
    if (carrier) this.fetched.set(c.id, { ...c, body: carrier });
    if (verified.length === 0) {
      if (reads.some((r) => !r.ok && r.reason !== "absent"))
        await this.frozen(c, `@${editor} edited it and its state block no longer verifies`);
      return;
    }
    // The newest state this app wrote: a block put back from earlier loses to the one it replaced.
    const base = verified.reduce((a, b) => (b.seq > a.seq ? b : a));
    const run = structuredClone(base);
    const key = this.seqKey(c.id, run.id);
    const now = this.o.clock().toISOString();
    const wasOpen = !isFinished(run);
    if (wasOpen) {
      run.status = "failed";
      run.error = playbookError(
        "PB-STATE-EDITED",
        `@${editor} edited the status comment; only this app writes run state`,
      );
    }
    run.seq = (await this.memory.raiseTo(key, run.seq, RUN_MEMORY_TTL_MS)).highest + 1;
    run.updatedAt = now;
    pushBounded(
      run.trace,
      {
        event: "edited",
        actor: editor,
        outcome: wasOpen ? "frozen" : "restored",
        start: now,
        end: now,
      },
      MAX_TRACE,
    );
    const catalog = await this.catalogOf(run);
    await this.save(run, c.id, catalog === "untrusted" ? await this.headCatalog() : catalog);
    const playbook = run.stack[0]?.playbook ?? "playbook";
    await this.o.port.createComment(
      this.o.issue.number,
      statusEditedNotice({
        editor,
        commentId: c.id,
        runId: run.id,
        playbook,
        finished: !wasOpen,
        restart: restartCommand(run),
      }),
    );
  }

  /** A status comment was deleted: its run cannot go on, and the issue is told how to start again. */
  async onStatusCommentDeleted(c: ThreadComment, by: string): Promise<void> {
    this.beginEvent(); // what an earlier event read may have changed since
    const read = readStatusComment(c.body, this.seal(c.id));
    if (!read.ok || isFinished(read.run)) return;
    const run = read.run;
    await this.o.port.createComment(
      this.o.issue.number,
      statusDeletedNotice({
        by,
        runId: run.id,
        playbook: run.stack[0]?.playbook ?? "playbook",
        at: activeFrame(run).current ?? "",
        restart: restartCommand(run),
      }),
    );
  }

  private async actor(login: string, bot: boolean, teams: readonly string[] = []): Promise<Actor> {
    const a: Actor = { login, bot };
    const permission =
      this.arrival?.login === login ? this.arrival.permission : await this.o.port.permission(login);
    if (permission) a.permission = permission;
    if (teams.length) a.teams = await this.o.port.teams(login, teams);
    return a;
  }

  /** A label was added: `playbook:<id>` or a playbook's on.labels starts it. */
  /** A label on the issue: start the playbooks it names. Says whether one was meant to start. */
  async onLabeled(
    label: string,
    by: { login: string; bot: boolean },
    eventId: string,
  ): Promise<boolean> {
    this.beginEvent(); // what an earlier event read may have changed since
    const head = await this.headCatalog();
    const matches = head
      .all()
      .filter(
        (b) => label === `playbook:${b.playbook.id}` || b.playbook.on?.labels?.includes(label),
      );
    if (matches.length === 0 && label.startsWith("playbook:")) {
      const id = label.slice("playbook:".length);
      const report = head.problems?.(id);
      if (report)
        await this.o.port.createComment(
          this.o.issue.number,
          invalidPlaybook(id, report) + answersMarker(eventId),
        );
    }
    for (const bundle of matches) {
      const actor = await this.actor(by.login, by.bot);
      const least = bundle.playbook.permissions?.run ?? DEFAULT_RUN_PERMISSION;
      // A person without a role above read (an issue form's labels are theirs): what the label
      // makes the bot write, a run or a refusal, is spent from their reply budget.
      const outsider = !actor.bot && (actor.permission ?? "read") === "read";
      if (actor.bot || !atLeast(actor, least)) {
        await this.refuseLabel(label, bundle.playbook.id, actor, least, outsider, eventId);
        continue;
      }
      const start = `${eventId}:${bundle.playbook.id}`;
      if (
        outsider &&
        !IssueController.handled(await this.liveRuns(), start) &&
        !(await this.mayReply(by.login))
      )
        continue;
      await this.startRun(bundle, this.issueSources(), actor, start);
    }
    return matches.length > 0;
  }

  /** A label its sender may not use: told once per label event (an outsider within budget). */
  private async refuseLabel(
    label: string,
    playbook: string,
    actor: Actor,
    least: Permission,
    outsider: boolean,
    eventId: string,
  ): Promise<void> {
    // Once per label event: an opening's label comes with the opening and on its own.
    const told = `label-refused:${this.indexKey()}:${eventId}:${playbook}`;
    if (await this.memory.get<boolean>(told)) return;
    if (!outsider || (await this.mayReply(actor.login))) {
      const notice =
        labelRefusedNotice(label, playbook, actor.login, least) + answersMarker(eventId);
      await this.o.port.createComment(
        this.o.issue.number,
        outsider ? this.marked(notice, actor.login) : notice,
      );
    }
    await this.memory.put(told, true, RUN_MEMORY_TTL_MS);
    await this.traceRefusal({
      eventId: `${eventId}:${playbook}`,
      event: `label ${label}`,
      actor: actor.login,
      ...(actor.permission ? { permission: actor.permission } : {}),
      reason: actor.bot
        ? `a bot's label starts no playbook`
        : `starting ${playbook} needs ${least} access or more`,
      at: this.o.clock().toISOString(),
    });
    this.o.observe?.refused?.();
  }

  /**
   * A new issue whose title and body fit a playbook's `on.issues` selector starts it, when its
   * author may run that playbook (anyone can open an issue: an outsider's starts nothing).
   */
  async onOpened(by: { login: string; bot: boolean }, eventId: string): Promise<void> {
    this.beginEvent();
    const head = await this.headCatalog();
    const chosen = selectForIssue(
      { title: this.o.issue.title ?? "", body: this.o.issue.body ?? "" },
      head.all(),
    );
    const bundle = chosen ? head.get(chosen.playbook) : undefined;
    if (!bundle) return;
    const actor = await this.actor(by.login, by.bot);
    const least = bundle.playbook.permissions?.run ?? DEFAULT_RUN_PERMISSION;
    if (actor.bot || !atLeast(actor, least)) return;
    await this.startRun(bundle, this.issueSources(), actor, `${eventId}:${bundle.playbook.id}`);
  }

  private async startRun(
    bundle: PlaybookBundle,
    sources: InputSources,
    actor: Actor,
    eventId: string,
    alert?: NonNullable<RunContext["alert"]>,
    origin?: RunOrigin,
  ): Promise<Reply> {
    // A redelivered start (the process restarted since): the run it started remembers the event.
    if (IssueController.handled(await this.liveRuns(), eventId)) return { outcome: "accepted" };
    const catalog = this.o.host ? await this.headCatalog() : undefined;
    const unmet = this.o.host
      ? unmetRequirements(bundle, (id) => catalog?.get(id), this.o.host)
      : [];
    if (this.o.host && unmet.length > 0) {
      const told = await this.replyTo(
        requirementsNotice(bundle.playbook.id, describeUnmet(unmet, this.o.host)),
      );
      return { outcome: "refused", reason: told ? "requirements missing" : "" };
    }
    const inputs = collectInputs(bundle.playbook.inputs, sources);
    const request: StartRequest = {
      bundle,
      inputs,
      initiator: actor,
      eventId,
      context: alert ? { ...this.context(), alert } : this.context(),
      // The issue number keeps ids apart across issues; the key makes them unguessable.
      runToken: issueRunToken(this.o.issue.number, eventId, this.o.stateKey),
      ...(origin ? { origin } : {}),
    };
    let started = beginRun(request, this.env(await this.headCatalog()));
    if (!started.ok) {
      const told = await this.replyTo(
        invalidInputsNotice(
          bundle.playbook.id,
          started.problems.map((p) => p.message),
        ),
      );
      return { outcome: "refused", reason: told ? "invalid inputs" : "" };
    }
    // The comment comes first: its id is what the state is sealed to.
    const comment = await this.o.port.createStatusComment(
      this.o.issue.number,
      startingNotice(bundle.playbook.id, started.result.run.id),
    );
    // Where approvals name their run, its id names this comment (see named-approvals.ts): the
    // same request with another token begins as it did above.
    if (this.o.namedApprovals)
      started = beginRun(
        { ...request, runToken: commentRunToken(comment.id, request.runToken ?? "") },
        this.env(await this.headCatalog()),
      ) as Extract<StartResult, { ok: true }>;
    const head = await this.headCatalog();
    // Its start is noted in the issue's index (saved with it) for as long as a replay may bring
    // that event back, however the run goes on.
    const at = this.o.clock().getTime();
    const index = withStarted(await this.openIndex(), eventId, at);
    await this.memory.put(this.indexKey(), index, RUN_MEMORY_TTL_MS);
    await this.save(started.result.run, comment.id, head);
    this.o.observe?.started?.(started.result.run);
    await this.driverOf({ run: started.result.run, commentId: comment.id, catalog: head }).carryOn(
      started.result.run,
      { ...started.result, changed: false },
    );
    return { outcome: "accepted" };
  }

  /** An alert opened this issue: start the playbook chosen for it, its inputs taken from the alert. */
  async startForAlert(
    bundle: PlaybookBundle,
    alert: NormalizedAlert,
    eventId: string,
  ): Promise<Reply> {
    this.beginEvent(); // what an earlier event read may have changed since
    // An alert may carry any amount of labels: only a bounded part reaches the state's context,
    // and the inputs the playbook declares take their (shortened) values from all of them.
    const capped = capAlertData(alert.labels, alert.annotations);
    const sources: InputSources = {
      alert: { labels: shortened(alert.labels), annotations: shortened(alert.annotations) },
      issue: {
        title: this.o.issue.title,
        number: this.o.issue.number,
        author: this.o.issue.author,
      },
    };
    return this.startRun(bundle, sources, { login: `alert-${alert.source}` }, eventId, {
      title: alert.title.slice(0, 256),
      summary: alert.summary.slice(0, 1024),
      severity: alert.severity,
      status: alert.status,
      source: alert.source,
      fingerprint: alert.key.slice(0, 256),
      url: alert.links[0]?.url ?? "",
      labels: capped.labels,
      annotations: capped.annotations,
      ...(capped.cut ? { cut: capped.cut } : {}),
    });
  }

  /** A new comment: its commands, in order. Bots and this app are never obeyed. */
  async onComment(comment: ThreadComment, eventId: string): Promise<void> {
    this.beginEvent(); // what an earlier event read may have changed since
    if (comment.bot || comment.byThisApp) return;
    const commands = parseCommands(comment.body);
    if (commands.length === 0) return;
    if (await this.memory.get<boolean>(this.changedKey(comment.id)))
      return this.traceRefusal({
        eventId,
        event: "comment",
        actor: comment.author,
        reason: `comment ${comment.id} was edited or deleted before its commands were read: a command counts only as it was written, so write it again in a new comment`,
        at: this.o.clock().toISOString(),
      });
    await this.o.port.react(this.o.issue.number, comment.id, "eyes");
    // People without access get reactions only, and everyone has a reply budget per issue: one
    // comment must not make the bot write many.
    const permission = await this.o.port.permission(comment.author);
    this.arrival = { login: comment.author, permission };
    const member = permission !== undefined && permission !== "read";
    const reply = async (text: string) =>
      member && (await this.mayReply(comment.author))
        ? this.o.port
            .createComment(this.o.issue.number, this.marked(fittedReply(text), comment.author))
            .then(() => true)
        : false;
    this.replyTo = reply;
    this.member = member;
    this.systematised = false;
    this.outsiderStarted = false;
    let refused = false;
    let accepted = false;
    for (const [i, cmd] of commands.entries()) {
      const id = `${eventId}:${i}`;
      let reply: Reply;
      if (cmd.kind === "unknown")
        reply = {
          outcome: "refused",
          reason: `\`/${cmd.word}\` is not a command — did you mean \`/${cmd.suggestion}\`? (\`/help\` lists them)`,
        };
      else reply = await this.command(cmd.name, cmd.args, comment, id);
      if (reply.outcome === "accepted") accepted = true;
      else {
        refused = true;
        if (reply.reason) await this.replyTo(refusalReply(commandLine(cmd), reply.reason));
        // A run's engine traces what it refuses; what no run saw is the issue's to keep.
        if (reply.outcome === "refused" && !(reply as CommandReply).inRun)
          await this.traceRefusal({
            eventId: id,
            event: `/${cmd.kind === "unknown" ? cmd.word : cmd.name}`,
            actor: comment.author,
            ...(permission ? { permission } : {}),
            reason: reply.reason ?? "",
            at: this.o.clock().toISOString(),
          });
      }
    }
    if (accepted) await this.o.port.react(this.o.issue.number, comment.id, "rocket");
    if (refused) await this.o.port.react(this.o.issue.number, comment.id, "-1");
    if (refused && !accepted) this.o.observe?.refused?.();
  }

  private async command(
    name: string,
    args: import("../../core/engine/events.js").CommandArgs,
    comment: ThreadComment,
    eventId: string,
  ): Promise<CommandReply> {
    if (name === "help") {
      return (await this.replyTo(HELP_TEXT))
        ? { outcome: "accepted" }
        : { outcome: "refused", reason: "" };
    }
    if (name === "run") return this.runCommand(args, comment, eventId);
    if (name === "note") return this.recordByHand("note", args, comment, eventId);
    if (name === "trace") return this.traceReply(args, comment);
    if (name === "systematise" || name === "systematize")
      return this.systematiseReply(args, comment, eventId);
    // `/status` lists every run; the other commands act on runs that may still move.
    const live = name === "status" ? undefined : await this.liveRuns();
    const runs = live?.runs ?? (await this.runs());
    // A redelivery of a command already obeyed (the process restarted since): the run remembers
    // it, and a refusal now ("nothing waits") would contradict the first answer.
    const events = live?.events ?? handledEvents(await this.openIndex());
    if (IssueController.handled({ runs, events }, eventId)) return { outcome: "accepted" };
    if (name === "status") return this.status(runs, eventId);
    const voting = name === "approve" || name === "reject";
    const vote = voting ? namedRun(args) : { args };
    // Where approvals name their run, a vote is only for a run whose id names its status comment:
    // a state sealed elsewhere under that id does not take it (see named-approvals.ts).
    const unbound = (r: LoadedRun) =>
      this.o.namedApprovals === true && voting && !runNamesComment(r.run.id, r.commentId);
    const candidates = runs.filter((r) => !unbound(r)).map((r) => this.candidate(r));
    const older = runs.filter((r) => unbound(r) && !isFinished(r.run));
    if (name === "approve" && vote.run === undefined && this.o.namedApprovals)
      return withOlderRuns(unnamedApproval(args, candidates), older);
    const picked = commandTarget(name as CommandName, vote.args, candidates, vote.run);
    if ("unanswered" in picked) return this.recordByHand("record", args, comment, eventId);
    if ("refused" in picked) return withOlderRuns(picked.refused, older);
    const target = picked.run.loaded;
    const least: Permission =
      name === "cancel"
        ? (this.bundleOf(target.run, target.catalog)?.playbook.permissions?.cancel ??
          DEFAULT_RUN_PERMISSION)
        : name === "retry"
          ? this.retryPermission(target)
          : DEFAULT_RUN_PERMISSION;
    const teams = this.policyTeams(target);
    const actor = await this.actor(comment.author, comment.bot, teams);
    if ((name === "cancel" || name === "retry") && !atLeast(actor, least)) {
      return {
        outcome: "refused",
        reason: `@${comment.author} may not /${name} this run; that needs ${least} access or more`,
      };
    }
    const event: RunEvent = {
      type: "command",
      id: eventId,
      command: name as CommandName,
      args: vote.args,
      actor,
      commentId: comment.id,
      createdAt: comment.createdAt,
    };
    if (name === "approve") event.voters = await this.earlierVoters(target, comment.author, teams);
    const { first: result } = await this.driverOf(target).send(target.run, event);
    const reply: CommandReply = result.reply ?? {
      outcome: result.changed ? "accepted" : "ignored",
    };
    return { ...reply, inRun: true };
  }

  /** A refusal no run saw, kept in the trace log under the issue (see issue-trace.ts). */
  private async traceRefusal(refusal: Refusal): Promise<void> {
    if (!this.o.trace) return;
    const issue = { owner: this.o.repo.owner, repo: this.o.repo.name, number: this.o.issue.number };
    await this.o.trace.append(refusalTraceId(issue), [refusalRecord(issue, refusal)]);
  }

  /**
   * `/record key=value …` with nothing waiting, or `/note text`: kept in the issue's ad-hoc log
   * (a comment of this app's, sealed), from people with triage access or more. A redelivered
   * command is found in the log and not added twice.
   */
  private async recordByHand(
    kind: "record" | "note",
    args: import("../../core/engine/events.js").CommandArgs,
    comment: ThreadComment,
    eventId: string,
  ): Promise<Reply> {
    const actor = await this.actor(comment.author, comment.bot);
    if (!atLeast(actor, DEFAULT_RUN_PERMISSION))
      return {
        outcome: "refused",
        reason: `@${comment.author} may not record work on this issue; that needs ${DEFAULT_RUN_PERMISSION} access or more`,
      };
    return this.adhoc.record(kind, args, comment, eventId);
  }

  /**
   * `/trace [json|otlp]`: the issue's whole trace — every run's (what the trace log kept, then
   * its state's summary) and the work done by hand — as a reply, for people with triage access.
   */
  private async traceReply(
    args: import("../../core/engine/events.js").CommandArgs,
    comment: ThreadComment,
  ): Promise<Reply> {
    const word = (args.positional[0] ?? "json").toLowerCase();
    if (word !== "json" && word !== "otlp")
      return { outcome: "refused", reason: "name a format: `/trace` (JSON) or `/trace otlp`" };
    const actor = await this.actor(comment.author, comment.bot);
    if (!atLeast(actor, DEFAULT_RUN_PERMISSION))
      return {
        outcome: "refused",
        reason: `@${comment.author} may not read this issue's trace; that needs ${DEFAULT_RUN_PERMISSION} access or more`,
      };
    const runs = await this.runs();
    const logged = await Promise.all(
      runs.map(async (r) => ({ run: r.run, logged: await this.o.trace?.read(r.run.id) })),
    );
    const key = { owner: this.o.repo.owner, repo: this.o.repo.name, number: this.o.issue.number };
    const trace = issueTrace(
      logged.map((l) => (l.logged ? l : { run: l.run })),
      (await this.adhoc.log()).log,
      key,
      await this.o.trace?.read(refusalTraceId(key)),
    );
    const format: TraceFormat = word;
    const body = renderTraceComment(
      trace.runs,
      trace.records,
      exportTrace(trace.records, trace.runs, format),
      format,
      `npx playbook-bot trace ${key.owner}/${key.repo}#${key.number}${format === "otlp" ? " --format otlp" : ""}`,
    );
    return (await this.replyTo(body))
      ? { outcome: "accepted" }
      : { outcome: "refused", reason: "" };
  }

  /**
   * `/systematise [id]`, from people allowed to run playbooks: a playbook drafted from this
   * issue, or the last one that ran here improved from its runs, proposed in a pull request.
   */
  private async systematiseReply(
    args: import("../../core/engine/events.js").CommandArgs,
    comment: ThreadComment,
    eventId: string,
  ): Promise<Reply> {
    const id = args.positional[0];
    const runs = await this.runs();
    const catalog = await this.headCatalog();
    const ran = runs[0]?.run.stack[0]?.playbook;
    const least =
      (id === undefined && ran !== undefined
        ? catalog.get(ran)?.playbook.permissions?.run
        : undefined) ?? DEFAULT_RUN_PERMISSION;
    const actor = await this.actor(comment.author, comment.bot);
    if (!atLeast(actor, least))
      return {
        outcome: "refused",
        reason: `@${comment.author} may not /systematise here; that needs ${least} access or more`,
      };
    // A pull request is many requests: one per comment, and only within the reply budget,
    // spent before any of them is made.
    if (this.systematised)
      return { outcome: "refused", reason: "one /systematise per comment opens a pull request" };
    this.systematised = true;
    if (!(this.member && (await this.mayReply(comment.author))))
      return { outcome: "refused", reason: "" };
    const answer = await systematise(
      {
        port: this.o.port,
        repo: this.o.repo,
        issue: this.o.issue,
        known: catalog.all().map((b) => ({ id: b.playbook.id, playbook: b.playbook })),
        sourceOf: (p) => catalog.sourceOf?.(p),
        runs: runs.map((r) => {
          const playbook = r.catalog.get(r.run.stack[0]?.playbook ?? "")?.playbook;
          return playbook ? { run: r.run, playbook } : { run: r.run };
        }),
        adhoc: (await this.adhoc.log()).log,
        otherRuns: (playbook, limit) => this.runsElsewhere(playbook, limit),
        ...(this.o.ai ? { ai: this.o.ai } : {}),
      },
      id,
      `systematise/${this.o.issue.number}/${eventId}`,
    );
    if (answer.outcome !== "accepted" || answer.body === undefined) return answer;
    // Its reply was paid for above.
    await this.o.port.createComment(this.o.issue.number, this.marked(answer.body, comment.author));
    return { outcome: "accepted" };
  }

  /** Runs of a playbook on other issues labelled to start it (`playbook:<id>`), their seals checked. */
  private async runsElsewhere(
    playbook: string,
    limit: number,
  ): Promise<{ run: RunState; issue: number }[]> {
    const issues = (await this.o.port.issuesLabelled?.([`playbook:${playbook}`], limit)) ?? [];
    const out: { run: RunState; issue: number }[] = [];
    for (const other of issues) {
      if (other.number === this.o.issue.number) continue;
      for (const c of await this.o.port.statusComments(other.number)) {
        const read = readStatusComment(c.body, {
          key: this.o.stateKey,
          issue: other.number,
          comment: c.id,
        });
        if (read.ok && read.run.stack[0]?.playbook === playbook)
          out.push({ run: read.run, issue: other.number });
      }
    }
    return out;
  }

  /** Work done by hand on this issue (its ad-hoc log). */
  get adhoc(): AdhocWork {
    return (this.adhocWork ??= new AdhocWork({
      port: this.o.port,
      memory: this.memory,
      repo: this.o.repo,
      issue: this.o.issue,
      seal: (issue, comment) => ({ key: this.o.stateKey, issue, comment }),
      clock: this.o.clock,
    }));
  }

  private adhocWork: AdhocWork | undefined;

  private stepOf(run: RunState, catalog: PlaybookCatalog, at = activeFrame(run).current) {
    const f = activeFrame(run);
    const b = catalog.get(f.playbook);
    return b ? graphOf(b.playbook).byId.get(at ?? "")?.step : undefined;
  }

  /** What a run started by the issue itself reads its inputs from: its form and its facts. */
  private issueSources(): InputSources {
    const form = this.o.issue.body ? parseIssueForm(this.o.issue.body) : {};
    return { form, issue: this.issueFacts() };
  }

  /** The issue as a run's inputs see it (`issue.title`, `issue.body`, …). */
  private issueFacts(): NonNullable<InputSources["issue"]> {
    const { title, body, number, author } = this.o.issue;
    return { title, ...(body !== undefined ? { body } : {}), number, author };
  }

  /** A loaded run as the command's target is picked from (`commandTarget`). */
  private candidate(loaded: LoadedRun): CandidateRun & { loaded: LoadedRun } {
    return { run: loaded.run, step: (id) => this.stepOf(loaded.run, loaded.catalog, id), loaded };
  }

  private bundleOf(run: RunState, catalog: PlaybookCatalog): PlaybookBundle | undefined {
    return catalog.get(run.stack[0]?.playbook ?? "");
  }

  /**
   * What `/retry` needs: a retry does the failed effect again and carries the run on through every
   * playbook on its stack, so it needs each one's `permissions.run` (a playbook no longer on the
   * default branch, the default).
   */
  private retryPermission(loaded: LoadedRun): Permission {
    let least: Permission = DEFAULT_RUN_PERMISSION;
    for (const frame of loaded.run.stack) {
      const bundle = loaded.catalog.get(frame.playbook);
      const needs = bundle ? runPermissionOf(bundle.playbook) : DEFAULT_RUN_PERMISSION;
      if (permissionRank(needs) > permissionRank(least)) least = needs;
    }
    return least;
  }

  /** Teams the waiting step's policy names: membership is looked up only for those. */
  private policyTeams(loaded: LoadedRun): string[] {
    const step = this.stepOf(loaded.run, loaded.catalog);
    return step?.type === "checkpoint" ? (step.approvers?.teams ?? []) : [];
  }

  /**
   * The other people whose approvals the waiting step holds, looked up again now: the engine
   * counts an earlier vote only if its author still passes the policy, so a completed approval
   * never rests on someone who has since lost the role. A lookup left unanswered throws.
   */
  private async earlierVoters(
    loaded: LoadedRun,
    author: string,
    teams: readonly string[],
  ): Promise<Actor[]> {
    const logins = new Set<string>();
    for (const v of commandLines(activeFrame(loaded.run)).flatMap((l) => l.votes))
      if (v.decision === "approve" && v.user.toLowerCase() !== author.toLowerCase())
        logins.add(v.user);
    const out: Actor[] = [];
    for (const login of logins) {
      const now = await this.currentActor(login, teams);
      if (now) out.push(now);
    }
    return out;
  }

  /**
   * A person's role and teams (among those named) as GitHub says now. A lookup GitHub left
   * unanswered throws: the delivery is tried again rather than the approval judged without it.
   */
  private async currentActor(login: string, teams: readonly string[]): Promise<Actor> {
    const a: Actor = { login };
    const permission = await this.o.port.permission(login);
    if (permission) a.permission = permission;
    if (teams.length) a.teams = await this.o.port.teams(login, teams);
    return a;
  }

  private async runCommand(
    args: import("../../core/engine/events.js").CommandArgs,
    comment: ThreadComment,
    eventId: string,
  ): Promise<Reply> {
    const id = args.positional[0];
    if (!id)
      return { outcome: "refused", reason: "name the playbook: `/run <playbook> [key=value …]`" };
    const head = await this.headCatalog();
    const all = head.all();
    const bundle = head.get(id) ?? all.find((b) => b.playbook.on?.command === id);
    if (!bundle) {
      const report = head.problems?.(id);
      if (report) {
        // Within the commenter's reply budget (nothing at all for people without access).
        const told = await this.replyTo(invalidPlaybook(id, report));
        return {
          outcome: "refused",
          reason: told ? `playbook '${id}' is invalid (details above)` : "",
        };
      }
      return {
        outcome: "refused",
        reason: `no playbook '${id}' here (available: ${all.map((b) => b.playbook.id).join(", ")})`,
      };
    }
    const actor = await this.actor(comment.author, comment.bot);
    const least = bundle.playbook.permissions?.run ?? DEFAULT_RUN_PERMISSION;
    if (!atLeast(actor, least))
      return {
        outcome: "refused",
        reason: `@${comment.author} may not start **${bundle.playbook.id}**; that needs ${least} access or more`,
      };
    if (!(await this.outsiderMayStart(comment.author))) return { outcome: "refused", reason: "" };
    return this.startRun(
      bundle,
      {
        args: args.values,
        issue: this.issueFacts(),
      },
      actor,
      eventId,
    );
  }

  /**
   * A run writes comments (its status comment, its steps'), so a person without a role above read,
   * who gets no replies (No amplification), starts at most one run per comment, spent from their
   * reply budget.
   */
  private async outsiderMayStart(login: string): Promise<boolean> {
    if (this.member) return true;
    if (this.outsiderStarted) return false;
    this.outsiderStarted = true;
    return this.mayReply(login);
  }

  private async status(runs: LoadedRun[], eventId: string): Promise<Reply> {
    if (!this.member) return { outcome: "refused", reason: "" };
    await this.replyTo(
      runList(
        runs.map((r) => ({
          runId: r.run.id,
          commentId: r.commentId,
          playbook: r.run.stack[0]?.playbook ?? "playbook",
          status: r.run.status,
          ...(isFinished(r.run) ? {} : { at: activeFrame(r.run).current ?? "" }),
        })),
      ),
    );
    if (runs.length === 0) return { outcome: "accepted" };
    // A run whose webhook never came moves again: a lost continuation, a merge or a workflow run
    // that GitHub did not deliver (or this process forgot) is asked for.
    for (const r of runs) {
      if (isFinished(r.run)) continue;
      const f = activeFrame(r.run);
      if (f.phase === "pending") await this.onContinuation(r.commentId, `${eventId}:${r.run.id}`);
      else if (f.awaiting?.pullRequest !== undefined && this.o.port.pullRequestState) {
        const pr = await this.o.port
          .pullRequestState(f.awaiting.pullRequest)
          .catch(() => undefined);
        if (pr?.state === "closed")
          await this.onPullRequestClosed(
            f.awaiting.pullRequest,
            pr.merged,
            `${eventId}:${r.run.id}`,
            pr.url,
          );
      } else if (f.awaiting?.workflow !== undefined && this.o.port.completedWorkflowRun) {
        // The awaited run, matched as the webhook's (by its id, or the dispatch's facts).
        const done = await this.o.port
          .completedWorkflowRun(f.awaiting, f.since)
          .catch(() => undefined);
        if (done)
          await this.onWorkflowRun(
            f.awaiting.workflow,
            done.id,
            done.conclusion,
            `${eventId}:${r.run.id}`,
            done,
          );
      }
    }
    return { outcome: "accepted" };
  }

  /**
   * This app edited a status comment: carry that run one step further. `edited` is the comment as
   * the webhook carries it (GitHub signed the delivery, and its sender is this app): its state is
   * used without reading the comment again when it is the newest this app wrote for the run. An
   * earlier save's edit does nothing (the newer save's edit brings the next step); when the app
   * does not know (a restart), the comment is read.
   */
  async onContinuation(commentId: string, eventId: string, edited?: ThreadComment): Promise<void> {
    this.beginEvent(); // what an earlier event read may have changed since
    let c: ThreadComment | undefined;
    const sent = edited?.byThisApp
      ? readStatusComment(edited.body, this.seal(commentId))
      : undefined;
    if (edited && sent?.ok) {
      const seqKey = this.seqKey(commentId, sent.run.id);
      const { highest } = await this.memory.raiseTo(seqKey, 0, RUN_MEMORY_TTL_MS);
      if (highest > sent.run.seq) return;
      if (highest === sent.run.seq) c = edited;
    }
    c ??= await this.o.port.comment(this.o.issue.number, commentId);
    if (!c || !c.byThisApp || !hasStateBlock(c.body)) return;
    this.fetched.set(c.id, c);
    const loaded = await this.load(c);
    if (!loaded) return;
    const read = loaded;
    // An effect requested but its result never saved (the process died in between, and this is
    // a redelivery or a later continuation): ask for it again with the same key, so it is found,
    // not redone. Without this the run would wait forever in the "effect" phase.
    const lost = !isFinished(read.run) && activeFrame(read.run).phase === "effect";
    const lostKey = lost ? activeFrame(read.run).effectKey : undefined;
    if (lostKey) this.o.port.mayHaveDone?.(lostKey);
    const event: RunEvent = lost
      ? {
          type: "command",
          id: `${eventId}:effect-again`,
          command: "retry",
          args: { positional: [], values: {}, text: "" },
          actor: { login: read.run.initiator },
          createdAt: this.o.clock().toISOString(),
        }
      : { type: "continue", id: eventId, seq: read.run.seq };
    await this.driverOf(loaded).send(read.run, event);
  }

  /** A person edited or deleted a comment: any vote it carried is withdrawn. */
  async onCommentChanged(commentId: string, eventId: string): Promise<void> {
    this.beginEvent(); // what an earlier event read may have changed since
    // Its creation may not have been handled yet (a delivery retried later, or redelivered): a
    // command is the comment as it was created only while it still is, so a creation that comes
    // after its edit or deletion is not obeyed (onComment).
    await this.memory.put(this.changedKey(commentId), true, RUN_MEMORY_TTL_MS);
    for (const r of (await this.liveRuns()).runs) {
      if (isFinished(r.run)) continue;
      await this.driverOf(r).send(r.run, {
        type: "vote_withdrawn",
        id: `${eventId}:${r.run.id}`,
        commentId,
      });
    }
  }

  async onPullRequestClosed(
    number: number,
    merged: boolean,
    eventId: string,
    url?: string,
  ): Promise<void> {
    this.beginEvent(); // what an earlier event read may have changed since
    for (const r of (await this.liveRuns()).runs) {
      const awaits = commandLines(activeFrame(r.run)).some(
        (l) => l.awaiting?.pullRequest === number,
      );
      if (isFinished(r.run) || !awaits) continue;
      const e: RunEvent = { type: "pull_request", id: eventId, number, merged };
      if (url) e.url = url;
      await this.driverOf(r).send(r.run, e);
    }
  }

  /** A workflow run finished; `details` are GitHub's facts that tell whether a wait dispatched it. */
  async onWorkflowRun(
    workflow: string,
    runId: number,
    conclusion: string,
    eventId: string,
    details?: { run?: WorkflowRunFacts; url?: string },
  ): Promise<void> {
    this.beginEvent(); // what an earlier event read may have changed since
    const e: RunEvent = { type: "workflow_run", id: eventId, workflow, runId, conclusion };
    if (details?.run) e.run = details.run;
    if (details?.url) e.url = details.url;
    for (const r of (await this.liveRuns()).runs) {
      const awaits = commandLines(activeFrame(r.run)).some(
        (l) => l.awaiting?.workflow !== undefined,
      );
      if (isFinished(r.run) || !awaits) continue;
      await this.driverOf(r).send(r.run, e);
    }
  }

  /** Time passed: reminders and timeouts of waiting steps. */
  /**
   * Time passed (the app's timer, or `simulate`): each open run of the issue (or only `runId`) is
   * told. A step whose retry backoff is over is tried again; a waiting step gets its reminder or
   * its timeout when due. A tick that finds nothing due changes nothing and posts nothing.
   */
  /** Whether a run on this issue has not finished yet (read from the status comments). */
  async hasUnfinishedRuns(): Promise<boolean> {
    return (await this.liveRuns()).runs.some((r) => !isFinished(r.run));
  }

  async onTick(eventId: string, runId?: string): Promise<void> {
    this.beginEvent(); // what an earlier event read may have changed since
    for (const r of (await this.liveRuns()).runs) {
      if (isFinished(r.run) || (runId && r.run.id !== runId)) continue;
      const f = activeFrame(r.run);
      const now = this.o.clock().toISOString();
      const retry = f.phase === "pending" && !f.lanes && (!f.notBefore || f.notBefore <= now);
      const event: RunEvent = retry
        ? { type: "continue", id: `${eventId}:${r.run.id}`, seq: r.run.seq }
        : { type: "timeout", id: `${eventId}:${r.run.id}` };
      await this.driverOf(r).send(r.run, event);
    }
  }

  /**
   * A sweep found that a run of this issue may sit still: its save's continuation never came (a
   * lost delivery), or an effect's result was never saved, or its wake-up was lost. Each open run
   * is given a continuation at its own sequence number (the engine ignores it unless the run has
   * a step to enter) and then a tick (which changes nothing unless something is due); both are
   * safe to repeat. Returns how many runs were open.
   */
  async carryOn(eventId: string): Promise<number> {
    this.beginEvent(); // what an earlier event read may have changed since
    const open = (await this.liveRuns()).runs.filter((r) => !isFinished(r.run));
    for (const r of open)
      await this.onContinuation(r.commentId, `${eventId}:${r.commentId}:${r.run.seq}`);
    if (open.length) await this.onTick(eventId);
    return open.length;
  }

  /**
   * A step that starts waiting for people is announced before its state is saved: the id GitHub
   * gives that comment orders the commands that answer it (a command in an older comment does not
   * count), so no clock is compared with another.
   */
  private async prompt(
    loaded: LoadedRun,
    run: RunState,
    messages: readonly Message[],
  ): Promise<Message | undefined> {
    if (isFinished(run)) return undefined;
    const frame = activeFrame(run);
    if (frame.phase !== "waiting" && frame.phase !== "approval") return undefined;
    if (frame.prompt?.since === frame.since) return undefined;
    const waiting = messages.find((m) => m.kind === "waiting");
    if (!waiting) return undefined;
    // Where an approval names its run, the request says the command to copy.
    const named =
      this.o.namedApprovals &&
      runNamesComment(run.id, loaded.commentId) &&
      "run" in commandTarget("approve", EMPTY_ARGS, [this.candidate({ ...loaded, run })]);
    const text = named
      ? `${waiting.text.trimEnd()}\n\n${approvalPromptLine(run.id)}`
      : waiting.text;
    const posted = await this.o.port.createComment(
      this.o.issue.number,
      messageComment({ ...waiting, text }),
    );
    frame.prompt = { comment: posted.id, since: frame.since };
    return waiting;
  }

  /** Save, tell people, perform effects, and go on while the run can (in process) or once. */
  /** The driver of one loaded run: its saves go to its status comment. */
  private driverOf(loaded: LoadedRun): RunDriver {
    // The waiting message posted as the prompt is not posted again among the others.
    let prompted: Message | undefined;
    let status = loaded.run.status;
    return new RunDriver(
      {
        store: {
          save: async (run, result) => {
            await this.o.fence?.confirm();
            const awaiting = isFinished(run) ? undefined : activeFrame(run).awaiting?.workflow;
            if (awaiting !== undefined) this.o.onAwaitWorkflow?.(awaiting);
            prompted = await this.prompt(loaded, run, result.messages);
            await this.save(run, loaded.commentId, loaded.catalog);
            if (run.status !== status) this.o.observe?.status?.(run, status);
            status = run.status;
          },
        },
        teller: {
          tell: async (messages) => {
            for (const m of messages)
              if (POSTED.has(m.kind) && m !== prompted)
                await this.o.port.createComment(this.o.issue.number, messageComment(m));
          },
        },
        effects: this.o.observe?.effect ? timed(this.o.port, this.o.observe) : this.o.port,
        guard: async (effect, run) => {
          await this.o.fence?.confirm();
          const onDefault = defaultBranchRefusal(effect, this.o.repo.default_branch);
          if (onDefault) return onDefault;
          const cancelled = await this.cancelFact(run, loaded);
          if (cancelled) return cancelled;
          // Permissions are checked when a command arrives and again here, before each effect,
          // from what GitHub says now (see approval-guard.ts).
          return this.guard.check(run, (id) => loaded.catalog.get(id), loaded.commentId);
        },
        handoff: (handoff, run) => this.handOff(handoff, run),
        clock: { now: this.o.clock },
        scheduler: this.scheduler,
        ...(this.o.trace ? { trace: this.o.trace } : {}),
      },
      { env: this.catalogEnv(loaded.catalog), inProcess: this.o.inProcess },
    );
  }

  /** The thread as this event read it for the cancel guard (see cancel-guard.ts). */
  private readonly cancelReads: { thread?: Promise<ThreadComment[]> } = {};

  /** With `cancelFacts`: the `/cancel` on the thread that stands against this run, if one does. */
  private cancelFact(run: RunState, loaded: LoadedRun): Promise<PlaybookError | undefined> {
    if (!this.o.cancelFacts || run.status === "cancelled") return Promise.resolve(undefined);
    const least = this.bundleOf(run, loaded.catalog)?.playbook.permissions?.cancel;
    return cancelStands(this.o.port, {
      issue: this.o.issue.number,
      statusCommentId: loaded.commentId,
      ...(least ? { least } : {}),
      cache: this.cancelReads,
    });
  }

  /** A handoff starts the other playbook on this issue, for the same initiator. */
  private async handOff(handoff: Handoff, run: RunState): Promise<void> {
    const bundle = (await this.headCatalog()).get(handoff.playbook);
    if (!bundle) return;
    await this.startRun(
      bundle,
      {
        args: Object.fromEntries(Object.entries(handoff.inputs).map(([k, v]) => [k, String(v)])),
      },
      // The new run acts for the same person, with the role they started this one with.
      {
        login: run.initiator,
        ...(run.initiatorPermission ? { permission: run.initiatorPermission } : {}),
      },
      handoff.key,
      undefined,
      // The new run carries on this run's trace.
      handoffOrigin(run, handoff.key),
    );
  }
}

/**
 * What makes a run id unique in the repository: the issue number, then five characters of a MAC
 * (the repository's state key) of the start event — unguessable by others, yet the same for a
 * redelivered start and for a replayed simulation.
 */
export function issueRunToken(issue: number, eventId: string, key: Uint8Array): string {
  const mac = createHmac("sha256", key)
    .update(`playbook-bot run id\0${issue}\0${eventId}`)
    .digest();
  return `${issue}-${tokenChars(mac, 5)}`;
}

/** A run that may still move: open, or failed and retryable (a run frozen by an edit is not). */
function mayMove(run: RunState): boolean {
  return !isFinished(run) || (run.status === "failed" && run.error?.code !== "PB-STATE-EDITED");
}

/** The last events, each once, at most MAX_INDEX_EVENTS. */
function lastEvents(events: readonly string[]): string[] {
  return [...new Set(events.slice().reverse())].slice(0, MAX_INDEX_EVENTS).reverse();
}

/** The index once this run is saved: in it while it may move; its events kept once it ended. */
function withRun(index: OpenRunIndex, commentId: string, run: RunState): OpenRunIndex {
  const others = index.open.filter((id) => id !== commentId);
  if (!mayMove(run))
    return { ...index, open: others, events: lastEvents([...index.events, ...run.recentEvents]) };
  const open = [commentId, ...others].sort((a, b) => Number(b) - Number(a));
  return { ...index, open: open.slice(0, MAX_INDEX_OPEN) };
}

/** The index of runs read from the whole thread (newest first); starts carried from `known`. */
function indexOf(runs: readonly LoadedRun[], known: OpenRunIndex | undefined): OpenRunIndex {
  const ended = runs.filter((r) => !mayMove(r.run)).reverse();
  const events = known?.events ?? [];
  return {
    ...(known?.started ? { started: known.started } : {}),
    open: runs
      .filter((r) => mayMove(r.run))
      .map((r) => r.commentId)
      .slice(0, MAX_INDEX_OPEN),
    events: lastEvents([...events, ...ended.flatMap((r) => r.run.recentEvents)]),
  };
}

/** A status comment this app wrote in this event, as the thread now shows it. */
function ownComment(id: string, body: string): ThreadComment {
  return { id, author: "", bot: true, byThisApp: true, body, createdAt: "" };
}

/** The command that starts a run again with the inputs it had. */
function restartCommand(run: RunState): string {
  const root = run.stack[0];
  const args = Object.entries(root?.inputs ?? {}).map(([k, v]) => {
    const text = String(v ?? "").replace(/[`"\r\n]/g, " ");
    return /\s/.test(text) || text === "" ? `${k}="${text}"` : `${k}=${text}`;
  });
  return [`/run ${root?.playbook ?? "<playbook>"}`, ...args].join(" ").slice(0, 500);
}

function commandLine(cmd: ReturnType<typeof parseCommands>[number]): string {
  return cmd.kind === "command"
    ? `/${cmd.name}${cmd.args.text ? ` ${cmd.args.text}` : ""}`
    : `/${cmd.word}`;
}

/** An invalid playbook, explained on the issue with file, line and message. */
function invalidPlaybook(id: string, report: FileReport): string {
  const errors = report.diagnostics.filter((d) => d.severity === "error").slice(0, 10);
  const text = formatText([{ ...report, diagnostics: errors }]);
  return invalidPlaybookNotice(id, report.file, text.trimEnd());
}

/** The port's effects, each timed and reported to the observer (a throw counts as a failure). */
function timed(port: EffectPerformer, observe: RunObserver): EffectPerformer {
  return {
    perform: async (effect, run) => {
      const began = performance.now();
      let ok = false;
      try {
        const outcome = await port.perform(effect, run);
        ok = outcome.ok;
        return outcome;
      } finally {
        observe.effect?.(effect, ok, performance.now() - began, run);
      }
    },
  };
}
