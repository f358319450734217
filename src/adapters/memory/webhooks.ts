/**
 * Webhook payloads for what happens in the in-memory GitHub, shaped as GitHub sends them (the
 * fields of `@octokit/webhooks`' payloads the app reads, and their neighbours): an issue opened
 * or labelled, a comment created, edited or deleted, a pull request closed. Each carries the
 * repository, the installation and the sender, as a GitHub App's deliveries do.
 */
import type { MemoryGitHubApi, PendingCommentEvent } from "./github-api.js";

export type Payload = Record<string, unknown>;

/** A webhook as GitHub delivers it: the event's name (`X-GitHub-Event`) and its payload. */
export interface Webhook {
  name: string;
  payload: Payload;
}

/** The repository of every payload, as GitHub describes it in a delivery. */
export function repositoryOf(api: MemoryGitHubApi): Payload {
  const owner = api.user(api.owner);
  return {
    id: api.repositoryId,
    node_id: `R_${api.repositoryId}`,
    name: api.name,
    full_name: `${api.owner}/${api.name}`,
    private: false,
    owner: { ...owner, type: "Organization" },
    html_url: `https://github.com/${api.owner}/${api.name}`,
    default_branch: api.repo.defaultBranch,
  };
}

/** How GitHub relates a person to the repository in `author_association`. */
function association(api: MemoryGitHubApi, login: string): string {
  const role = api.permissions.get(login);
  if (role === "admin") return "OWNER";
  return role === undefined ? "NONE" : "COLLABORATOR";
}

function envelope(api: MemoryGitHubApi, action: string, sender: string, rest: Payload): Payload {
  return {
    action,
    ...rest,
    repository: repositoryOf(api),
    sender: api.user(sender),
    installation: { id: api.installationId, node_id: `I_${api.installationId}` },
  };
}

function issueOf(api: MemoryGitHubApi, number: number): Payload {
  const issue = api.issues.get(number);
  if (!issue) throw new Error(`no issue #${number}`);
  return { ...api.restIssue(issue), author_association: association(api, issue.user.login) };
}

/** `issues.opened`: someone opened an issue (with the labels it was opened with). */
export function issueOpened(api: MemoryGitHubApi, number: number): Webhook {
  const issue = issueOf(api, number);
  const by = (issue.user as { login: string }).login;
  return { name: "issues", payload: envelope(api, "opened", by, { issue }) };
}

/** `issues.labeled`: `by` added `label` to the issue. */
export function issueLabeled(
  api: MemoryGitHubApi,
  number: number,
  label: string,
  by: string,
): Webhook {
  return {
    name: "issues",
    payload: envelope(api, "labeled", by, {
      issue: issueOf(api, number),
      label: { name: label, color: "ededed", default: false, description: null },
    }),
  };
}

/** `issue_comment.<action>`: a comment the model queued (a person's, or the app's own). */
export function issueComment(api: MemoryGitHubApi, ev: PendingCommentEvent): Webhook {
  const comment = {
    ...api.restComment(ev.comment),
    author_association: association(api, ev.comment.user.login),
  };
  const sender = (ev.sender ?? ev.comment.user).login;
  const extra: Payload = { issue: issueOf(api, ev.comment.issue), comment };
  if (ev.action === "edited") extra.changes = { body: { from: ev.previous ?? "" } };
  return { name: "issue_comment", payload: envelope(api, ev.action, sender, extra) };
}

/** `pull_request.closed`: `by` merged (or closed) the pull request. */
export function pullRequestClosed(api: MemoryGitHubApi, number: number, by: string): Webhook {
  const pr = api.pulls.get(number);
  if (!pr) throw new Error(`no pull request #${number}`);
  return {
    name: "pull_request",
    payload: envelope(api, "closed", by, {
      number,
      pull_request: {
        ...api.restPull(pr),
        merged_at: pr.merged ? api.now().toISOString() : null,
        author_association: association(api, pr.user.login),
      },
    }),
  };
}
