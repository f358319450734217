// The app's trust boundary: webhook payloads become the run service's plain values here, and
// nowhere else. A payload's signature was checked; its content is still anyone's words.
import { createHash } from "node:crypto";
import type { Context, Probot } from "probot";
import { REPLAY_ID } from "../../runtime/reconcile.js";
import type { Octokit } from "../github/octokit-port.js";
import type { fromGitHubAlert } from "../alerts/sources.js";
import type { IssueAddress } from "../../runtime/run-service/wake-ups.js";
import type { ThreadComment } from "../../runtime/github-port.js";
import type { IssueRef } from "../../runtime/run-service/controller.js";
import type { Sender } from "../../runtime/run-service/service.js";
import { issueRefOf, type RestIssue } from "../github/repository-host.js";
import type { AppConfig } from "./config.js";

/** Who may hold a role in the repository: others' new issues start nothing by their text. */
const COLLABORATOR_ASSOCIATIONS: ReadonlySet<string> = new Set(["OWNER", "MEMBER", "COLLABORATOR"]);

type RestUser = { login: string; type?: string } | null | undefined;

/** A comment as webhooks and the REST API give it (the fields the app reads). */
export type RestComment = {
  id: number;
  body?: string | null;
  created_at: string;
  user: RestUser;
  performed_via_github_app?: { id: number } | null;
};

/** The repository and installation every repository event names. */
type RepositoryEvent = {
  repository: { id: number; name: string; owner: { login: string }; default_branch: string };
  installation?: { id: number };
};

/** A webhook comment as the service sees it; only this app's own comments may carry state. */
export function threadCommentOf(
  c: RestComment,
  config: Pick<AppConfig, "appId" | "botLogin">,
): ThreadComment {
  return {
    id: String(c.id),
    author: c.user?.login ?? "ghost",
    bot: c.user?.type === "Bot",
    // The app's own bot account, written through the app (GitHub sets performed_via_github_app;
    // nobody can), and under its login when known — not a person acting through the app with a
    // user token, nor another app's bot. In the Actions bot: github-actions[bot] via the GitHub
    // Actions app (15368), which every workflow's token writes as; so a state in it is still
    // believed only with a valid seal (see status-comment.ts).
    byThisApp:
      c.user?.type === "Bot" &&
      c.performed_via_github_app?.id === config.appId &&
      (config.botLogin === undefined || c.user.login === config.botLogin),
    body: c.body ?? "",
    createdAt: c.created_at,
  };
}

/** Where an issue of a repository event is: installation, repository, issue number. */
export function addressOf(payload: RepositoryEvent, issue: number): IssueAddress {
  return {
    installation: payload.installation?.id ?? 0,
    repository: payload.repository.id,
    owner: payload.repository.owner.login,
    repo: payload.repository.name,
    defaultBranch: payload.repository.default_branch,
    issue,
  };
}

/** The issue of an issue or comment event. */
export function issueOf(issue: RestIssue): IssueRef {
  return issueRefOf(issue);
}

/** An issue known by its number only (a pull request's or a workflow's event names no more). */
export function issueByNumber(number: number): IssueRef {
  return { number, title: "", url: "", author: "" };
}

/** The sender of an event, and whether it is a bot. */
export function senderOf(sender: { login: string; type?: string }): Sender {
  return { login: sender.login, bot: sender.type === "Bot" };
}

/** Whether a new issue's author holds a role in the repository (only theirs start by text). */
export function byCollaborator(issue: { author_association?: string }): boolean {
  return COLLABORATOR_ASSOCIATIONS.has(issue.author_association ?? "");
}

/** The delivery id of a comment: one per comment, whichever delivery brings it. */
export function commentEventId(context: Context<"issue_comment">): string {
  return `comment-${context.payload.comment.id}`;
}

/**
 * The id a label's start is known by. The reconcile's replay names the label event itself
 * (`label-<id>`, or `opening:<label>` for a label the issue was opened with). A webhook's
 * delivery id is a header the signature does not cover: a signed body sent again under a new one
 * would be a new label. So a delivery is named by what its body says: the repository, the issue,
 * the label, and the issue's last change, which is the label's own.
 */
export function labelEventId(
  deliveryId: string,
  labeled: { repository: number; issue: number; label: { id: number; name: string }; at: string },
): string {
  if (REPLAY_ID.test(deliveryId)) return deliveryId;
  const facts = [
    labeled.repository,
    labeled.issue,
    labeled.label.id,
    labeled.label.name,
    labeled.at,
  ];
  const hash = createHash("sha256").update(JSON.stringify(facts)).digest("hex").slice(0, 32);
  return `labeled-${hash}`;
}

/**
 * The id an issue's opening is known by: an issue is opened once, so its own id names it (a signed
 * `issues.opened` sent again under a new delivery id is the same opening).
 */
export function openedEventId(issue: { id: number }): string {
  return `opened-${issue.id}`;
}

/** The app a pull request's issue view says opened it (its payload does not name it). */
export function performedViaApp(data: unknown): number | undefined {
  return (data as { performed_via_github_app?: { id: number } | null }).performed_via_github_app
    ?.id;
}

/**
 * Probot's Octokit as the adapters type it: the same client, whose Probot type adds plugins the
 * adapters' `Octokit` type does not name.
 */
export function octokitOf(client: unknown): Octokit {
  return client as Octokit;
}

/** The app's own Octokit (its JWT), or an installation's, as the adapters type it. */
export async function appOctokit(app: Probot, installation?: number): Promise<Octokit> {
  return octokitOf(await app.auth(installation));
}

/** A GitHub security alert event's payload, as the alert sources read it. */
export function gitHubAlertPayload(payload: unknown): Parameters<typeof fromGitHubAlert>[1] {
  return payload as Parameters<typeof fromGitHubAlert>[1];
}

/**
 * A delivery replayed by the reconcile sweep, handed to the webhooks' handlers (not Probot's
 * `receive`, which logs the whole payload at debug level). The sweep built the payload from what
 * GitHub listed; its type is the event's.
 */
export function replay(app: Probot, id: string, name: string, payload: unknown): Promise<void> {
  return app.webhooks.receive({ id, name, payload } as never);
}
