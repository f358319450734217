import { parseCommands } from "../../core/engine/commands.js";
import { playbookError, type PlaybookError } from "../../core/engine/errors.js";
import { ASK_FIRST_APPROVERS, approvalRefusal } from "../../core/engine/policy.js";
import type { Actor, ApprovalFact, RunState } from "../../core/engine/state.js";
import { graphOf } from "../../core/format/graph.js";
import type { Approvers, CheckpointStep, Step } from "../../core/format/types.js";
import { answeredWithApproval } from "../../core/steps/registry.js";
import type { PlaybookBundle } from "../../core/steps/types.js";
import type { GitHubPort, ThreadComment } from "../github-port.js";

/**
 * The one guard before every effect, on every host: an effect runs only while every approval it
 * rests on holds, judged from facts on GitHub rather than from the run's state. The state names
 * who approved and in which comment (`ApprovalFact`); in the Actions runtime anyone who may write
 * to the repository can read the key that seals states, so what it says is only where to look.
 * For each approval the guard reads the approving comment again and checks that
 *
 * - it exists, on this issue, written by the approver the state names (not a bot);
 * - it was never edited: its `updated_at` is its `created_at`. People with write access may edit
 *   anyone's comment, so an edit could turn a maintainer's words into `/approve`. Whether a
 *   reaction moves a comment's `updated_at`, the documentation searched for this (GitHub's REST
 *   reference for issue comments and reactions) does not say. Reactions are resources of their
 *   own, with their own endpoints, and the guard takes it that they leave the comment's
 *   `updated_at` alone (the in-memory GitHub does so too). Were it otherwise, approvals would be
 *   refused (the app reacts to every command it reads), never wrongly accepted. GitHub's times are
 *   whole seconds: an edit within the second the comment was made is not told apart;
 * - its words, as written, approve this step (`/approve`, or `/approve <step>`);
 * - it is newer than the run's status comment and than the comment that asked for the approval
 *   (GitHub's comment ids only grow): an approval from an earlier run or wait does not count;
 * - its author's role now still passes the policy that admitted them.
 *
 * What was read is kept for one event (`forget` starts the next): one read per approving comment
 * per delivery, conditional (an ETag) where the port has it.
 */
export interface ApprovalGuardOptions {
  port: Pick<GitHubPort, "comment" | "permission" | "teams">;
  issue: number;
  /**
   * Whether the key that seals states is this host's alone (the GitHub App's server, whose
   * STATE_SECRET nobody with write access can read): then a state was written by this app, its
   * approvals were checked as their comments were written when the commands came, and before an
   * effect only the approvers' roles are asked again (no comment is re-read, which would cost a
   * request per effect and prove nothing more). Elsewhere (the Actions runtime, where anyone who
   * can push a workflow can read the key) each approving comment is read again as described above,
   * and an approval the state names without its comment must be given again.
   */
  stateKeyPrivate?: boolean;
}

/** An approval an effect rests on: the step, who approved, as facts, and the policy. */
export interface GivenApproval {
  step: string;
  approvers: string[];
  facts: ApprovalFact[];
  policy: Approvers;
  /** The step's ids in its playbook: a first word naming another step is not for this one. */
  steps: ReadonlySet<string>;
}

export class ApprovalGuard {
  private readonly comments = new Map<string, Promise<ThreadComment | undefined>>();
  private readonly actors = new Map<string, Promise<Actor>>();

  constructor(private readonly o: ApprovalGuardOptions) {}

  /** A new event begins: what GitHub said during the last one is asked again. */
  forget(): void {
    this.comments.clear();
    this.actors.clear();
  }

  /**
   * Why an effect of `run` may not run now, or undefined. `statusComment`: the id of the run's
   * status comment (the state is sealed to it: a fact nobody can rewrite).
   */
  async check(
    run: RunState,
    playbooks: (id: string) => PlaybookBundle | undefined,
    statusComment: string,
  ): Promise<PlaybookError | undefined> {
    const given = approvalsInForce(run, playbooks);
    if (typeof given === "string")
      return playbookError(
        "GH-PERMISSION",
        `the approvals of playbook '${given}' cannot be checked: it is not available`,
      );
    // Where the state cannot be believed, it must not skip a checkpoint either (see skipped()).
    const skipped = this.o.stateKeyPrivate ? undefined : skippedCheckpoint(run, playbooks);
    if (skipped)
      return playbookError(
        "GH-PERMISSION",
        `the run's state is past checkpoint '${skipped}' but holds no approval of it, so nothing on GitHub says it was approved; start the run again`,
      );
    for (const g of given) {
      const why = await this.refusal(g, run, statusComment);
      if (why)
        return playbookError(
          "GH-PERMISSION",
          `the approval of '${g.step}' no longer holds: ${why}`,
        );
    }
    return undefined;
  }

  private async refusal(
    g: GivenApproval,
    run: RunState,
    statusComment: string,
  ): Promise<string | undefined> {
    for (const login of g.approvers) {
      const fact = g.facts.find((f) => f.user.toLowerCase() === login.toLowerCase());
      if (!fact && !this.o.stateKeyPrivate)
        return `the run's state names @${login} but not the comment they approved in (a state written before approvals were recorded with their comments, or not by this app), so it cannot be checked on GitHub; the approval must be given again: start the run again`;
      const wrong =
        fact && !this.o.stateKeyPrivate && (await this.commentRefusal(fact, g, statusComment));
      if (wrong) return wrong;
      const now = await this.actor(login, g.policy.teams ?? []);
      const why = approvalRefusal(now, g.policy, run.initiator);
      if (why) return why;
    }
    return undefined;
  }

  /** What is wrong with the comment an approval was given in, as GitHub has it now. */
  private async commentRefusal(
    fact: ApprovalFact,
    g: GivenApproval,
    statusComment: string,
  ): Promise<string | undefined> {
    const c = await this.read(fact.comment);
    const it = `@${fact.user}'s approving comment ${fact.comment}`;
    if (!c) return `${it} is gone`;
    if (c.issue !== undefined && c.issue !== this.o.issue) return `${it} is not on this issue`;
    if (c.bot || c.author.toLowerCase() !== fact.user.toLowerCase())
      return `${it} was written by @${c.author}, not by @${fact.user}`;
    if (c.updatedAt === undefined)
      return `${it} cannot be checked: GitHub did not say whether it was edited`;
    if (Date.parse(c.updatedAt) !== Date.parse(c.createdAt))
      return `${it} was edited after it was written; an approval counts only as it was given, so it must be given again in a new comment`;
    if (!approves(c.body, g)) return `${it} does not say /approve for '${g.step}'`;
    if (!newer(c.id, statusComment) || (fact.prompt !== undefined && !newer(c.id, fact.prompt)))
      return `${it} is older than the request for approval`;
    return undefined;
  }

  private read(id: string): Promise<ThreadComment | undefined> {
    let c = this.comments.get(id);
    if (!c) {
      c = this.o.port.comment(this.o.issue, id);
      this.comments.set(id, c);
      // A failed read is not remembered: the delivery fails and is tried again.
      c.catch(() => this.comments.delete(id));
    }
    return c;
  }

  /** A person's role and teams (among those named) as GitHub says now; a failed lookup throws. */
  private actor(login: string, teams: readonly string[]): Promise<Actor> {
    const key = [login.toLowerCase(), ...teams].join("\n");
    let a = this.actors.get(key);
    if (!a) {
      a = (async () => {
        const actor: Actor = { login };
        const permission = await this.o.port.permission(login);
        if (permission) actor.permission = permission;
        if (teams.length) actor.teams = await this.o.port.teams(login, teams);
        return actor;
      })();
      this.actors.set(key, a);
      a.catch(() => this.actors.delete(key));
    }
    return a;
  }
}

/** Whether a comment's words approve the step: its last vote for that step is `/approve`. */
function approves(body: string, g: GivenApproval): boolean {
  const votes = parseCommands(body).filter(
    (c) =>
      c.kind === "command" &&
      (c.name === "approve" || c.name === "reject") &&
      forStep(c.args.positional[0], g),
  );
  const last = votes.at(-1);
  return last?.kind === "command" && last.name === "approve";
}

/** A vote's first word names this step, or no step at all (then it is the note). */
function forStep(word: string | undefined, g: GivenApproval): boolean {
  return word === undefined || word === g.step || !g.steps.has(word);
}

/** Whether GitHub id `a` is newer than `b` (ids only grow; compared as whole numbers). */
function newer(a: string, b: string): boolean {
  return /^[0-9]+$/.test(a) && /^[0-9]+$/.test(b) && BigInt(a) > BigInt(b);
}

/**
 * The approvals an effect rests on: every checkpoint passed in the run's frames (a delegated
 * playbook acts on its parent's approvals too), and the ask-first approval of the step each frame
 * is at. The id of a playbook that is not available, when one is not.
 */
export function approvalsInForce(
  run: RunState,
  playbooks: (id: string) => PlaybookBundle | undefined,
): GivenApproval[] | string {
  const out: GivenApproval[] = [];
  for (const frame of run.stack) {
    const bundle = playbooks(frame.playbook);
    if (!bundle) return frame.playbook;
    const graph = graphOf(bundle.playbook);
    const steps = new Set(graph.byId.keys());
    for (const [id, r] of Object.entries(frame.results)) {
      const step = approvalStep(graph.byId.get(id)?.step);
      const by = r.outputs?.approved_by;
      if (step && r.status === "completed" && Array.isArray(by))
        out.push({
          step: id,
          approvers: by.map(String),
          facts: r.approvals ?? [],
          policy: step.approvers ?? {},
          steps,
        });
    }
    const current = frame.current;
    if (current !== null && frame.approved?.includes(current))
      out.push({
        step: current,
        approvers: frame.approvedBy?.[current] ?? [],
        facts: frame.approvalFacts?.[current] ?? [],
        policy: ASK_FIRST_APPROVERS,
        steps,
      });
  }
  return out;
}

/**
 * A checkpoint every path to a frame's current step passes through, that the state records no
 * approval of: a state written by someone who can seal one (the Actions runtime's key is readable
 * by anyone with write access) could simply leave the checkpoint out. A checkpoint left through
 * its `on_reject` or `on_timeout` exit has no approvers; that is believed only where it has such
 * an exit (the state still cannot prove which exit was taken: a residue of the Actions bot's
 * row in docs/security.md).
 */
export function skippedCheckpoint(
  run: RunState,
  playbooks: (id: string) => PlaybookBundle | undefined,
): string | undefined {
  for (const frame of run.stack) {
    const bundle = playbooks(frame.playbook);
    if (!bundle || frame.current === null) continue;
    const graph = graphOf(bundle.playbook);
    for (const id of graph.dominators().get(frame.current)?.ids() ?? []) {
      const step = approvalStep(graph.byId.get(id)?.step);
      if (id === frame.current || !step) continue;
      const r = frame.results[id];
      const by = r?.outputs?.approved_by;
      const approved = r?.status === "completed" && Array.isArray(by) && by.length > 0;
      const exited = r?.status === "completed" && (step.on_reject ?? step.on_timeout) !== undefined;
      if (!approved && !exited) return id;
    }
  }
  return undefined;
}

/** The step when people answer it with an approval (its kind says: a checkpoint). */
function approvalStep(step: Step | undefined): CheckpointStep | undefined {
  return answeredWithApproval(step) ? (step as CheckpointStep) : undefined;
}
