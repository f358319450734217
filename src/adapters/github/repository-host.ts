import type { AiAdapter } from "../../runtime/ai.js";
import type { GitHubPort } from "../../runtime/github-port.js";
import { LruMap } from "../../runtime/lru.js";
import type { IssueRef, PlaybookCatalog } from "../../runtime/run-service/controller.js";
import type { RepositoryHost } from "../../runtime/run-service/service.js";
import type { StatusCommentCache } from "../../runtime/run-service/status-ids.js";
import { WAITING_LABEL } from "../../runtime/run-service/wake-ups.js";
import { invalidReportOf, type Tiered } from "../../runtime/tiers.js";
import { toolRunnerOf } from "../../runtime/tools.js";
import type { DeploymentTools } from "../tools/registry.js";
import type { PlaybookDiscovery } from "./discovery.js";
import { ConditionalCache, OctokitPort, type Octokit } from "./octokit-port.js";

/** What every repository of a deployment shares: the app, its playbook discovery, AI and tools. */
export interface RepositoryHostDeps {
  appId: number;
  botLogin?: string;
  discovery: PlaybookDiscovery;
  ai: AiAdapter;
  tools: DeploymentTools;
  /** ETags of status comments this process read or wrote: their re-reads are conditional. */
  conditional: ConditionalCache;
  /** The repositories whose waiting label is known to exist. */
  labelled: LruMap<string, true>;
}

/** A repository as GitHub is reached through an installation's Octokit. */
export interface RepositoryCoordinates {
  owner: string;
  repo: string;
  defaultBranch: string;
}

/** The issue as the REST API and webhooks give it (the fields the app reads). */
export type RestIssue = {
  author_association?: string;
  number: number;
  title: string;
  html_url: string;
  body?: string | null;
  user?: { login: string; type?: string } | null;
  labels?: ({ name?: string } | string)[];
  comments?: number;
};

/** A repository on GitHub as the run service sees it, through one installation's Octokit. */
export class OctokitRepositoryHost implements RepositoryHost {
  /** The default branch's head is asked for only when an event needs it. */
  private current: Promise<{ tiered: Tiered; commit: string }> | undefined;

  constructor(
    private readonly octokit: Octokit,
    private readonly at: RepositoryCoordinates,
    private readonly deps: RepositoryHostDeps,
  ) {}

  private head(): Promise<{ tiered: Tiered; commit: string }> {
    const { owner, repo, defaultBranch } = this.at;
    return (this.current ??= this.deps.discovery.current(this.octokit, owner, repo, defaultBranch));
  }

  port(statusIds: StatusCommentCache): GitHubPort {
    const { owner, repo, defaultBranch } = this.at;
    const { deps, octokit } = this;
    return new OctokitPort({
      octokit,
      owner,
      repo,
      defaultBranch,
      appId: deps.appId,
      ai: deps.ai,
      statusCache: statusIds,
      conditional: deps.conditional,
      perDelivery: true,
      tools: toolRunnerOf(deps.tools.forRun({ octokit, repository: { owner, repo } })),
      ...(deps.botLogin ? { botLogin: deps.botLogin } : {}),
    });
  }

  async catalog(): Promise<PlaybookCatalog> {
    return catalogOf((await this.head()).tiered);
  }

  /** A pinned commit is used only when it is on the default branch (a fork's pull request head
   * is served by the base repository too). */
  async catalogAt(commit: string): Promise<PlaybookCatalog | "untrusted" | undefined> {
    const { owner, repo } = this.at;
    const { discovery } = this.deps;
    if (
      !discovery.knownOnDefaultBranch(owner, repo, commit) &&
      !(await discovery.onDefaultBranch(
        this.octokit,
        owner,
        repo,
        commit,
        (await this.head()).commit,
      ))
    )
      return "untrusted";
    return catalogOf(await discovery.at(this.octokit, owner, repo, commit));
  }

  async issue(number: number): Promise<IssueRef | undefined> {
    const { owner, repo } = this.at;
    return this.octokit.rest.issues.get({ owner, repo, issue_number: number }).then(
      ({ data }) => issueRefOf(data as unknown as RestIssue),
      (err: { status?: number }) => {
        if (err.status === 404 || err.status === 410) return undefined; // gone
        throw err;
      },
    );
  }

  /** The waiting label, created once per repository (its colour and description) when missing. */
  async setWaitingLabel(issue: number, change: "add" | "remove"): Promise<void> {
    const { owner, repo } = this.at;
    const issues = this.octokit.rest.issues;
    if (change === "remove") {
      await issues
        .removeLabel({ owner, repo, issue_number: issue, name: WAITING_LABEL.name })
        .catch(ignore(404));
      return;
    }
    if (!this.deps.labelled.get(`${owner}/${repo}`)) {
      await issues.createLabel({ owner, repo, ...WAITING_LABEL }).catch(ignore(422)); // it exists
      this.deps.labelled.set(`${owner}/${repo}`, true);
    }
    await issues.addLabels({ owner, repo, issue_number: issue, labels: [WAITING_LABEL.name] });
  }
}

/** An error GitHub answered with one of these statuses is no error here. */
function ignore(...statuses: number[]) {
  return (err: { status?: number }): void => {
    if (!statuses.includes(err.status ?? 0)) throw err;
  };
}

/** The names of an issue's labels, whichever shape GitHub gave them in. */
export function labelNames(i: RestIssue): string[] {
  return (i.labels ?? []).map((l) => (typeof l === "string" ? l : (l.name ?? ""))).filter(Boolean);
}

/** An issue as the run service sees it. */
export function issueRefOf(i: RestIssue): IssueRef {
  const ref: IssueRef = {
    number: i.number,
    title: i.title,
    url: i.html_url,
    author: i.user?.login ?? "ghost",
  };
  if (i.body) ref.body = i.body;
  if (typeof i.comments === "number") ref.comments = i.comments;
  if (i.labels) ref.labels = labelNames(i);
  return ref;
}

/** A repository's playbooks (its own, its organisation's and the library's) as a catalogue. */
export function catalogOf(tiered: Tiered): PlaybookCatalog {
  return {
    get: (id) => tiered.bundles.get(id),
    all: () => [...tiered.bundles.values()],
    sourceOf: (id) => {
      const b = tiered.bundles.get(id);
      return b ? { file: b.file, source: b.source } : undefined;
    },
    problems: (id) => invalidReportOf(tiered.reports, id),
  };
}
