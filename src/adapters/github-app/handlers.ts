// The app's webhook handlers: each translates one GitHub event into the run service's events.
// Deliveries are deduplicated and serialised per issue by `once`; the service does the rest.
import type { Context, Probot } from "probot";
import type { Fence } from "../../runtime/coordination.js";
import { hasStateBlock } from "../../runtime/github-port.js";
import { labelledAtOpening, openingLabelEventId } from "../../runtime/reconcile.js";
import { RunService, type IssueAt, type IssueEvent } from "../../runtime/run-service/service.js";
import { WAITING_LABEL, type IssueAddress } from "../../runtime/run-service/wake-ups.js";
import type { IssueRef } from "../../runtime/run-service/controller.js";
import { issueOfPullRequest, withRequestTimeout } from "../github/octokit-port.js";
import {
  OctokitRepositoryHost,
  labelNames,
  type RepositoryHostDeps,
} from "../github/repository-host.js";
import type { PlaybookDiscovery } from "../github/discovery.js";
import { workflowRunFacts } from "../github/workflow-runs.js";
import type { AppConfig } from "./config.js";
import {
  addressOf,
  byCollaborator,
  commentEventId,
  issueByNumber,
  issueOf,
  labelEventId,
  octokitOf,
  openedEventId,
  performedViaApp,
  senderOf,
  threadCommentOf,
} from "./payloads.js";

/** A delivery's work, once across replicas, under the lock `lockKey` (see app.ts). */
export type Once = (
  context: Context,
  lockKey: string,
  work: (fence: Fence) => Promise<void>,
  doneId?: string,
) => Promise<void>;

export interface HandlerDeps {
  service: RunService;
  config: AppConfig;
  discovery: PlaybookDiscovery;
  repositories: RepositoryHostDeps;
  requestTimeoutMs: number;
  once: Once;
}

/** Registers the handlers of the events that move runs on issues. */
export function registerIssueHandlers(app: Probot, deps: HandlerDeps): void {
  const h = new IssueHandlers(deps);
  app.on("issues.labeled", (c) => h.labeled(c));
  app.on("issues.opened", (c) => h.opened(c));
  app.on("issue_comment.created", (c) => h.commentCreated(c));
  app.on(["issue_comment.edited", "issue_comment.deleted"], (c) => h.commentChanged(c));
  app.on("pull_request.closed", (c) => h.pullRequestClosed(c));
  app.on("workflow_run.completed", (c) => h.workflowRunCompleted(c));
}

class IssueHandlers {
  constructor(private readonly d: HandlerDeps) {}

  /** The issue an event is on, reached through the delivery's installation. */
  private at(context: Context, address: IssueAddress, issue: IssueRef): IssueAt {
    const octokit = withRequestTimeout(octokitOf(context.octokit), this.d.requestTimeoutMs);
    return {
      address,
      issue,
      repository: new OctokitRepositoryHost(octokit, address, this.d.repositories),
    };
  }

  /** One delivery's event on one issue: once across replicas, alone on the issue. */
  private send(context: Context, at: IssueAt, event: IssueEvent, doneId?: string): Promise<void> {
    return this.d.once(
      context,
      RunService.lockKey(at.address),
      (fence) => this.d.service.sendLocked(at, event, fence),
      doneId,
    );
  }

  async labeled(context: Context<"issues.labeled">): Promise<void> {
    const p = context.payload;
    // The app's own waiting label starts nothing.
    if (!p.label || p.label.name === WAITING_LABEL.name) return;
    const at = this.at(context, addressOf(p, p.issue.number), issueOf(p.issue));
    // A label the issue was opened with was started by `issues.opened`, under the opening's id.
    // The payload is the issue as at the label: its last change is the label's own.
    const atOpening = labelledAtOpening(
      Date.parse(String(p.issue.updated_at)),
      Date.parse(String(p.issue.created_at)),
    );
    await this.send(context, at, {
      type: "labeled",
      label: p.label.name,
      by: senderOf(p.sender),
      eventId: atOpening
        ? openingLabelEventId(p.label.name)
        : labelEventId(context.id, {
            repository: p.repository.id,
            issue: p.issue.id,
            label: p.label,
            at: String(p.issue.updated_at),
          }),
    });
  }

  async opened(context: Context<"issues.opened">): Promise<void> {
    const p = context.payload;
    const labels = labelNames(p.issue).filter((l) => l !== WAITING_LABEL.name);
    // The issue's text may fit a playbook (on.issues): only a collaborator's issue can start one,
    // and only where the playbooks (as last read) select issues at all.
    const byText =
      byCollaborator(p.issue) &&
      this.d.discovery.selectsIssues(p.repository.owner.login, p.repository.name) !== false;
    if (labels.length === 0 && !byText) return;
    const at = this.at(context, addressOf(p, p.issue.number), issueOf(p.issue));
    await this.send(context, at, {
      type: "opened",
      labels,
      byText,
      by: senderOf(p.sender),
      eventId: openedEventId(p.issue),
    });
  }

  async commentCreated(context: Context<"issue_comment.created">): Promise<void> {
    const p = context.payload;
    const comment = threadCommentOf(p.comment, this.d.config);
    // This app's own comments are never commands; a status comment moves its run on when the app
    // writes its state into it (an edit), not when it is created.
    if (comment.byThisApp || comment.bot || !/^ {0,3}\//m.test(comment.body)) return;
    const at = this.at(context, addressOf(p, p.issue.number), issueOf(p.issue));
    const eventId = commentEventId(context);
    // Done once per comment, whichever delivery brings it: GitHub's, or the reconcile's replay.
    await this.send(context, at, { type: "new-comment", comment, eventId }, eventId);
  }

  async commentChanged(
    context: Context<"issue_comment.edited" | "issue_comment.deleted">,
  ): Promise<void> {
    const p = context.payload;
    const comment = threadCommentOf(p.comment, this.d.config);
    const at = this.at(context, addressOf(p, p.issue.number), issueOf(p.issue));
    const before = p.action === "edited" ? (p.changes.body?.from ?? undefined) : undefined;
    const event = changeOf(
      comment,
      p.action,
      p.sender.login,
      p.comment.user?.login,
      before,
      context.id,
    );
    if (event) await this.send(context, at, event);
  }

  async pullRequestClosed(context: Context<"pull_request.closed">): Promise<void> {
    const pr = context.payload.pull_request;
    // Anyone can copy the hidden marker into a pull request of theirs: only the app's count.
    const issue = pr.user?.type === "Bot" ? issueOfPullRequest(pr.body) : undefined;
    if (issue === undefined) return;
    const at = this.at(context, addressOf(context.payload, issue), issueByNumber(issue));
    await this.d.once(context, RunService.lockKey(at.address), async (fence) => {
      if (!(await this.openedByThisApp(context))) return;
      const closed: IssueEvent = {
        type: "pull-request-closed",
        number: pr.number,
        merged: pr.merged === true,
        url: pr.html_url,
        eventId: context.id,
      };
      await this.d.service.sendLocked(at, closed, fence);
    });
  }

  /**
   * Whether this app opened the pull request: its bot login says so when known; otherwise (or for
   * another bot) the pull request's issue view names the app that opened it.
   */
  private async openedByThisApp(context: Context<"pull_request.closed">): Promise<boolean> {
    const { config } = this.d;
    const pr = context.payload.pull_request;
    if (config.botLogin !== undefined && pr.user?.login === config.botLogin) return true;
    const { owner, repo } = context.repo();
    const via = await octokitOf(context.octokit)
      .rest.issues.get({ owner, repo, issue_number: pr.number })
      .then(
        ({ data }) => performedViaApp(data),
        (err: { status?: number }) => {
          if (err.status === 404) return undefined; // gone: nothing to route
          throw err;
        },
      );
    return via === config.appId;
  }

  /**
   * Handled once every waiting issue has had it: a failure on one is redelivered for all (each
   * issue's run ignores an event it has seen).
   */
  async workflowRunCompleted(context: Context<"workflow_run.completed">): Promise<void> {
    await this.d.once(context, `delivery:${context.id}`, () => this.workflowRun(context));
  }

  private async workflowRun(context: Context<"workflow_run.completed">): Promise<void> {
    const p = context.payload;
    const { owner, repo } = context.repo();
    const run = workflowRunFacts(p.workflow_run);
    // Only this app's dispatch of this repository's own workflow can be awaited: a run of a fork's
    // code, of another event or (when the app knows its login) by another actor goes no further.
    // The waiting step checks every fact again, with what its dispatch recorded.
    if (run.event !== "workflow_dispatch" || run.headRepositoryId !== run.repositoryId) return;
    if (this.d.config.botLogin !== undefined && run.actor !== this.d.config.botLogin) return;
    // Waits are found by the workflow's file (`.github/workflows/<file>`) or its id, never by its
    // display name, which any workflow may take.
    const file = /^\.github\/workflows\/([^/]+)$/.exec(run.path)?.[1];
    const details = p.workflow_run.html_url ? { run, url: p.workflow_run.html_url } : { run };
    const failures: unknown[] = [];
    for (const workflow of [...(file ? [file] : []), String(run.workflowId)]) {
      for (const number of await this.d.service.awaiting(owner, repo, workflow)) {
        const at = this.at(context, addressOf(p, number), issueByNumber(number));
        await this.d.service
          .send(at, {
            type: "workflow-run",
            workflow,
            runId: p.workflow_run.id,
            conclusion: p.workflow_run.conclusion ?? "unknown",
            eventId: `${context.id}:${number}`,
            details,
          })
          .catch((err: unknown) => failures.push(err));
      }
    }
    if (failures.length) throw failures[0];
  }
}

/**
 * What an edited or deleted comment means. The app itself edits a comment only to save a run: one
 * more step. Write users can edit (or delete) the app's comments too; that freezes the run, never
 * moves it. A person's edit may withdraw a command's vote.
 */
function changeOf(
  comment: ReturnType<typeof threadCommentOf>,
  action: "edited" | "deleted",
  sender: string,
  author: string | undefined,
  before: string | undefined,
  eventId: string,
): IssueEvent | undefined {
  if (!comment.byThisApp)
    return comment.bot ? undefined : { type: "comment-changed", commentId: comment.id, eventId };
  if (action === "deleted")
    return hasStateBlock(comment.body)
      ? { type: "status-deleted", comment, by: sender }
      : undefined;
  if (sender === author)
    // The edited body rides in the signed payload: no need to read the comment again.
    return hasStateBlock(comment.body)
      ? { type: "continuation", commentId: comment.id, eventId, edited: comment }
      : undefined;
  return hasStateBlock(comment.body) || hasStateBlock(before ?? "")
    ? { type: "status-edited", comment, before, by: sender }
    : undefined;
}
