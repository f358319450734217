import type { AlertIssue, AlertIssuesPort } from "../../runtime/alert-triage.js";
import { ALERT_LABEL } from "../../runtime/alert-triage.js";
import type { Octokit } from "./octokit-port.js";
import {
  createOnce,
  newestComments,
  SINGLE_ATTEMPT,
  type CreateRetry,
  type ListedComment,
} from "./create-once.js";

type RestIssue = {
  number: number;
  html_url: string;
  title: string;
  body?: string | null;
  state: string;
  state_reason?: string | null;
  closed_at?: string | null;
  pull_request?: unknown;
  user?: { login: string; type?: string } | null;
  performed_via_github_app?: { id: number } | null;
};

/** Who this app is on GitHub: what its own issues carry (see `openedBy`). */
export interface AlertIssuesAuthor {
  appId: number;
  botLogin?: string;
}

/**
 * Whether this app opened the issue: GitHub names the app that made it (nobody can set
 * `performed_via_github_app`), through its bot account. An alert's marker is plain text that
 * anyone who can open and label an issue can copy; only the app's own issues carry an alert.
 */
function openedBy(i: RestIssue, author: AlertIssuesAuthor): boolean {
  return (
    i.user?.type === "Bot" &&
    i.performed_via_github_app?.id === author.appId &&
    (author.botLogin === undefined || i.user.login === author.botLogin)
  );
}

function view(i: RestIssue): AlertIssue {
  return {
    number: i.number,
    url: i.html_url,
    title: i.title,
    body: i.body ?? "",
    state: i.state === "closed" ? "closed" : "open",
    stateReason: i.state_reason ?? null,
    closedAt: i.closed_at ?? null,
  };
}

/** Triage issues through Octokit: listed by label (consistent), never searched (the index lags). */
export class OctokitAlertIssues implements AlertIssuesPort {
  constructor(
    private readonly octokit: Octokit,
    private readonly owner: string,
    private readonly repo: string,
    /** This app: only the issues it opened are triage issues. */
    private readonly author: AlertIssuesAuthor,
    /** How a creation that failed uncertainly is retried (see create-once). */
    private readonly createRetry?: Partial<CreateRetry>,
  ) {}

  private retryOptions(): { retry?: Partial<CreateRetry> } {
    return this.createRetry ? { retry: this.createRetry } : {};
  }

  async listAlertIssues(): Promise<AlertIssue[]> {
    const all = (await this.octokit.paginate(this.octokit.rest.issues.listForRepo, {
      owner: this.owner,
      repo: this.repo,
      labels: ALERT_LABEL,
      state: "all",
      per_page: 100,
    })) as RestIssue[];
    return all.filter((i) => !i.pull_request && openedBy(i, this.author)).map(view);
  }

  async getIssue(number: number): Promise<AlertIssue> {
    const { data } = await this.octokit.rest.issues.get({
      owner: this.owner,
      repo: this.repo,
      issue_number: number,
    });
    return view(data as RestIssue);
  }

  /**
   * Opened once: after an attempt that failed uncertainly, an issue with this title and body
   * (its body carries the alert's marker) among the newest with the first label is the one made.
   */
  async createIssue(title: string, body: string, labels: string[]): Promise<AlertIssue> {
    const data = await createOnce<RestIssue>({
      create: async () =>
        (
          await this.octokit.rest.issues.create({
            owner: this.owner,
            repo: this.repo,
            title,
            body,
            labels,
            ...SINGLE_ATTEMPT,
          })
        ).data as RestIssue,
      find: async () => {
        const { data: recent } = await this.octokit.rest.issues.listForRepo({
          owner: this.owner,
          repo: this.repo,
          ...(labels[0] ? { labels: labels[0] } : {}),
          state: "all",
          sort: "created",
          direction: "desc",
          per_page: 30,
        });
        return (recent as RestIssue[]).find(
          (i) =>
            !i.pull_request &&
            openedBy(i, this.author) &&
            i.title === title &&
            (i.body ?? "").trim() === body.trim(),
        );
      },
      ...this.retryOptions(),
    });
    return view(data);
  }

  /** Posted once: after an uncertain failure, a bot's newest comment on the issue with this body is it. */
  async comment(issue: number, body: string): Promise<string> {
    const data = await createOnce<ListedComment>({
      create: async () =>
        (
          await this.octokit.rest.issues.createComment({
            owner: this.owner,
            repo: this.repo,
            issue_number: issue,
            body,
            ...SINGLE_ATTEMPT,
          })
        ).data as ListedComment,
      find: async () => {
        const recent = await newestComments(this.octokit, {
          owner: this.owner,
          repo: this.repo,
          issue,
        });
        const newest = recent.filter((c) => c.user?.type === "Bot").at(-1);
        return newest && (newest.body ?? "").trim() === body.trim() ? newest : undefined;
      },
      ...this.retryOptions(),
    });
    return String(data.id);
  }

  async updateComment(id: string, body: string): Promise<void> {
    await this.octokit.rest.issues.updateComment({
      owner: this.owner,
      repo: this.repo,
      comment_id: Number(id),
      body,
    });
  }

  async reopen(issue: number): Promise<void> {
    await this.octokit.rest.issues.update({
      owner: this.owner,
      repo: this.repo,
      issue_number: issue,
      state: "open",
    });
  }

  async close(issue: number, reason: "completed" | "not_planned"): Promise<void> {
    await this.octokit.rest.issues.update({
      owner: this.owner,
      repo: this.repo,
      issue_number: issue,
      state: "closed",
      state_reason: reason,
    });
  }
}
