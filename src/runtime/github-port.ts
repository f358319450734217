import type { EffectOutcome, EffectPerformer } from "./effects.js";
import type { LinkedPullRequest } from "../core/systematise/evidence.js";
import type { Effect, WorkflowRunFacts } from "../core/engine/events.js";
import type { Frame } from "../core/engine/state.js";
import type { Permission } from "../core/format/types.js";

export type Reaction = "eyes" | "rocket" | "-1";

/** The hidden block that carries a run's state at the end of its status comment. */
export const STATE_MARKER = "playbook-bot:state";

/** Whether a body holds a state block at all (cheap, before any verification). */
export function hasStateBlock(body: string): boolean {
  return body.includes(`<!-- ${STATE_MARKER} `);
}

export type { LinkedPullRequest };

/** Files proposed in a pull request of the app's (a drafted or improved playbook). */
export interface FileProposal {
  branch: string;
  files: { path: string; content: string }[];
  message: string;
  title: string;
  body: string;
}

/** An adapter's own branch, commit and pull request effects, as `proposeWith` composes them. */
export interface ProposalEffects {
  branch(effect: Effect<"branch">): Promise<EffectOutcome<"branch">>;
  commit(effect: Effect<"commit">): Promise<EffectOutcome<"commit">>;
  pullRequest(
    effect: Effect<"pull_request">,
    issue: number,
  ): Promise<EffectOutcome<"pull_request">>;
}

/**
 * Files proposed through an adapter's effects: the branch (reused while only proposals made it),
 * a commit of the files, the pull request (the open one again). Each effect's key derives from
 * `key`, so a retry finds what the first attempt did.
 */
export async function proposeWith(
  effects: ProposalEffects,
  issue: number,
  key: string,
  p: FileProposal,
): Promise<EffectOutcome<"pull_request">> {
  const effect = <K extends Effect["kind"]>(kind: K, params: Effect<K>["params"]) =>
    ({ key: `${key}/${kind}`, kind, step: "propose", params }) as Effect<K>;
  const branch = await effects.branch(effect("branch", { name: p.branch, if_exists: "reuse" }));
  if (!branch.ok) return branch;
  const name = branch.outputs.name;
  const commit = await effects.commit(
    effect("commit", { branch: name, message: p.message, files: p.files }),
  );
  if (!commit.ok) return commit;
  return effects.pullRequest(
    effect("pull_request", { head: name, title: p.title, body: p.body }),
    issue,
  );
}

export interface ThreadComment {
  id: string;
  author: string;
  /** Written by a bot account (any bot). */
  bot: boolean;
  /** Written by this app: only such comments are trusted to carry state. */
  byThisApp: boolean;
  body: string;
  createdAt: string;
  /** When it was last changed, where the reader knows: a comment whose differs was edited. */
  updatedAt?: string;
}

/**
 * What the issue controller needs from GitHub, for one repository. The Probot app implements it
 * with Octokit; `simulate` and tests with an in-memory repository. Effects go through the same
 * port, so the controller is the same everywhere.
 */
export interface GitHubPort extends EffectPerformer {
  /** The person's repository role (`role_name`); undefined when they have none or on error. */
  permission(login: string): Promise<Permission | undefined>;
  /** Team slugs (org/slug) the person belongs to, among those a policy names. */
  teams(login: string, candidates: readonly string[]): Promise<string[]>;
  comments(issue: number): Promise<ThreadComment[]>;
  /** This app's comments that hold a state block (status comments), oldest first. */
  statusComments(issue: number): Promise<ThreadComment[]>;
  comment(issue: number, id: string): Promise<ThreadComment | undefined>;
  createComment(issue: number, body: string): Promise<ThreadComment>;
  /**
   * A run's status comment, created before its state exists (the state is sealed to the id GitHub
   * gives it); remembered as one of the issue's status comments.
   */
  createStatusComment(issue: number, body: string): Promise<ThreadComment>;
  updateComment(issue: number, id: string, body: string): Promise<void>;
  /**
   * The newest comment `wanted` accepts, looked for from the thread's last page back (`count`: the
   * issue's comment count, when known); `every` is the whole thread when all of it was read.
   * Without it, the controller lists the thread.
   */
  newestComment?(
    issue: number,
    wanted: (c: ThreadComment) => boolean,
    count?: number,
  ): Promise<{ found?: ThreadComment; every?: ThreadComment[] }>;
  /**
   * A comment as this process last read or wrote it, without asking GitHub (it may have changed
   * since: the caller checks it is still the newest it knows of). Undefined when not remembered.
   */
  remembered?(id: string): ThreadComment | undefined;
  /**
   * An effect with this key may have happened before (its result was never saved): the port looks
   * for it before acting. Other effects were requested in this very event and are simply done.
   */
  mayHaveDone?(key: string): void;
  react(issue: number, commentId: string, reaction: Reaction): Promise<void>;
  /**
   * Pull requests of this repository that name the issue (GitHub's cross-references), oldest
   * first, at most `limit`, with what they changed and who approved them.
   */
  linkedPullRequests?(issue: number, limit: number): Promise<LinkedPullRequest[]>;
  /**
   * Proposes files in a pull request that names the issue: a branch from the default branch (the
   * same one again when it exists), a commit of the files, the pull request (the open one again).
   * `key` makes it idempotent, as an effect's key does. The app never merges it.
   */
  proposeFiles?(
    issue: number,
    key: string,
    proposal: FileProposal,
  ): Promise<EffectOutcome<"pull_request">>;
  /**
   * Issues (not pull requests) carrying every one of `labels`, open or closed, most recently
   * updated first, at most `limit`: where the same work may have been done before.
   */
  issuesLabelled?(
    labels: readonly string[],
    limit: number,
  ): Promise<{ number: number; labels: string[]; comments: number }[]>;
  /** Where a pull request stands: `/status` asks when the webhook of a merge may have been lost. */
  pullRequestState?(
    number: number,
  ): Promise<{ state: "open" | "closed"; merged: boolean; url: string }>;
  /**
   * The awaited workflow run, once completed, if any (same purpose): the run this wait's dispatch
   * started, matched as the webhook is; `since` is when a wait saved without the dispatch's facts
   * began.
   */
  completedWorkflowRun?(
    awaiting: NonNullable<Frame["awaiting"]>,
    since: string,
  ): Promise<CompletedWorkflowRun | undefined>;
}

/** A completed workflow run, with GitHub's facts about it. */
export interface CompletedWorkflowRun {
  id: number;
  conclusion: string;
  url?: string;
  run: WorkflowRunFacts;
}
