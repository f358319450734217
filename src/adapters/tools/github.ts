import type { Octokit } from "../github/octokit-port.js";
import { repoPathProblem, branchNameProblem } from "../../core/util/git-ref.js";
import { ToolError, type ToolDescriptor, type ToolProvider } from "../../runtime/tools.js";

/** Largest file `github/file_read` returns. */
export const MAX_FILE_BYTES = 64 * 1024;
const MAX_BODY_CHARS = 4000;
const MAX_SEARCH_RESULTS = 20;
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
  const v = args[key];
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
    description: `A text file of the run's repository (at most ${MAX_FILE_BYTES} bytes), or a folder's entries.`,
    inputSchema: {
      type: "object",
      required: ["path"],
      properties: {
        path: { type: "string", maxLength: 1024 },
        ref: { type: "string", maxLength: 200 },
      },
    },
    run: async (octokit, r, args, signal) => {
      const path = args.path;
      if (typeof path !== "string" || path.length > 1024)
        throw new ToolError(
          "TOOL-INVALID",
          "'path' must be a repository path of at most 1024 characters",
        );
      const pathProblem = repoPathProblem(path);
      if (pathProblem) throw new ToolError("TOOL-DENIED", `path refused: ${pathProblem}`);
      const ref = args.ref;
      if (ref !== undefined) {
        const refProblem = typeof ref === "string" ? branchNameProblem(ref) : "it is not text";
        if (refProblem) throw new ToolError("TOOL-INVALID", `'ref' refused: ${refProblem}`);
      }
      const { data } = await octokit.rest.repos.getContent({
        ...r,
        path,
        ...(typeof ref === "string" ? { ref } : {}),
        request: { signal },
      });
      if (Array.isArray(data))
        return {
          path,
          type: "dir",
          entries: data.slice(0, 200).map((e) => ({ name: e.name, type: e.type })),
        };
      if (data.type !== "file" || !("content" in data)) return { path, type: data.type };
      if (data.size > MAX_FILE_BYTES)
        throw new ToolError(
          "TOOL-TOO-LARGE",
          `${path} has ${data.size} bytes; file_read returns at most ${MAX_FILE_BYTES}`,
        );
      return {
        path,
        type: "file",
        size: data.size,
        sha: data.sha,
        content: Buffer.from(data.content, "base64").toString("utf8"),
      };
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
