import type { CommandArgs, Reply } from "../../core/engine/events.js";
import { code, issueRef, paragraph, raw, renderMarkdown } from "../../core/markdown/index.js";
import {
  adhocEvidence,
  hasAdhocBlock,
  hasEvent,
  readAdhocComment,
  renderAdhocComment,
  withEntries,
  type AdhocEntry,
  type AdhocLog,
} from "./adhoc-log.js";
import type { GitHubPort, ThreadComment } from "../github-port.js";
import type { StateSeal } from "../state-codec.js";
import type { Coordination } from "../coordination.js";
import { signatureParts } from "../../core/systematise/index.js";

/** How long the coordination store remembers which comment holds an issue's log. */
const REMEMBER_MS = 30 * 24 * 3600_000;
/** Issues with the same labels looked at, and ad-hoc logs read, when looking for recurrence. */
const CANDIDATE_ISSUES = 30;
const LOGS_READ = 10;
/** Issues (this one among them) that must show the same work before `/systematise` is suggested. */
export const RECURRENCE = 3;
/** Marks the app's suggestion, so it is made once. */
export const SUGGESTION_MARKER = "playbook-bot:suggest-systematise";

export interface AdhocWorkOptions {
  port: GitHubPort;
  memory: Pick<Coordination, "get" | "put" | "raiseTo">;
  repo: { owner: string; name: string };
  issue: { number: number; comments?: number; labels?: string[] };
  /** Seals a block to a comment of an issue (the repository's state key). */
  seal: (issue: number, commentId: string) => StateSeal;
  clock: () => Date;
}

/** What makes ad-hoc work alike (see signature.ts): the issue's labels and its recorded findings. */
function signatureOf(labels: readonly string[] | undefined, log: AdhocLog) {
  return signatureParts({
    issue: { number: 0, title: "", labels: [...(labels ?? [])] },
    adhoc: adhocEvidence(log),
    runs: [],
    pullRequests: [],
  });
}

const same = (a: readonly string[], b: readonly string[]) => a.join(",") === b.join(",");

/**
 * Work people do by hand on an issue: `/record` with nothing waiting and `/note`, kept in the
 * issue's ad-hoc log (see adhoc-log.ts). When the same work recurs — other issues with the same
 * labels whose logs recorded the same findings — `/systematise` is suggested once, on the latest.
 */
export class AdhocWork {
  constructor(private readonly o: AdhocWorkOptions) {}

  /** Adds a command's entries to the log (once, whatever the redeliveries); the command's reply. */
  async record(
    kind: "record" | "note",
    args: CommandArgs,
    comment: ThreadComment,
    eventId: string,
  ): Promise<Reply> {
    const head = { event: eventId, actor: comment.author, at: comment.createdAt };
    const entries: AdhocEntry[] =
      kind === "record"
        ? Object.entries(args.values).map(([key, value]) => ({ kind, ...head, key, value }))
        : args.text.trim()
          ? [{ kind, ...head, text: args.text.trim() }]
          : [];
    if (entries.length === 0)
      return {
        outcome: "refused",
        reason:
          kind === "record"
            ? "say what you found: `/record key=value …`"
            : "say what you did: `/note <text>`",
      };
    const found = await this.log();
    if (hasEvent(found.log, eventId)) return { outcome: "accepted" };
    // Past every sequence written on this issue (a log begun anew after an edit broke the seal too).
    const written = await this.o.memory.raiseTo(this.seqKey(this.o.issue.number), 0, REMEMBER_MS);
    const seq = Math.max(found.log.seq ?? 0, written.highest) + 1;
    let log: AdhocLog = { ...withEntries(found.log, entries), seq };
    const id =
      found.commentId ??
      (await this.o.port.createComment(this.o.issue.number, "Recording work done by hand…")).id;
    const labels = this.o.issue.labels;
    const changed = !same(
      signatureOf(labels, log).findings,
      signatureOf(labels, found.log).findings,
    );
    const told = changed ? await this.recurs(log) : undefined;
    if (told) log = { ...log, suggested: this.o.clock().toISOString(), suggestedFor: told };
    const body = renderAdhocComment(log, this.o.seal(this.o.issue.number, id));
    await this.o.port.updateComment(this.o.issue.number, id, body);
    const issue = this.o.issue.number;
    await this.o.memory.put(this.key(issue), id, REMEMBER_MS);
    // The newest log is kept beside its sequence: a restored earlier one gives way to it.
    await this.o.memory.put(this.copyKey(issue), { commentId: id, body }, REMEMBER_MS);
    await this.o.memory.raiseTo(this.seqKey(issue), log.seq ?? 0, REMEMBER_MS);
    if (found.restored)
      await this.o.port.createComment(
        issue,
        renderMarkdown(
          paragraph(
            "The log of work recorded by hand had been edited back to an earlier version; ",
            "the newest one the app wrote is kept, with this entry added.",
          ),
        ),
      );
    return { outcome: "accepted" };
  }

  private key(issue: number): string {
    return `adhoc:${this.o.repo.owner}/${this.o.repo.name}#${issue}`;
  }

  private seqKey(issue: number): string {
    return `adhoc-seq:${this.o.repo.owner}/${this.o.repo.name}#${issue}`;
  }

  private copyKey(issue: number): string {
    return `adhoc-copy:${this.o.repo.owner}/${this.o.repo.name}#${issue}`;
  }

  /**
   * The log in a comment, checked against the newest sequence the app wrote: an earlier one (an
   * edit restored a sealed body from the comment's history) gives way to the copy the app kept.
   */
  private async newest(
    issue: number,
    commentId: string,
    log: AdhocLog,
  ): Promise<{ log: AdhocLog; restored?: true }> {
    const raised = await this.o.memory.raiseTo(this.seqKey(issue), log.seq ?? 0, REMEMBER_MS);
    if (!raised.behind) return { log };
    const copy = await this.o.memory.get<{ commentId?: unknown; body?: unknown }>(
      this.copyKey(issue),
    );
    const kept =
      copy?.commentId === commentId && typeof copy.body === "string"
        ? readAdhocComment(copy.body, this.o.seal(issue, commentId))
        : undefined;
    if (typeof kept === "object" && (kept.seq ?? 0) >= raised.highest)
      return { log: kept, restored: true };
    // The newest is gone from the store too: the earlier log is all there is, still said.
    return { log: { ...log, seq: raised.highest }, restored: true };
  }

  /**
   * An issue's ad-hoc log and the comment that holds it: the one the coordination store names,
   * else the newest of this app's comments carrying one. A log whose seal fails (someone edited
   * the comment) is not believed: a new comment starts a new log.
   */
  async log(
    issue = this.o.issue.number,
    count = issue === this.o.issue.number ? this.o.issue.comments : undefined,
  ): Promise<{ log: AdhocLog; commentId?: string; restored?: true }> {
    const empty: AdhocLog = { entries: [], dropped: 0 };
    const known = await this.o.memory.get<string>(this.key(issue));
    let c = known ? await this.o.port.comment(issue, known) : undefined;
    if (!c?.byThisApp || !hasAdhocBlock(c.body)) {
      const wanted = (x: ThreadComment) => x.byThisApp && hasAdhocBlock(x.body);
      c = this.o.port.newestComment
        ? (await this.o.port.newestComment(issue, wanted, count)).found
        : (await this.o.port.comments(issue)).filter(wanted).at(-1);
    }
    if (!c) return { log: empty };
    const log = readAdhocComment(c.body, this.o.seal(issue, c.id));
    if (typeof log !== "object") return { log: empty };
    return { ...(await this.newest(issue, c.id, log)), commentId: c.id };
  }

  /**
   * Whether this issue's work recurs, and if so, suggests `/systematise` here: at least
   * RECURRENCE - 1 other issues with the same labels recorded the same findings by hand, none
   * of them was told already, and no run was ever started here (the issue is ad hoc).
   */
  private async recurs(log: AdhocLog): Promise<string[] | undefined> {
    const { port, issue } = this.o;
    const labels = issue.labels ?? [];
    const mine = signatureOf(labels, log);
    if (log.suggested || mine.findings.length === 0 || mine.labels.length === 0) return undefined;
    if (!port.issuesLabelled) return undefined;
    if ((await port.statusComments(issue.number)).length > 0) return undefined;
    const candidates = (await port.issuesLabelled(labels, CANDIDATE_ISSUES))
      .filter((i) => i.number !== issue.number && i.comments > 0)
      .slice(0, LOGS_READ);
    const alike: number[] = [];
    for (const c of candidates) {
      const other = (await this.log(c.number, c.comments)).log;
      const theirs = signatureOf(c.labels, other);
      if (!same(theirs.labels, mine.labels)) continue;
      // An issue told for these findings: the group was told already.
      if (other.suggestedFor && same(other.suggestedFor, mine.findings)) return undefined;
      if (same(theirs.findings, mine.findings)) alike.push(c.number);
    }
    if (alike.length < RECURRENCE - 1) return undefined;
    await port.createComment(
      issue.number,
      renderMarkdown(
        paragraph(
          "This work was done by hand before: ",
          ...alike.sort((a, b) => a - b).flatMap((n, i) => [...(i > 0 ? [", "] : []), issueRef(n)]),
          " recorded the same findings (",
          ...mine.findings.flatMap((k, i) => [...(i > 0 ? [", "] : []), code(k)]),
          ") under the same labels. ",
          code("/systematise <id>"),
          " drafts a playbook from this issue and proposes it in a pull request for review.",
        ),
        raw(`<!-- ${SUGGESTION_MARKER} -->`),
      ),
    );
    return mine.findings;
  }
}
