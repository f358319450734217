import { createHash } from "node:crypto";
import { dirname, join, relative } from "node:path";
import { bundledLibraryDir, playbookFilesIn, SYSTEM_PLAYBOOKS } from "../local/library.js";
import { playbookSource, readConfinedText } from "../local/safe-files.js";
import { isPlaybookFile } from "../../core/dialects/files.js";
import { joinRelative, resolveTiers, type Tier, type Tiered } from "../../runtime/tiers.js";
import { LruMap } from "../../runtime/lru.js";
import type { Octokit } from "./octokit-port.js";

/** Where playbooks live in a repository (and in the organisation's `.github` repository). */
export const PLAYBOOK_DIR = ".github/playbooks/";
const MAX_FILES = 300;
const MAX_FILE_BYTES = 1024 * 1024;
/** Playbook texts kept by blob SHA across commits: a push fetches only the blobs it changed. */
const MAX_BLOB_CACHE_BYTES = 32 * 1024 * 1024;
/** Blob requests in flight at once for one tree. */
const BLOB_FETCHES_AT_ONCE = 8;

/** Texts by blob SHA (content-addressed, so never stale), bounded by their total length. */
export class BlobCache {
  private readonly texts = new Map<string, string>();
  private length = 0;

  constructor(private readonly maxChars = MAX_BLOB_CACHE_BYTES) {}

  get(sha: string): string | undefined {
    const text = this.texts.get(sha);
    if (text !== undefined) {
      this.texts.delete(sha);
      this.texts.set(sha, text);
    }
    return text;
  }

  set(sha: string, text: string): void {
    if (text.length > this.maxChars) return;
    const old = this.texts.get(sha);
    if (old !== undefined) this.length -= old.length;
    this.texts.delete(sha);
    this.texts.set(sha, text);
    this.length += text.length;
    for (const [oldest, t] of this.texts) {
      if (this.length <= this.maxChars) break;
      this.texts.delete(oldest);
      this.length -= t.length;
    }
  }

  get size(): { entries: number; chars: number } {
    return { entries: this.texts.size, chars: this.length };
  }
}

let bundled: Promise<Tier> | undefined;

/** The bundled library as a tier (read once per process). */
export function bundledTier(): Promise<Tier> {
  bundled ??= (async () => {
    const dir = bundledLibraryDir();
    const files = await playbookFilesIn(dir);
    return {
      files: files.map((file) => ({
        file: `bundled/${relative(dir, file)}`,
        source: playbookSource(file, { root: dir }),
      })),
      read: (file: string, rel: string) =>
        readConfinedText(join(dir, dirname(file.slice("bundled/".length)), rel), { root: dir }),
      locked: SYSTEM_PLAYBOOKS,
    };
  })();
  return bundled;
}

/**
 * A repository's playbook folder at one commit, as a tier: one tree request, and one request per
 * blob not read before (a few at a time). `key` names the folder's content: its files and their
 * blob SHAs, so an unchanged folder at a new commit is known to be unchanged.
 */
async function tierAt(
  octokit: Octokit,
  owner: string,
  repo: string,
  commit: string,
  blobs: BlobCache,
): Promise<{ tier: Tier; key: string } | undefined> {
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
    .slice(0, MAX_FILES) as { path: string; sha: string }[];
  // Kept per repository: a blob SHA is content-addressed, yet nothing of one installation is
  // ever served to another.
  const cacheKey = (sha: string) => `${owner}/${repo}:${sha}`;
  // Texts known already are taken first: fetching the others may push them out of the cache.
  const contents = new Map<string, string>();
  const missing: { path: string; sha: string }[] = [];
  for (const e of entries) {
    const text = blobs.get(cacheKey(e.sha));
    if (text === undefined) missing.push(e);
    else contents.set(e.path, text);
  }
  for (let i = 0; i < missing.length; i += BLOB_FETCHES_AT_ONCE)
    await Promise.all(
      missing.slice(i, i + BLOB_FETCHES_AT_ONCE).map(async (e) => {
        const { data } = await octokit.rest.git.getBlob({ owner, repo, file_sha: e.sha });
        const text = Buffer.from(
          data.content,
          data.encoding === "base64" ? "base64" : "utf8",
        ).toString("utf8");
        blobs.set(cacheKey(e.sha), text);
        contents.set(e.path, text);
      }),
    );
  const key = createHash("sha256")
    .update(entries.map((e) => `${e.path}\0${e.sha}`).join("\n"))
    .digest("hex");
  return {
    key,
    tier: {
      // In the tree's order, whichever texts came from the cache.
      files: entries
        .map((e) => ({ file: e.path, source: contents.get(e.path) ?? "" }))
        .filter((f) =>
          isPlaybookFile(f.file, () => f.source, {
            read: (rel) => contents.get(joinRelative(f.file, rel)),
          }),
        ),
      read: (file, rel) => contents.get(joinRelative(file, rel)),
      commit,
    },
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
  /** Each commit's playbooks, as the key of their content (cheap to keep for many commits). */
  private readonly byCommit = new LruMap<string, string>(1000);
  /** Validated playbooks by content: a commit that left the playbooks as they were reuses them. */
  private readonly byContent = new LruMap<string, Tiered>(32);
  private readonly blobs = new BlobCache();
  private readonly orgTiers = new LruMap<
    string,
    { at: number; tier: Tier | undefined; key: string }
  >(200);

  constructor(
    private readonly orgTtlMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  private async orgTier(octokit: Octokit, owner: string, repo: string): Promise<Tier | undefined> {
    if (repo === ".github") return undefined;
    const cached = this.orgTiers.get(owner);
    if (cached && this.now() - cached.at < this.orgTtlMs) return cached.tier;
    let tier: Tier | undefined;
    let key = "none";
    try {
      const { data } = await octokit.rest.repos.get({ owner, repo: ".github" });
      const { data: ref } = await octokit.rest.git.getRef({
        owner,
        repo: ".github",
        ref: `heads/${data.default_branch}`,
      });
      const read = await tierAt(octokit, owner, ".github", ref.object.sha, this.blobs);
      if (read) {
        const own = read.tier;
        key = read.key;
        tier = {
          ...own,
          files: own.files.map((f) => ({ ...f, file: `${owner}/.github/${f.file}` })),
          read: (file, rel) => own.read(file.slice(`${owner}/.github/`.length), rel),
        };
      }
    } catch {
      tier = undefined; // no organisation repository, or the app cannot see it
    }
    this.orgTiers.set(owner, { at: this.now(), tier, key });
    return tier;
  }

  /** The content key of the organisation tier last read for `owner`. */
  private orgKey(owner: string): string {
    return this.orgTiers.get(owner)?.key ?? "none";
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
    // Playbooks read at an earlier commit with the same content keep that commit: it is on the
    // default branch too.
    for (const b of tiered.bundles.values())
      if (b.commit !== undefined) this.reachable.set(`${owner}/${repo}@${b.commit}`, true);
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
    const commitKey = `${owner}/${repo}@${commit}`;
    const known = this.byCommit.get(commitKey);
    const cached = known === undefined ? undefined : this.byContent.get(known);
    if (cached) return cached;
    const tiers: Tier[] = [];
    const own = await tierAt(octokit, owner, repo, commit, this.blobs);
    if (own) tiers.push(own.tier);
    const org = await this.orgTier(octokit, owner, repo);
    if (org) tiers.push(org);
    // The bundled tier is the same for the whole process: its files need not be in the key.
    const contentKey = `${owner}/${repo}:${own?.key ?? "none"}:${org ? this.orgKey(owner) : "none"}`;
    this.byCommit.set(commitKey, contentKey);
    const same = this.byContent.get(contentKey);
    if (same) return same;
    tiers.push(await bundledTier());
    const tiered = resolveTiers(tiers);
    this.byContent.set(contentKey, tiered);
    return tiered;
  }

  /** What the caches hold (for the benchmarks and the tests). */
  cacheSizes(): { commits: number; contents: number; blobs: { entries: number; chars: number } } {
    return { commits: this.byCommit.size, contents: this.byContent.size, blobs: this.blobs.size };
  }
}
