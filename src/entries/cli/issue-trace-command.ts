import { writeReportFile } from "../../adapters/local/safe-files.js";
import { resolve } from "node:path";
import { commandOctokit } from "../../adapters/github/octokit-pacing.js";
import {
  hasStateBlock,
  readStatusComment,
  readStatusUnverified,
} from "../../runtime/run-service/status-comment.js";
import {
  hasAdhocBlock,
  readAdhocComment,
  readAdhocUnverified,
  type AdhocLog,
} from "../../runtime/run-service/adhoc-log.js";
import { issueTrace, type IssueKey } from "../../runtime/run-service/issue-trace.js";
import { exportTrace, type TraceFormat } from "../../core/trace/export.js";
import type { RunState } from "../../core/engine/state.js";
import { repositoryStateKey, type StateSeal } from "../../runtime/state-codec.js";
import type { CommandIo } from "./run-command.js";

/** `owner/repo#n`, as `trace` takes an issue. */
export function parseIssueRef(text: string): IssueKey | undefined {
  const m = /^([A-Za-z0-9_.-]{1,100})\/([A-Za-z0-9_.-]{1,100})#([1-9][0-9]{0,9})$/.exec(text);
  return m ? { owner: m[1]!, repo: m[2]!, number: Number(m[3]) } : undefined;
}

export interface IssueTraceOptions {
  format: TraceFormat;
  output?: string;
  /** The app's installation on the repository (0 for the Actions runtime): with STATE_SECRET, seals are verified. */
  installation?: number;
  version?: string;
}

/** Comments read at most (30 pages). */
const MAX_COMMENTS = 3_000;

/**
 * `playbook-bot trace owner/repo#n`: an issue's trace read from its thread with GITHUB_TOKEN —
 * every run's state (its bounded summary of events) and the issue's work by hand. With
 * STATE_SECRET (the app's, or the Actions runtime's `state-secret`) each block's seal is checked
 * and one that fails is left out; without it the blocks are read unverified, and it says so.
 */
export async function issueTraceCommand(
  issue: IssueKey,
  opts: IssueTraceOptions,
  io: CommandIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const token = env.GITHUB_TOKEN || env.GH_TOKEN;
  if (!token) {
    io.err(
      `playbook-bot: reading ${issue.owner}/${issue.repo}#${issue.number} needs a token: set GITHUB_TOKEN (or GH_TOKEN)\n`,
    );
    return 1;
  }
  const octokit = commandOctokit(token, env.GITHUB_API_URL || undefined);
  const at = { owner: issue.owner, repo: issue.repo };
  let comments: { id: number; body?: string; user: { type?: string } | null }[];
  let seal: ((comment: string) => StateSeal) | undefined;
  try {
    const { data: repo } = await octokit.rest.repos.get(at);
    const secret = env.STATE_SECRET?.trim();
    if (secret) {
      const key = repositoryStateKey(secret, opts.installation ?? 0, repo.id);
      seal = (comment) => ({ key, issue: issue.number, comment });
    }
    comments = [];
    for await (const page of octokit.paginate.iterator(octokit.rest.issues.listComments, {
      ...at,
      issue_number: issue.number,
      per_page: 100,
    })) {
      comments.push(...page.data);
      if (comments.length >= MAX_COMMENTS) break;
    }
  } catch (err) {
    // Only an answer has a status worth naming; a failure to reach GitHub names its cause.
    const e = err as { status?: number; response?: unknown };
    const answered = e.response !== undefined && e.status ? ` (GitHub answered ${e.status})` : "";
    io.err(
      `playbook-bot: cannot read ${issue.owner}/${issue.repo}#${issue.number}${answered}: ${(err as Error).message}\n`,
    );
    return 1;
  }
  if (!seal)
    io.err(
      "playbook-bot: the runs' state blocks are read without checking their seals; set STATE_SECRET (and --installation, the app's installation id) to check them\n",
    );
  // Only bot accounts write state: a person's paste of a block is never read.
  const byBot = comments.filter((c) => c.user?.type === "Bot" && typeof c.body === "string");
  const newest = new Map<string, RunState>();
  let refused = 0;
  for (const c of byBot) {
    const body = c.body as string;
    if (!hasStateBlock(body)) continue;
    const read = seal ? readStatusComment(body, seal(String(c.id))) : readStatusUnverified(body);
    if (!read.ok) {
      refused++;
      continue;
    }
    const known = newest.get(read.run.id);
    if (!known || read.run.seq > known.seq) newest.set(read.run.id, read.run);
  }
  let adhoc: AdhocLog | undefined;
  for (const c of byBot.filter((x) => hasAdhocBlock(x.body as string)).reverse()) {
    const read = seal
      ? readAdhocComment(c.body as string, seal(String(c.id)))
      : readAdhocUnverified(c.body as string);
    if (typeof read === "object") {
      adhoc = read;
      break;
    }
    refused++;
  }
  if (refused > 0)
    io.err(`playbook-bot: ${refused} block(s) left out: their seal or their form does not check\n`);
  const trace = issueTrace(
    [...newest.values()].map((run) => ({ run })),
    adhoc,
    issue,
  );
  const text = `${JSON.stringify(exportTrace(trace.records, trace.runs, opts.format, opts.version ? { version: opts.version } : {}), null, 2)}\n`;
  if (opts.output) writeReportFile(resolve(io.cwd, opts.output), text);
  else io.out(text);
  return 0;
}
