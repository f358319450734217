import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { playbookError, type PlaybookError } from "../../core/engine/errors.js";
import type { Effect } from "../../core/engine/events.js";
import {
  branchExists,
  candidateNames,
  foreignBranch,
  foreignCommits,
  ifExists,
  noFreeName,
  type BranchCommit,
} from "../branch-reuse.js";
import type { CommitFileContent } from "../../core/steps/commit/effect.js";
import { runTrailer, type EffectOutcome } from "../../runtime/effects.js";

const run = promisify(execFile);

export interface GitResult {
  stdout: string;
}

/** Runs git in one work tree. Commits are built with plumbing, so the checkout is never touched. */
export class LocalGit {
  constructor(readonly cwd: string) {}

  async git(
    args: string[],
    options: { input?: string; env?: Record<string, string> } = {},
  ): Promise<string> {
    const child = run("git", args, {
      cwd: this.cwd,
      env: { ...process.env, ...options.env, GIT_TERMINAL_PROMPT: "0" },
      maxBuffer: 16 * 1024 * 1024,
    });
    if (options.input !== undefined) {
      child.child.stdin?.end(options.input);
    }
    const { stdout } = await child;
    return stdout.trim();
  }

  async tryGit(args: string[]): Promise<string | undefined> {
    try {
      return await this.git(args);
    } catch {
      return undefined;
    }
  }

  async isRepository(): Promise<boolean> {
    return (await this.tryGit(["rev-parse", "--git-dir"])) !== undefined;
  }

  async branchHead(name: string): Promise<string | undefined> {
    return this.tryGit(["rev-parse", "--verify", "--quiet", `refs/heads/${name}^{commit}`]);
  }

  /** A committer identity when git has none configured (fresh machines, CI), else nothing. */
  async identityEnv(): Promise<Record<string, string>> {
    const email = await this.tryGit(["config", "user.email"]);
    const name = await this.tryGit(["config", "user.name"]);
    if (email && name) return {};
    const env: Record<string, string> = {};
    if (!name) env.GIT_AUTHOR_NAME = env.GIT_COMMITTER_NAME = "playbook-bot";
    if (!email) env.GIT_AUTHOR_EMAIL = env.GIT_COMMITTER_EMAIL = "playbook-bot@localhost";
    return env;
  }

  async hasRemote(name = "origin"): Promise<boolean> {
    return (await this.tryGit(["remote", "get-url", name])) !== undefined;
  }
}

function gitError(err: unknown, what: string): { ok: false; error: PlaybookError } {
  const e = err as { stderr?: string; message?: string };
  return {
    ok: false,
    error: playbookError(
      "GIT-FAILED",
      `git could not ${what}`,
      (e.stderr || e.message || String(err)).trim(),
    ),
  };
}

/** The `url` of a branch or commit made here: it exists only in this repository, not on a web page. */
export const LOCAL_BRANCH = "(local branch)";
export const LOCAL_COMMIT = "(local commit)";

/** How many commits of a branch are checked before it counts as not this run's. */
const MAX_CHECKED_COMMITS = 250;

/**
 * Commits on `branch` that are not on `base`, or undefined when they cannot be told apart (the
 * base is the branch itself, or there are too many to check).
 */
async function commitsBeyond(
  git: LocalGit,
  base: string,
  branch: string,
): Promise<BranchCommit[] | undefined> {
  const symbolic = await git.tryGit(["symbolic-ref", "-q", base]);
  if (symbolic === `refs/heads/${branch}`) return undefined;
  const log = await git.git([
    "log",
    "-n",
    String(MAX_CHECKED_COMMITS + 1),
    "--format=%H%x00%B%x01",
    `refs/heads/${branch}`,
    "--not",
    `${base}^{commit}`,
    "--",
  ]);
  const commits = log
    .split("\x01")
    .map((entry) => entry.trim().split("\x00"))
    .filter(([sha]) => sha)
    .map(([sha, message]) => ({ sha: sha as string, message: message ?? "" }));
  return commits.length > MAX_CHECKED_COMMITS ? undefined : commits;
}

/**
 * `branch` effect: create from the base, or reuse an existing branch only where it holds nothing
 * this run did not put there (every commit beyond the base carries this run's trailer), so the
 * run's pull request can never carry someone else's commit. `if_exists` says what else to do.
 */
export async function gitBranch(
  git: LocalGit,
  effect: Effect<"branch">,
): Promise<EffectOutcome<"branch">> {
  const mode = ifExists(effect.params);
  const requested = effect.params.name;
  const from = effect.params.from ?? "HEAD";
  for (const name of candidateNames(requested, mode)) {
    const existing = await git.branchHead(name);
    if (!existing) {
      try {
        const base = await git.git(["rev-parse", "--verify", `${from}^{commit}`]);
        await git.git(["update-ref", `refs/heads/${name}`, base, ""]);
        return { ok: true, outputs: { name, sha: base, created: true, url: LOCAL_BRANCH } };
      } catch (err) {
        return gitError(err, `create branch '${name}' from '${from}'`);
      }
    }
    if (mode === "fail") return { ok: false, error: branchExists(name) };
    let beyond: BranchCommit[] | undefined;
    try {
      beyond = await commitsBeyond(git, from, name);
    } catch (err) {
      return gitError(err, `compare branch '${name}' with '${from}'`);
    }
    const foreign = beyond ? foreignCommits(beyond, effect.key) : undefined;
    if (foreign?.length === 0)
      return { ok: true, outputs: { name, sha: existing, created: false, url: LOCAL_BRANCH } };
    if (mode === "new-name") continue;
    return {
      ok: false,
      error: foreign
        ? foreignBranch(name, foreign)
        : playbookError(
            "GH-CONFLICT",
            `branch '${name}' already exists and what it holds cannot be checked against '${from}' (it is checked out, or has more than ${MAX_CHECKED_COMMITS} commits beyond it): check out the base branch, or delete or rename '${name}', or set \`if_exists: new-name\` on the step; then retry`,
          ),
    };
  }
  return { ok: false, error: noFreeName(requested) };
}

/**
 * Why a run may not commit to a branch here, if it may not: the repository's default branch
 * (origin's HEAD), or the branch checked out in the work tree (moving it under the work tree
 * would leave the checkout's files and index behind it, the change seen as staged undone).
 */
async function keptBranch(git: LocalGit, branch: string): Promise<string | undefined> {
  const checkedOut = await git.tryGit(["symbolic-ref", "--short", "-q", "HEAD"]);
  if (checkedOut === branch) return "the branch checked out in the work tree";
  const origin = await git.tryGit(["symbolic-ref", "--short", "-q", "refs/remotes/origin/HEAD"]);
  if (origin?.replace(/^origin\//, "") === branch) return "the repository's default branch";
  return undefined;
}

/**
 * `commit` effect: all files in one commit on the branch, made with a temporary index (like the
 * Git Data API: blobs, tree, commit, ref update). A commit whose trailer names the effect key is
 * found and reused, so a retry after a crash does not commit twice.
 */
export async function gitCommit(
  git: LocalGit,
  effect: Effect<"commit">,
  readWorkTree: (pattern: string) => Promise<CommitFileContent[]>,
): Promise<EffectOutcome<"commit">> {
  const branch = effect.params.branch;
  const trailer = runTrailer(effect.key);
  const kept = await keptBranch(git, branch);
  if (kept)
    return {
      ok: false,
      error: playbookError(
        "PB-EFFECT-FAILED",
        `a run does not commit to '${branch}': it is ${kept}. Open the run's own branch with a branch step before the commit, and commit there ({{ steps.<branch-step>.outputs.name }})`,
      ),
    };
  const parent = await git.branchHead(branch);
  if (!parent)
    return {
      ok: false,
      error: playbookError(
        "GH-NOT-FOUND",
        `branch '${branch}' does not exist; create it with a branch step first`,
      ),
    };
  const log =
    (await git.tryGit(["log", "-n", "50", "--format=%H%x00%B%x01", `refs/heads/${branch}`])) ?? "";
  for (const entry of log.split("\x01")) {
    const [sha, body] = entry.trim().split("\x00");
    // Whole trailer lines only: the trailer for key `x/1` is a prefix of the one for `x/12`.
    if (sha && body?.split("\n").some((line) => line.trim() === trailer))
      return { ok: true, outputs: { sha, branch, created: false, url: LOCAL_COMMIT } };
  }
  const files = [...(effect.params.files ?? [])];
  for (const pattern of effect.params.paths ?? []) files.push(...(await readWorkTree(pattern)));
  if (files.length === 0)
    return {
      ok: false,
      error: playbookError("PB-EFFECT-FAILED", "the commit has no files: no path matched"),
    };
  const tmp = mkdtempSync(join(tmpdir(), "playbook-bot-index-"));
  const env = { GIT_INDEX_FILE: join(tmp, "index") };
  try {
    await git.git(["read-tree", parent], { env });
    for (const f of files) {
      const blob = await git.git(["hash-object", "-w", "--stdin"], { input: f.content });
      await git.git(["update-index", "--add", "--cacheinfo", `100644,${blob},${f.path}`], { env });
    }
    const tree = await git.git(["write-tree"], { env });
    const message = `${effect.params.message}\n\n${trailer}\n`;
    const sha = await git.git(["commit-tree", tree, "-p", parent, "-F", "-"], {
      input: message,
      env: await git.identityEnv(),
    });
    await git.git(["update-ref", `refs/heads/${branch}`, sha, parent]);
    return { ok: true, outputs: { sha, branch, created: true, url: LOCAL_COMMIT } };
  } catch (err) {
    return gitError(err, `commit to '${branch}'`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
