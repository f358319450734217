import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { sameOriginFetch } from "../../adapters/same-origin-fetch.js";

/** The pull request files API returns at most this many files per page... */
export const FILES_PER_PAGE = 100;
/** ...and at most this many files in all, whatever the pull request changes. */
export const MAX_LISTED_FILES = 3000;

/** What the event payload says about the pull request, when the workflow runs for one. */
interface PullRequestEvent {
  number?: unknown;
  pull_request?: {
    number?: unknown;
    changed_files?: unknown;
    base?: { sha?: unknown };
    head?: { sha?: unknown };
  };
  repository?: { full_name?: unknown };
}

export interface ChangedFilesOptions {
  env: NodeJS.ProcessEnv;
  workspace: string;
  /** The token the API is asked with (the `token` input: the workflow's token by default). */
  token: string;
  fetch: typeof fetch;
  /** How a fallback is reported: a warning on the run, since annotations may go missing. */
  warn: (message: string) => void;
}

/** Why the API's list cannot be used. */
class Unavailable extends Error {}

function readEvent(env: NodeJS.ProcessEnv): PullRequestEvent | undefined {
  const path = env.GITHUB_EVENT_PATH;
  if (!path || !existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as PullRequestEvent;
  } catch {
    return undefined;
  }
}

/**
 * The pull request's files from the API (`GET /repos/{owner}/{repo}/pulls/{n}/files`), 100 per
 * page: renamed files by their new name, removed ones left out. The Link header is not followed:
 * pages are asked for by number, so the token only ever goes to `GITHUB_API_URL`.
 */
async function listedFiles(
  o: ChangedFilesOptions,
  repo: string,
  number: number,
  changedFiles: number | undefined,
): Promise<Set<string>> {
  const api = (o.env.GITHUB_API_URL ?? "https://api.github.com").replace(/\/+$/, "");
  const files = new Set<string>();
  let listed = 0;
  // fetch drops Authorization on a redirect to another origin; this refuses such a redirect outright.
  const send = sameOriginFetch({ fetch: o.fetch });
  for (let page = 1; page <= MAX_LISTED_FILES / FILES_PER_PAGE; page++) {
    let response: Response;
    try {
      response = await send(
        `${api}/repos/${repo}/pulls/${number}/files?per_page=${FILES_PER_PAGE}&page=${page}`,
        {
          headers: {
            authorization: `Bearer ${o.token}`,
            accept: "application/vnd.github+json",
            "x-github-api-version": "2022-11-28",
          },
          signal: AbortSignal.timeout(30_000),
        },
      );
    } catch (err) {
      throw new Unavailable(err instanceof Error ? err.message : String(err));
    }
    if (!response.ok) throw new Unavailable(`HTTP ${response.status}`);
    const batch: unknown = await response.json().catch(() => undefined);
    if (!Array.isArray(batch)) throw new Unavailable("the answer is not a list of files");
    for (const entry of batch as { filename?: unknown; status?: unknown }[]) {
      if (typeof entry?.filename !== "string") continue;
      listed++;
      if (entry.status !== "removed") files.add(entry.filename);
    }
    if (batch.length < FILES_PER_PAGE) return files;
  }
  // The API stops at 3000 files: past that, the rest of the pull request is unknown to it.
  if (changedFiles === undefined || changedFiles > listed)
    throw new Unavailable(`it lists at most ${MAX_LISTED_FILES} files`);
  return files;
}

/** The files between the pull request's base and head, from git in the checkout. */
function diffedFiles(workspace: string, base: unknown, head: unknown): Set<string> | undefined {
  if (typeof base !== "string" || typeof head !== "string") return undefined;
  if (!/^[0-9a-f]{7,64}$/i.test(base) || !/^[0-9a-f]{7,64}$/i.test(head)) return undefined;
  try {
    const out = execFileSync(
      "git",
      ["diff", "--name-only", "-z", "--diff-filter=d", `${base}...${head}`],
      { cwd: workspace, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 60_000 },
    );
    return new Set(out.split("\0").filter(Boolean));
  } catch {
    return undefined; // a shallow checkout: the base commit is not there
  }
}

export interface ChangedFiles {
  /** Whether the workflow runs for a pull request at all. */
  pullRequest: boolean;
  /** Paths from the repository root; undefined when no way knows them. */
  files?: Set<string>;
}

/**
 * The files a pull request changes: from the API when the workflow runs for a pull request
 * (`pull_request`, `pull_request_target`, a review...) and a token is at hand, which works in the
 * default shallow checkout; else from git, with a warning that says why.
 */
export async function changedFiles(o: ChangedFilesOptions): Promise<ChangedFiles> {
  const event = readEvent(o.env);
  const pr = event?.pull_request;
  if (!event || !pr) return { pullRequest: false };
  const number = Number(pr.number ?? event.number);
  const repo =
    typeof event.repository?.full_name === "string"
      ? event.repository.full_name
      : o.env.GITHUB_REPOSITORY;
  const changed = typeof pr.changed_files === "number" ? pr.changed_files : undefined;
  let why: string;
  if (!o.token) why = "the token input is empty";
  else if (!repo || !/^[\w.-]+\/[\w.-]+$/.test(repo) || !Number.isSafeInteger(number) || number < 1)
    why = "the event does not name the pull request and its repository";
  else {
    try {
      return { pullRequest: true, files: await listedFiles(o, repo, number, changed) };
    } catch (err) {
      why = (err as Error).message;
    }
  }
  const fromGit = diffedFiles(o.workspace, pr.base?.sha, pr.head?.sha);
  o.warn(
    `changed-only: the GitHub API did not list the pull request's files (${why}); ${
      fromGit
        ? "comparing its base and head commits with git instead."
        : "git cannot compare its base and head commits either (a shallow checkout lacks the base: fetch-depth: 0 brings it), so every file is annotated."
    }`,
  );
  return fromGit ? { pullRequest: true, files: fromGit } : { pullRequest: true };
}
