import { readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { bundledLibraryDir, playbookFilesIn, SYSTEM_PLAYBOOKS } from "../local/library.js";
import { isPlaybookFile } from "../../core/dialects/files.js";
import { joinRelative, resolveTiers, type Tier, type Tiered } from "../../runtime/tiers.js";
import { LruMap } from "../../runtime/lru.js";
import type { Octokit } from "./octokit-port.js";

/** Where playbooks live in a repository (and in the organisation's `.github` repository). */
export const PLAYBOOK_DIR = ".github/playbooks/";
const MAX_FILES = 300;
const MAX_FILE_BYTES = 1024 * 1024;

let bundled: Promise<Tier> | undefined;

/** The bundled library as a tier (read once per process). */
export function bundledTier(): Promise<Tier> {
  bundled ??= (async () => {
    const dir = bundledLibraryDir();
    const files = await playbookFilesIn(dir);
    return {
      files: files.map((file) => ({
        file: `bundled/${relative(dir, file)}`,
        source: readFileSync(file),
      })),
      read: (file: string, rel: string) => {
        try {
          return readFileSync(join(dir, dirname(file.slice("bundled/".length)), rel), "utf8");
        } catch {
          return undefined;
        }
      },
      locked: SYSTEM_PLAYBOOKS,
    };
  })();
  return bundled;
}

/** A repository's playbook folder at one commit, as a tier: one tree request and one per file. */
async function tierAt(
  octokit: Octokit,
  owner: string,
  repo: string,
  commit: string,
): Promise<Tier | undefined> {
  let tree: { path?: string; type?: string; sha?: string; size?: number }[];
  try {
    const { data } = await octokit.rest.git.getTree({
      owner,
      repo,
      tree_sha: commit,
      recursive: "1",
    });
    tree = data.tree;
  } catch (err) {
    if ((err as { status?: number }).status === 404) return undefined;
    throw err;
  }
  const entries = tree
    .filter(
      (e) =>
        e.type === "blob" && e.path?.startsWith(PLAYBOOK_DIR) && (e.size ?? 0) <= MAX_FILE_BYTES,
    )
    .slice(0, MAX_FILES);
  const contents = new Map<string, string>();
  for (const e of entries) {
    const { data } = await octokit.rest.git.getBlob({ owner, repo, file_sha: e.sha as string });
    contents.set(
      e.path as string,
      Buffer.from(data.content, data.encoding === "base64" ? "base64" : "utf8").toString("utf8"),
    );
  }
  return {
    files: [...contents.entries()]
      .filter(([p, text]) => isPlaybookFile(p, () => text))
      .map(([file, source]) => ({ file, source })),
    read: (file, rel) => contents.get(joinRelative(file, rel)),
    commit,
  };
}

export interface Discovered {
  tiered: Tiered;
  /** The default branch's head the playbooks were read at. */
  commit: string;
}

/**
 * Playbooks for a repository: its `.github/playbooks/` on the default branch, then the
 * organisation's `.github` repository, then the bundled library. Read from the default branch only,
 * and cached by commit SHA: an unchanged repository costs one request per event.
 */
export class PlaybookDiscovery {
  private readonly byCommit = new LruMap<string, Tiered>(200);
  private readonly orgTiers = new LruMap<string, { at: number; tier: Tier | undefined }>(200);

  constructor(
    private readonly orgTtlMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  private async orgTier(octokit: Octokit, owner: string, repo: string): Promise<Tier | undefined> {
    if (repo === ".github") return undefined;
    const cached = this.orgTiers.get(owner);
    if (cached && this.now() - cached.at < this.orgTtlMs) return cached.tier;
    let tier: Tier | undefined;
    try {
      const { data } = await octokit.rest.repos.get({ owner, repo: ".github" });
      const { data: ref } = await octokit.rest.git.getRef({
        owner,
        repo: ".github",
        ref: `heads/${data.default_branch}`,
      });
      tier = await tierAt(octokit, owner, ".github", ref.object.sha);
      if (tier)
        tier = {
          ...tier,
          files: tier.files.map((f) => ({ ...f, file: `${owner}/.github/${f.file}` })),
          read: (file, rel) => (tier as Tier).read(file.slice(`${owner}/.github/`.length), rel),
        };
    } catch {
      tier = undefined; // no organisation repository, or the app cannot see it
    }
    this.orgTiers.set(owner, { at: this.now(), tier });
    return tier;
  }

  private readonly reachable = new LruMap<string, true>(10_000);

  /**
   * Whether a commit is on the default branch (an ancestor of its head, or the head): asked of
   * GitHub's compare API once per commit. Only "yes" is remembered; a commit merged later may
   * still become one.
   */
  async onDefaultBranch(
    octokit: Octokit,
    owner: string,
    repo: string,
    commit: string,
    head: string,
  ): Promise<boolean> {
    if (!/^[0-9a-f]{40}$/.test(commit)) return false;
    if (commit === head) return true;
    const key = `${owner}/${repo}@${commit}`;
    if (this.reachable.has(key)) return true;
    try {
      const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
        owner,
        repo,
        basehead: `${commit}...${head}`,
        per_page: 1,
      });
      const yes = data.status === "ahead" || data.status === "identical";
      if (yes) this.reachable.set(key, true);
      return yes;
    } catch (err) {
      if ((err as { status?: number }).status === 404) return false;
      throw err;
    }
  }

  /** The playbooks at the default branch's head. */
  async current(
    octokit: Octokit,
    owner: string,
    repo: string,
    defaultBranch: string,
  ): Promise<Discovered> {
    const commit = await this.head(octokit, owner, repo, defaultBranch);
    // Runs started now are pinned to this commit: their later events need not ask again.
    this.reachable.set(`${owner}/${repo}@${commit}`, true);
    const tiered = await this.at(octokit, owner, repo, commit);
    this.issueSelecting.set(
      `${owner}/${repo}`,
      [...tiered.bundles.values()].some((b) => b.playbook.on?.issues !== undefined),
    );
    return { tiered, commit };
  }

  private readonly issueSelecting = new LruMap<string, boolean>(10_000);

  /**
   * Whether the repository's playbooks, as last read, select newly opened issues (on.issues);
   * undefined when they have not been read yet. Lets an unlabelled new issue cost no request
   * where nothing would start from it.
   */
  selectsIssues(owner: string, repo: string): boolean | undefined {
    return this.issueSelecting.get(`${owner}/${repo}`);
  }

  /** Whether a commit is already known to be on the default branch (no request). */
  knownOnDefaultBranch(owner: string, repo: string, commit: string): boolean {
    return this.reachable.has(`${owner}/${repo}@${commit}`);
  }

  /** The default branch's head SHA and its ETag, per repository (a 304 leaves the head as it was). */
  private readonly heads = new LruMap<string, { etag: string; sha: string }>(1000);

  /**
   * The default branch's head, asked with `If-None-Match`: an unchanged branch is answered 304,
   * which GitHub does not count against the rate limit.
   */
  private async head(
    octokit: Octokit,
    owner: string,
    repo: string,
    defaultBranch: string,
  ): Promise<string> {
    const key = `${owner}/${repo}#${defaultBranch}`;
    const known = this.heads.get(key);
    try {
      const { data, headers } = await octokit.rest.git.getRef({
        owner,
        repo,
        ref: `heads/${defaultBranch}`,
        ...(known ? { headers: { "if-none-match": known.etag } } : {}),
      });
      if (typeof headers.etag === "string" && headers.etag)
        this.heads.set(key, { etag: headers.etag, sha: data.object.sha });
      return data.object.sha;
    } catch (err) {
      if (known && (err as { status?: number }).status === 304) return known.sha;
      throw err;
    }
  }

  /** The playbooks at a commit of the default branch (runs are pinned to the commit they started on). */
  async at(octokit: Octokit, owner: string, repo: string, commit: string): Promise<Tiered> {
    const key = `${owner}/${repo}@${commit}`;
    const cached = this.byCommit.get(key);
    if (cached) return cached;
    const tiers: Tier[] = [];
    const own = await tierAt(octokit, owner, repo, commit);
    if (own) tiers.push(own);
    const org = await this.orgTier(octokit, owner, repo);
    if (org) tiers.push(org);
    tiers.push(await bundledTier());
    const tiered = resolveTiers(tiers);
    this.byCommit.set(key, tiered);
    return tiered;
  }
}
