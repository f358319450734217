import type { AlertIssue, AlertIssuesPort } from "../alerts/triage.js";
import { ALERT_LABEL } from "../alerts/triage.js";
import type { Octokit } from "./octokit-port.js";

type RestIssue = {
  number: number;
  html_url: string;
  title: string;
  body?: string | null;
  state: string;
  state_reason?: string | null;
  closed_at?: string | null;
  pull_request?: unknown;
};

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
  ) {}

  async listAlertIssues(): Promise<AlertIssue[]> {
    const all = (await this.octokit.paginate(this.octokit.rest.issues.listForRepo, {
      owner: this.owner,
      repo: this.repo,
      labels: ALERT_LABEL,
      state: "all",
      per_page: 100,
    })) as RestIssue[];
    return all.filter((i) => !i.pull_request).map(view);
  }

  async getIssue(number: number): Promise<AlertIssue> {
    const { data } = await this.octokit.rest.issues.get({
      owner: this.owner,
      repo: this.repo,
      issue_number: number,
    });
    return view(data as RestIssue);
  }

  async createIssue(title: string, body: string, labels: string[]): Promise<AlertIssue> {
    const { data } = await this.octokit.rest.issues.create({
      owner: this.owner,
      repo: this.repo,
      title,
      body,
      labels,
    });
    return view(data as RestIssue);
  }

  async comment(issue: number, body: string): Promise<string> {
    const { data } = await this.octokit.rest.issues.createComment({
      owner: this.owner,
      repo: this.repo,
      issue_number: issue,
      body,
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
