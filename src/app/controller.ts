import { advance, start, type EngineEnv } from "../engine/engine.js";
import type { AdvanceResult, CommandName, Message, Reply, RunEvent } from "../engine/events.js";
import { collectInputs, parseIssueForm, type InputSources } from "../engine/inputs.js";
import { atLeast } from "../engine/policy.js";
import { playbookError, type PlaybookError } from "../engine/errors.js";
import type { EffectOutcome } from "../effects/types.js";
import {
  activeFrame,
  isFinished,
  type Actor,
  type RunContext,
  type RunState,
} from "../engine/state.js";
import type { PlaybookBundle } from "../engine/steps/types.js";
import type { NormalizedAlert } from "../alerts/types.js";
import { HELP_TEXT, parseCommands } from "../github/commands.js";
import type { GitHubPort, ThreadComment } from "../github/port.js";
import { PlaybookGraph } from "../playbook/graph.js";
import type { Permission } from "../playbook/types.js";
import { formatText } from "../playbook/report/text.js";
import type { FileReport } from "../playbook/validate.js";
import { hasStateBlock, readStatusComment, renderStatusComment } from "./status-comment.js";

/** The playbooks an issue can run: from the repository, its organisation and the bundled library. */
export interface PlaybookCatalog {
  get(id: string): PlaybookBundle | undefined;
  all(): PlaybookBundle[];
  /** The report of an invalid playbook with this id (or file name), to show on the issue. */
  problems?(id: string): FileReport | undefined;
}

export interface IssueRef {
  number: number;
  title: string;
  url: string;
  author: string;
  body?: string;
}

export interface ControllerOptions {
  port: GitHubPort;
  catalog: PlaybookCatalog;
  secret: string;
  clock: () => Date;
  issue: IssueRef;
  repo: { owner: string; name: string; default_branch: string };
  /**
   * true: keep going until the run waits (CLI simulate, tests). false: one transition per event;
   * the app's own edit of the status comment brings the next (GitHub App).
   */
  inProcess: boolean;
  /** The playbooks at an earlier commit, for runs pinned to it (absent: the current catalog). */
  catalogAt?: (commit: string) => Promise<PlaybookCatalog | undefined>;
  /** Told when a run starts waiting for a dispatched workflow (the app routes workflow_run by it). */
  onAwaitWorkflow?: (workflow: string) => void;
}

interface LoadedRun {
  run: RunState;
  commentId: string;
  catalog: PlaybookCatalog;
}

/** Messages that need people's attention get a comment of their own; the rest live in the status. */
const POSTED: ReadonlySet<Message["kind"]> = new Set([
  "waiting",
  "reminder",
  "failure",
  "done",
  "report",
]);

const DEFAULT_RUN_PERMISSION: Permission = "triage";

/**
 * Runs playbooks on one issue: starts them from labels and /run, feeds them commands and
 * outside events, performs their effects through the port, and keeps each run's state in its
 * status comment. The same code serves the GitHub App and `simulate`.
 */
export class IssueController {
  constructor(private readonly o: ControllerOptions) {}

  private env(catalog: PlaybookCatalog = this.o.catalog): EngineEnv {
    return { now: this.o.clock(), playbooks: (id) => catalog.get(id) };
  }

  /** A run uses the playbooks of the commit it started on (runs are pinned), when that is known. */
  private async catalogOf(run: RunState): Promise<PlaybookCatalog> {
    const commit = run.stack[0]?.commit;
    if (!commit || !this.o.catalogAt) return this.o.catalog;
    return (await this.o.catalogAt(commit)) ?? this.o.catalog;
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

  /** Runs on this issue, newest first, read from this app's status comments only. */
  async runs(): Promise<LoadedRun[]> {
    const out: LoadedRun[] = [];
    for (const c of await this.o.port.statusComments(this.o.issue.number)) {
      if (!c.byThisApp || !hasStateBlock(c.body)) continue;
      const read = readStatusComment(c.body, this.o.secret);
      if (read.ok)
        out.push({ run: read.run, commentId: c.id, catalog: await this.catalogOf(read.run) });
      else if (read.reason !== "absent") await this.frozen(c, read.detail);
    }
    return out.reverse();
  }

  /** A state block that does not verify stops that run; nothing proceeds on a guess. */
  private async frozen(c: ThreadComment, detail: string): Promise<void> {
    const notice = `⚠️ The run in [this status comment](#issuecomment-${c.id}) is frozen: ${detail}.\nIts state cannot be trusted, so nothing more happens in it. Start a new run with \`/run <playbook>\`; steps already done (branches, commits, pull requests) are found again, not repeated.`;
    const existing = (await this.o.port.comments(this.o.issue.number)).some(
      (x) => x.byThisApp && x.body.includes(`#issuecomment-${c.id}) is frozen`),
    );
    if (!existing) await this.o.port.createComment(this.o.issue.number, notice);
  }

  private async actor(login: string, bot: boolean, teams: readonly string[] = []): Promise<Actor> {
    const a: Actor = { login, bot };
    const permission = await this.o.port.permission(login);
    if (permission) a.permission = permission;
    if (teams.length) a.teams = await this.o.port.teams(login, teams);
    return a;
  }

  /** A label was added: `playbook:<id>` or a playbook's on.labels starts it. */
  async onLabeled(
    label: string,
    by: { login: string; bot: boolean },
    eventId: string,
  ): Promise<void> {
    const matches = this.o.catalog
      .all()
      .filter(
        (b) => label === `playbook:${b.playbook.id}` || b.playbook.on?.labels?.includes(label),
      );
    if (matches.length === 0 && label.startsWith("playbook:")) {
      const id = label.slice("playbook:".length);
      const report = this.o.catalog.problems?.(id);
      if (report)
        await this.o.port.createComment(this.o.issue.number, invalidPlaybookNotice(id, report));
    }
    for (const bundle of matches) {
      const actor = await this.actor(by.login, by.bot);
      const least = bundle.playbook.permissions?.run ?? DEFAULT_RUN_PERMISSION;
      if (actor.bot || !atLeast(actor, least)) {
        await this.o.port.createComment(
          this.o.issue.number,
          `Label \`${label}\` did not start **${bundle.playbook.id}**: @${by.login} needs ${least} access or more to start it.`,
        );
        continue;
      }
      const form = this.o.issue.body ? parseIssueForm(this.o.issue.body) : {};
      await this.startRun(
        bundle,
        {
          form,
          issue: {
            title: this.o.issue.title,
            number: this.o.issue.number,
            author: this.o.issue.author,
          },
        },
        actor,
        `${eventId}:${bundle.playbook.id}`,
      );
    }
  }

  private async startRun(
    bundle: PlaybookBundle,
    sources: InputSources,
    actor: Actor,
    eventId: string,
    alert?: NonNullable<RunContext["alert"]>,
  ): Promise<Reply> {
    const runs = await this.runs();
    // A redelivered start (the process restarted since): the run it started remembers the event.
    if (runs.some((r) => r.run.recentEvents.includes(eventId))) return { outcome: "accepted" };
    const inputs = collectInputs(bundle.playbook.inputs, sources);
    const started = start(
      {
        bundle,
        inputs,
        initiator: actor,
        eventId,
        context: alert ? { ...this.context(), alert } : this.context(),
        runIndex: runs.length + 1,
      },
      this.env(),
    );
    if (!started.ok) {
      await this.o.port.createComment(
        this.o.issue.number,
        `**${bundle.playbook.id}** did not start: its inputs are invalid.\n${started.problems.map((p) => `- ${p.message}`).join("\n")}`,
      );
      return { outcome: "refused", reason: "invalid inputs" };
    }
    const body = renderStatusComment(
      started.result.run,
      (id) => this.o.catalog.get(id),
      this.o.secret,
    );
    const comment = await this.o.port.createComment(this.o.issue.number, body);
    await this.drive(
      { run: started.result.run, commentId: comment.id, catalog: this.o.catalog },
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
    const sources: InputSources = {
      alert: { labels: alert.labels, annotations: alert.annotations },
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
      labels: alert.labels,
      annotations: Object.fromEntries(
        Object.entries(alert.annotations).map(([k, v]) => [k, v.slice(0, 1024)]),
      ),
    });
  }

  /** A new comment: its commands, in order. Bots and this app are never obeyed. */
  async onComment(comment: ThreadComment, eventId: string): Promise<void> {
    if (comment.bot || comment.byThisApp) return;
    const commands = parseCommands(comment.body);
    if (commands.length === 0) return;
    await this.o.port.react(this.o.issue.number, comment.id, "eyes");
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
        if (reply.reason)
          await this.o.port.createComment(
            this.o.issue.number,
            `> ${commandLine(cmd)}\n\n👎 ${reply.reason}`,
          );
      }
    }
    if (accepted) await this.o.port.react(this.o.issue.number, comment.id, "rocket");
    if (refused) await this.o.port.react(this.o.issue.number, comment.id, "-1");
  }

  private async command(
    name: string,
    args: import("../engine/events.js").CommandArgs,
    comment: ThreadComment,
    eventId: string,
  ): Promise<Reply> {
    if (name === "help") {
      await this.o.port.createComment(this.o.issue.number, HELP_TEXT);
      return { outcome: "accepted" };
    }
    if (name === "run") return this.runCommand(args, comment, eventId);
    const runs = await this.runs();
    // A redelivery of a command already obeyed (the process restarted since): the run remembers
    // it, and a refusal now ("nothing waits") would contradict the first answer.
    if (runs.some((r) => r.run.recentEvents.includes(eventId))) return { outcome: "accepted" };
    if (name === "status") return this.status(runs, eventId);
    const open = runs.filter((r) => !isFinished(r.run));
    let target: LoadedRun | undefined;
    if (name === "retry")
      target = runs.find(
        (r) =>
          r.run.status === "failed" ||
          (!isFinished(r.run) && ["effect", "pending"].includes(activeFrame(r.run).phase)),
      );
    else if (name === "cancel") target = open[0];
    else {
      const waiting = open.filter((r) => {
        const f = activeFrame(r.run);
        const step = this.stepOf(r.run, r.catalog);
        if (name === "approve" || name === "reject")
          return f.phase === "approval" || (f.phase === "waiting" && step?.type === "checkpoint");
        return f.phase === "waiting" && step?.type === "investigate";
      });
      const named = args.positional[0];
      if ((name === "approve" || name === "reject") && named !== undefined)
        target = waiting.find((r) => activeFrame(r.run).current === named);
      else if (waiting.length > 1) {
        return {
          outcome: "refused",
          reason: `${waiting.length} runs wait here; name the step: ${waiting.map((r) => `\`/${name} ${activeFrame(r.run).current}\``).join(" or ")}`,
        };
      } else target = waiting[0];
      if (!target)
        return {
          outcome: "refused",
          reason:
            named !== undefined && (name === "approve" || name === "reject")
              ? `no run waits at step \`${named}\``
              : `nothing on this issue waits for /${name}`,
        };
    }
    if (!target)
      return {
        outcome: "refused",
        reason:
          name === "retry"
            ? "no run on this issue has failed or stalled"
            : "no run on this issue is open",
      };
    const least: Permission =
      name === "cancel"
        ? (this.bundleOf(target.run, target.catalog)?.playbook.permissions?.cancel ??
          DEFAULT_RUN_PERMISSION)
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
      args,
      actor,
      commentId: comment.id,
      createdAt: comment.createdAt,
    };
    const result = advance(target.run, event, this.env(target.catalog));
    await this.drive(target, result);
    return result.reply ?? { outcome: result.changed ? "accepted" : "ignored" };
  }

  private stepOf(run: RunState, catalog: PlaybookCatalog = this.o.catalog) {
    const f = activeFrame(run);
    const b = catalog.get(f.playbook);
    return b ? new PlaybookGraph(b.playbook).byId.get(f.current ?? "")?.step : undefined;
  }

  private bundleOf(
    run: RunState,
    catalog: PlaybookCatalog = this.o.catalog,
  ): PlaybookBundle | undefined {
    return catalog.get(run.stack[0]?.playbook ?? "");
  }

  /** Teams the waiting step's policy names: membership is looked up only for those. */
  private policyTeams(loaded: LoadedRun): string[] {
    const step = this.stepOf(loaded.run, loaded.catalog);
    return step?.type === "checkpoint" ? (step.approvers?.teams ?? []) : [];
  }

  private async runCommand(
    args: import("../engine/events.js").CommandArgs,
    comment: ThreadComment,
    eventId: string,
  ): Promise<Reply> {
    const id = args.positional[0];
    if (!id)
      return { outcome: "refused", reason: "name the playbook: `/run <playbook> [key=value …]`" };
    const all = this.o.catalog.all();
    const bundle = this.o.catalog.get(id) ?? all.find((b) => b.playbook.on?.command === id);
    if (!bundle) {
      const report = this.o.catalog.problems?.(id);
      if (report) {
        await this.o.port.createComment(this.o.issue.number, invalidPlaybookNotice(id, report));
        return { outcome: "refused", reason: `playbook '${id}' is invalid (details above)` };
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
    return this.startRun(
      bundle,
      {
        args: args.values,
        issue: {
          title: this.o.issue.title,
          number: this.o.issue.number,
          author: this.o.issue.author,
        },
      },
      actor,
      eventId,
    );
  }

  private async status(runs: LoadedRun[], eventId: string): Promise<Reply> {
    if (runs.length === 0) {
      await this.o.port.createComment(
        this.o.issue.number,
        "No playbook has run on this issue. `/help` lists the commands.",
      );
      return { outcome: "accepted" };
    }
    const lines = runs.map((r) => {
      const f = activeFrame(r.run);
      return `- [run \`${r.run.id}\`](#issuecomment-${r.commentId}) of **${r.run.stack[0]?.playbook}**: ${r.run.status}${isFinished(r.run) ? "" : ` at \`${f.current}\``}`;
    });
    await this.o.port.createComment(this.o.issue.number, lines.join("\n"));
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
        const done = await this.o.port
          .completedWorkflowRun(f.awaiting.workflow, f.since)
          .catch(() => undefined);
        if (done)
          await this.onWorkflowRun(
            f.awaiting.workflow,
            done.id,
            done.conclusion,
            `${eventId}:${r.run.id}`,
          );
      }
    }
    return { outcome: "accepted" };
  }

  /** This app edited a status comment: carry that run one step further. */
  async onContinuation(commentId: string, eventId: string): Promise<void> {
    const c = await this.o.port.comment(this.o.issue.number, commentId);
    if (!c || !c.byThisApp) return;
    const read = readStatusComment(c.body, this.o.secret);
    if (!read.ok) {
      if (read.reason !== "absent") await this.frozen(c, read.detail);
      return;
    }
    const loaded: LoadedRun = { run: read.run, commentId, catalog: await this.catalogOf(read.run) };
    // An effect requested but its result never saved (the process died in between, and this is
    // a redelivery or a later continuation): ask for it again with the same key, so it is found,
    // not redone. Without this the run would wait forever in the "effect" phase.
    const lost = !isFinished(read.run) && activeFrame(read.run).phase === "effect";
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
    await this.drive(loaded, advance(read.run, event, this.env(loaded.catalog)));
  }

  /** A person edited or deleted a comment: any vote it carried is withdrawn. */
  async onCommentChanged(commentId: string, eventId: string): Promise<void> {
    for (const r of await this.runs()) {
      if (isFinished(r.run)) continue;
      const result = advance(
        r.run,
        { type: "vote_withdrawn", id: `${eventId}:${r.run.id}`, commentId },
        this.env(r.catalog),
      );
      await this.drive(r, result);
    }
  }

  async onPullRequestClosed(
    number: number,
    merged: boolean,
    eventId: string,
    url?: string,
  ): Promise<void> {
    for (const r of await this.runs()) {
      if (isFinished(r.run) || activeFrame(r.run).awaiting?.pullRequest !== number) continue;
      const e: RunEvent = { type: "pull_request", id: eventId, number, merged };
      if (url) e.url = url;
      await this.drive(r, advance(r.run, e, this.env(r.catalog)));
    }
  }

  async onWorkflowRun(
    workflow: string,
    runId: number,
    conclusion: string,
    eventId: string,
  ): Promise<void> {
    for (const r of await this.runs()) {
      const awaiting = activeFrame(r.run).awaiting;
      if (isFinished(r.run) || awaiting?.workflow === undefined) continue;
      await this.drive(
        r,
        advance(
          r.run,
          { type: "workflow_run", id: eventId, workflow, runId, conclusion },
          this.env(r.catalog),
        ),
      );
    }
  }

  /** Time passed: reminders and timeouts of waiting steps. */
  async onTick(eventId: string): Promise<void> {
    for (const r of await this.runs()) {
      if (!isFinished(r.run))
        await this.drive(
          r,
          advance(r.run, { type: "timeout", id: `${eventId}:${r.run.id}` }, this.env(r.catalog)),
        );
    }
  }

  /**
   * Permissions are checked when a command arrives and again before an effect runs: the approvers
   * of the checkpoint that let this run go on must still hold the role its policy asks for (an API
   * error denies).
   */
  private async approvalsStillHold(
    run: RunState,
    catalog: PlaybookCatalog,
  ): Promise<PlaybookError | undefined> {
    const frame = activeFrame(run);
    const bundle = catalog.get(frame.playbook);
    if (!bundle) return undefined;
    const graph = new PlaybookGraph(bundle.playbook);
    let latest: { id: string; at: string; approvers: string[]; permission: Permission } | undefined;
    for (const [id, r] of Object.entries(frame.results)) {
      const step = graph.byId.get(id)?.step;
      const by = r.outputs?.approved_by;
      if (
        step?.type !== "checkpoint" ||
        r.status !== "completed" ||
        !Array.isArray(by) ||
        !step.approvers?.permission
      )
        continue;
      if (!latest || r.at > latest.at)
        latest = { id, at: r.at, approvers: by.map(String), permission: step.approvers.permission };
    }
    if (!latest) return undefined;
    for (const login of latest.approvers) {
      const permission = await this.o.port.permission(login);
      if (!atLeast({ login, ...(permission ? { permission } : {}) }, latest.permission)) {
        return playbookError(
          "GH-PERMISSION",
          `@${login}, who approved '${latest.id}', no longer has ${latest.permission} access; the step does not run`,
        );
      }
    }
    return undefined;
  }

  /** Save, tell people, perform effects, and go on while the run can (in process) or once. */
  private async drive(loaded: LoadedRun, first: AdvanceResult): Promise<void> {
    let result = first;
    let run = loaded.run;
    for (let guard = 0; guard < 1000; guard++) {
      if (result.changed) {
        run = result.run;
        const awaiting = isFinished(run) ? undefined : activeFrame(run).awaiting?.workflow;
        if (awaiting !== undefined) this.o.onAwaitWorkflow?.(awaiting);
        await this.o.port.updateComment(
          this.o.issue.number,
          loaded.commentId,
          renderStatusComment(run, (id) => loaded.catalog.get(id), this.o.secret),
        );
      }
      for (const m of result.messages)
        if (POSTED.has(m.kind))
          await this.o.port.createComment(
            this.o.issue.number,
            m.to?.length ? `${m.text}\n\ncc ${m.to.map((u) => `@${u}`).join(" ")}` : m.text,
          );
      const effect = result.effects[0];
      if (effect) {
        if (effect.kind === "start_playbook") {
          const bundle = this.o.catalog.get(String(effect.params.playbook));
          if (bundle)
            await this.startRun(
              bundle,
              {
                args: Object.fromEntries(
                  Object.entries((effect.params.inputs as Record<string, unknown>) ?? {}).map(
                    ([k, v]) => [k, String(v)],
                  ),
                ),
              },
              { login: run.initiator },
              `${effect.key}`,
            );
          result = { ...result, effects: result.effects.slice(1), messages: [], changed: false };
          continue;
        }
        const refusal = await this.approvalsStillHold(run, loaded.catalog);
        const outcome: EffectOutcome = refusal
          ? { ok: false, error: refusal }
          : await this.o.port.perform(effect, run);
        const event: RunEvent = outcome.ok
          ? {
              type: "effect_result",
              id: `${effect.key}:result`,
              key: effect.key,
              ok: true,
              outputs: outcome.outputs,
            }
          : {
              type: "effect_result",
              id: `${effect.key}:result`,
              key: effect.key,
              ok: false,
              error: outcome.error,
            };
        result = advance(run, event, this.env(loaded.catalog));
        continue;
      }
      if (result.continue && this.o.inProcess) {
        result = advance(
          run,
          { type: "continue", id: `${run.id}:continue:${run.seq}`, seq: run.seq },
          this.env(loaded.catalog),
        );
        continue;
      }
      return;
    }
  }
}

function commandLine(cmd: ReturnType<typeof parseCommands>[number]): string {
  return cmd.kind === "command"
    ? `/${cmd.name}${cmd.args.text ? ` ${cmd.args.text}` : ""}`
    : `/${cmd.word}`;
}

/** An invalid playbook, explained on the issue with file, line and message. */
function invalidPlaybookNotice(id: string, report: FileReport): string {
  const errors = report.diagnostics.filter((d) => d.severity === "error").slice(0, 10);
  const text = formatText([{ ...report, diagnostics: errors }]);
  return `Playbook **${id}** cannot run: \`${report.file}\` is invalid.\n\n\`\`\`text\n${text.trimEnd()}\n\`\`\``;
}
