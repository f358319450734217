import type { Octokit } from "../github/octokit-port.js";
import { repoPathProblem, branchNameProblem } from "../../core/util/git-ref.js";
import { ToolError, type ToolDescriptor, type ToolProvider } from "../../runtime/tools.js";

/** Largest file `github/file_read` returns. */
export const MAX_FILE_BYTES = 64 * 1024;
const MAX_BODY_CHARS = 4000;
const MAX_SEARCH_RESULTS = 20;
/** Review comments read for `github/review_threads` (the newest are past this many). */
const MAX_REVIEW_COMMENTS = 1000;
const MAX_THREADS = 100;
/** Search qualifiers that would reach beyond the run's repository. */
const SCOPE_QUALIFIERS = ["repo:", "org:", "user:", "owner:"];

interface BuiltIn {
  description: string;
  inputSchema: Record<string, unknown>;
  run(
    octokit: Octokit,
    repo: { owner: string; repo: string },
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<unknown>;
}

const numberArg = {
  type: "object",
  required: ["number"],
  properties: { number: { type: "integer", minimum: 1 } },
};

function positiveInteger(args: Record<string, unknown>, key: string): number {
  // A template renders to text: "12" is the number it shows.
  const raw = args[key];
  const v = typeof raw === "string" && /^[1-9][0-9]{0,15}$/.test(raw.trim()) ? Number(raw) : raw;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1)
    throw new ToolError("TOOL-INVALID", `'${key}' must be a positive whole number`);
  return v;
}

function cut(text: unknown): string | null {
  if (typeof text !== "string") return null;
  return text.length > MAX_BODY_CHARS ? `${text.slice(0, MAX_BODY_CHARS)}…` : text;
}

function labelNames(labels: unknown): string[] {
  return Array.isArray(labels)
    ? labels
        .map((l) => (typeof l === "string" ? l : ((l as { name?: string }).name ?? "")))
        .filter(Boolean)
    : [];
}

/** The search query confined to the run's repository; other scopes are refused. */
export function scopedSearchQuery(query: unknown, owner: string, repo: string): string {
  if (typeof query !== "string" || query.trim() === "" || query.length > 256)
    throw new ToolError("TOOL-INVALID", "'query' must be a search text of 1 to 256 characters");
  const words = query.toLowerCase().split(/\s+/);
  const scoped = words.find((w) =>
    SCOPE_QUALIFIERS.some((q) => w.replace(/^[-"(]+/, "").startsWith(q)),
  );
  if (scoped !== undefined)
    throw new ToolError(
      "TOOL-DENIED",
      `'${scoped.slice(0, 60)}' would search outside ${owner}/${repo}; github/issue_find searches the run's repository only`,
    );
  return `${query} repo:${owner}/${repo}`;
}

/** The arguments naming a path of the repository, at a branch (default: the default branch). */
const PATH_AT_REF = {
  path: { type: "string", maxLength: 1024 },
  ref: { type: "string", maxLength: 200 },
};

function repositoryPath(path: unknown): string {
  if (typeof path !== "string" || path.length > 1024)
    throw new ToolError(
      "TOOL-INVALID",
      "'path' must be a repository path of at most 1024 characters",
    );
  const problem = repoPathProblem(path);
  if (problem) throw new ToolError("TOOL-DENIED", `path refused: ${problem}`);
  return path;
}

function refArg(ref: unknown): string | undefined {
  if (ref === undefined) return undefined;
  const problem = typeof ref === "string" ? branchNameProblem(ref) : "it is not text";
  if (problem) throw new ToolError("TOOL-INVALID", `'ref' refused: ${problem}`);
  return ref as string;
}

function extensionsArg(extensions: unknown): string[] {
  if (extensions === undefined) return [""];
  if (
    !Array.isArray(extensions) ||
    extensions.length === 0 ||
    extensions.length > 4 ||
    !extensions.every((e) => typeof e === "string" && /^(\.[A-Za-z0-9]{1,10})?$/.test(e))
  )
    throw new ToolError(
      "TOOL-INVALID",
      '\'extensions\' must list 1 to 4 endings such as ".md" or ""',
    );
  return ["", ...extensions.filter((e) => e !== "")].filter((e, i, all) => all.indexOf(e) === i);
}

function parseJson(path: string, content: string): unknown {
  try {
    return JSON.parse(content) as unknown;
  } catch {
    throw new ToolError("TOOL-INVALID", `${path} is not JSON`);
  }
}

/** `*` and `?` of a file-name pattern, matched without a regular expression built from it. */
export function globMatcher(pattern: unknown): (name: string) => boolean {
  if (pattern === undefined) return () => true;
  if (typeof pattern !== "string" || pattern.length > 100 || pattern.includes("/"))
    throw new ToolError("TOOL-INVALID", "'pattern' must be a file-name pattern (* and ?)");
  return (name) => globMatch(pattern, name);
}

/** Greedy wildcard matching with one backtrack point: linear in practice, never exponential. */
function globMatch(p: string, s: string): boolean {
  let i = 0;
  let j = 0;
  let star = -1;
  let mark = 0;
  while (j < s.length) {
    if (i < p.length && (p[i] === "?" || p[i] === s[j])) {
      i++;
      j++;
    } else if (i < p.length && p[i] === "*") {
      star = i++;
      mark = j;
    } else if (star !== -1) {
      i = star + 1;
      j = ++mark;
    } else return false;
  }
  while (p[i] === "*") i++;
  return i === p.length;
}

/** What a repository holds at a path, as GitHub's contents API describes it. */
export type RepositoryContent =
  | readonly { name: string; type: string }[]
  | { type: string; size: number; sha: string; content?: string };

/**
 * Where the file tools read a repository: GitHub's contents API for the app, the local clone's
 * git objects for a local run. Undefined when the repository has nothing at the path.
 */
export type ContentSource = (
  path: string,
  ref: string | undefined,
  signal: AbortSignal,
) => Promise<RepositoryContent | undefined>;

/** A path's content, or undefined when the repository has nothing there. */
async function contentOrMissing(
  octokit: Octokit,
  r: { owner: string; repo: string },
  path: string,
  ref: string | undefined,
  signal: AbortSignal,
): Promise<RepositoryContent | undefined> {
  try {
    const { data } = await octokit.rest.repos.getContent({
      ...r,
      path,
      ...(ref !== undefined ? { ref } : {}),
      request: { signal },
    });
    return data;
  } catch (err) {
    if ((err as { status?: number }).status === 404) return undefined;
    throw err;
  }
}

interface ReviewComment {
  id: number;
  in_reply_to_id?: number;
  path: string;
  line?: number | null;
  original_line?: number | null;
  body: string;
  user: { login: string } | null;
  created_at: string;
}

/** Review comments grouped into threads, oldest first; the last word decides `needs_reply`. */
export function reviewThreads(
  comments: readonly ReviewComment[],
  marker: string | undefined,
): Record<string, unknown> {
  const threads = new Map<number, ReviewComment[]>();
  for (const c of [...comments].sort((a, b) => a.created_at.localeCompare(b.created_at))) {
    const root = c.in_reply_to_id ?? c.id;
    const list = threads.get(root);
    if (list) list.push(c);
    else if (c.in_reply_to_id === undefined) threads.set(root, [c]);
  }
  const out = [...threads.values()].slice(0, MAX_THREADS).map((list) => {
    const first = list[0] as ReviewComment;
    const last = list[list.length - 1] as ReviewComment;
    return {
      id: first.id,
      commentId: last.id,
      path: first.path,
      line: first.line ?? first.original_line ?? null,
      author: first.user?.login ?? null,
      body: cut(first.body),
      replies: list.slice(1).map((c) => ({ author: c.user?.login ?? null, body: cut(c.body) })),
      needs_reply: marker === undefined ? list.length === 1 : !last.body.includes(marker),
    };
  });
  return {
    threads: out,
    totalCount: out.length,
    remainingCount: out.filter((t) => t.needs_reply).length,
  };
}

interface FileTool {
  description: string;
  inputSchema: Record<string, unknown>;
  read(source: ContentSource, args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
}

/** A text file of the repository (tried with each ending), or a folder's entries. */
async function readFile(
  source: ContentSource,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  const path = repositoryPath(args.path);
  const ref = refArg(args.ref);
  for (const ending of extensionsArg(args.extensions)) {
    const data = await source(`${path}${ending}`, ref, signal);
    if (data === undefined) continue;
    const at = `${path}${ending}`;
    if (isFolder(data))
      return {
        path: at,
        type: "dir",
        exists: true,
        entries: data.slice(0, 200).map((e) => ({ name: e.name, type: e.type })),
      };
    if (data.type !== "file" || data.content === undefined)
      return { path: at, type: data.type, exists: true };
    if (data.size > MAX_FILE_BYTES)
      throw new ToolError(
        "TOOL-TOO-LARGE",
        `${at} has ${data.size} bytes; file_read returns at most ${MAX_FILE_BYTES}`,
      );
    const content = Buffer.from(data.content, "base64").toString("utf8");
    const file = { path: at, type: "file", exists: true, size: data.size, sha: data.sha };
    return args.json === true ? { ...file, value: parseJson(at, content) } : { ...file, content };
  }
  if (args.missing_ok === true) return { path, type: "none", exists: false };
  throw new ToolError("TOOL-NOT-FOUND", `${path} is not in the repository`);
}

function isFolder(data: RepositoryContent): data is readonly { name: string; type: string }[] {
  return Array.isArray(data);
}

/** The names of a folder's files, optionally matching a pattern. */
async function listFolder(
  source: ContentSource,
  args: Record<string, unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  const path = repositoryPath(args.path);
  const ref = refArg(args.ref);
  const match = globMatcher(args.pattern);
  const data = await source(path, ref, signal);
  if (data === undefined || !isFolder(data))
    throw new ToolError("TOOL-NOT-FOUND", `${path} is not a folder of the repository`);
  const names = data
    .filter((e) => e.type === "file" && match(e.name))
    .map((e) => e.name)
    .sort()
    .slice(0, 500);
  return { path, names, count: names.length };
}

/** The tools that read the run's repository's files, whatever holds the repository. */
export const FILE_TOOLS: Readonly<Record<"file_read" | "file_list", FileTool>> = {
  file_read: {
    description: `A text file of the run's repository (at most ${MAX_FILE_BYTES} bytes), or a folder's entries.`,
    inputSchema: {
      type: "object",
      required: ["path"],
      properties: {
        ...PATH_AT_REF,
        extensions: {
          type: "array",
          maxItems: 4,
          items: { type: "string", pattern: "^(\\.[A-Za-z0-9]{1,10})?$" },
          description: 'Endings tried in order after the path as written ("" for none).',
        },
        missing_ok: { type: "boolean", description: "A missing file is { exists: false }." },
        json: { type: "boolean", description: "Parse the file as JSON into `value`." },
      },
    },
    read: readFile,
  },
  file_list: {
    description:
      "The names of the files in a folder of the run's repository, optionally matching a pattern (* and ?).",
    inputSchema: {
      type: "object",
      required: ["path"],
      properties: { ...PATH_AT_REF, pattern: { type: "string", maxLength: 100 } },
    },
    read: listFolder,
  },
};

const BUILT_INS: Record<string, BuiltIn> = {
  issue_get: {
    description: "An issue of the run's repository: title, state, labels, author and body (cut).",
    inputSchema: numberArg,
    run: async (octokit, r, args, signal) => {
      const { data } = await octokit.rest.issues.get({
        ...r,
        issue_number: positiveInteger(args, "number"),
        request: { signal },
      });
      return {
        number: data.number,
        title: data.title,
        state: data.state,
        labels: labelNames(data.labels),
        author: data.user?.login ?? null,
        created_at: data.created_at,
        comments: data.comments,
        body: cut(data.body),
        url: data.html_url,
      };
    },
  },
  issue_find: {
    description: "Issues and pull requests of the run's repository that match a search text.",
    inputSchema: {
      type: "object",
      required: ["query"],
      properties: { query: { type: "string", maxLength: 256 } },
    },
    run: async (octokit, r, args, signal) => {
      const q = scopedSearchQuery(args.query, r.owner, r.repo);
      const { data } = await octokit.rest.search.issuesAndPullRequests({
        q,
        per_page: MAX_SEARCH_RESULTS,
        request: { signal },
      });
      return {
        total: data.total_count,
        items: data.items.slice(0, MAX_SEARCH_RESULTS).map((i) => ({
          number: i.number,
          title: i.title,
          state: i.state,
          labels: labelNames(i.labels),
          pull_request: i.pull_request !== undefined,
          url: i.html_url,
        })),
      };
    },
  },
  pull_request_get: {
    description:
      "A pull request of the run's repository: title, state, branches, merge state, body (cut).",
    inputSchema: numberArg,
    run: async (octokit, r, args, signal) => {
      const { data } = await octokit.rest.pulls.get({
        ...r,
        pull_number: positiveInteger(args, "number"),
        request: { signal },
      });
      return {
        number: data.number,
        title: data.title,
        state: data.state,
        merged: data.merged,
        draft: data.draft ?? false,
        head: data.head.ref,
        base: data.base.ref,
        author: data.user?.login ?? null,
        changed_files: data.changed_files,
        body: cut(data.body),
        url: data.html_url,
      };
    },
  },
  repo_info: {
    description: "The run's repository: default branch, visibility, language, topics, open issues.",
    inputSchema: { type: "object", properties: {} },
    run: async (octokit, r, _args, signal) => {
      const { data } = await octokit.rest.repos.get({ ...r, request: { signal } });
      return {
        full_name: data.full_name,
        default_branch: data.default_branch,
        private: data.private,
        archived: data.archived,
        language: data.language,
        topics: data.topics ?? [],
        open_issues: data.open_issues_count,
        description: cut(data.description),
      };
    },
  },
  file_read: {
    ...FILE_TOOLS.file_read,
    run: (octokit, r, args, signal) =>
      FILE_TOOLS.file_read.read(
        (path, ref, sig) => contentOrMissing(octokit, r, path, ref, sig),
        args,
        signal,
      ),
  },
  file_list: {
    ...FILE_TOOLS.file_list,
    run: (octokit, r, args, signal) =>
      FILE_TOOLS.file_list.read(
        (path, ref, sig) => contentOrMissing(octokit, r, path, ref, sig),
        args,
        signal,
      ),
  },
  review_threads: {
    description:
      "The review threads of a pull request of the run's repository: each first comment with its replies; threads whose last word is not a reply carrying `marker` need a reply.",
    inputSchema: {
      type: "object",
      required: ["number"],
      properties: {
        number: { type: "integer", minimum: 1 },
        marker: { type: "string", maxLength: 200 },
      },
    },
    run: async (octokit, r, args, signal) => {
      const pull = positiveInteger(args, "number");
      const marker =
        typeof args.marker === "string" && args.marker !== "" ? args.marker : undefined;
      const comments = (await octokit.paginate(octokit.rest.pulls.listReviewComments, {
        ...r,
        pull_number: pull,
        per_page: 100,
        request: { signal },
      })) as ReviewComment[];
      return reviewThreads(comments.slice(0, MAX_REVIEW_COMMENTS), marker);
    },
  },
};

/** The names of the built-in GitHub tools, as playbooks write them. */
export const GITHUB_TOOL_NAMES: readonly string[] = Object.keys(BUILT_INS).map(
  (t) => `github/${t}`,
);

/** The built-in read-only GitHub tools (`github/...`), acting on the run's repository only. */
export function githubTools(
  octokit: Octokit,
  repository: { owner: string; repo: string },
): ToolProvider {
  const r = { owner: repository.owner, repo: repository.repo };
  return {
    server: "github",
    describe: async (tool): Promise<ToolDescriptor | undefined> => {
      const b = Object.hasOwn(BUILT_INS, tool) ? BUILT_INS[tool] : undefined;
      return b
        ? {
            name: `github/${tool}`,
            server: "github",
            tool,
            readOnly: true,
            allowWrites: false,
            description: b.description,
            inputSchema: b.inputSchema,
          }
        : undefined;
    },
    call: async (tool, args, signal) => {
      const b = BUILT_INS[tool];
      if (!b) throw new ToolError("TOOL-UNKNOWN", `github has no tool ${tool}`);
      try {
        return await b.run(octokit, r, args, signal);
      } catch (err) {
        if (err instanceof ToolError) throw err;
        const status = (err as { status?: number }).status;
        // Octokit's messages carry request details; the status says enough.
        throw new ToolError(
          "TOOL-FAILED",
          status ? `GitHub answered ${status}` : `GitHub request failed: ${(err as Error).name}`,
        );
      }
    },
  };
}
