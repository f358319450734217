import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { ToolError, type ToolDescriptor, type ToolProvider } from "../../runtime/tools.js";
import { FILE_TOOLS, MAX_FILE_BYTES, type RepositoryContent } from "./github.js";

const execGit = promisify(execFile);

/** The GitHub tools a local run has without GitHub: those that read the repository's files. */
export const LOCAL_GITHUB_TOOLS: readonly string[] = ["github/file_read", "github/file_list"];

/** A git object's kind as GitHub's contents API names an entry's type. */
const ENTRY_TYPES: Record<string, string> = { blob: "file", tree: "dir", commit: "submodule" };

/**
 * `github/file_read` and `github/file_list` for a local run with no GitHub: the same tools, read
 * from the local repository's committed objects (`ref`, else the checked-out commit), as the app
 * reads them from GitHub. Files under dot-folders (`.xe/…`, `.github/…`) are files like any other.
 * Paths and refs are checked as for GitHub before git sees them; git runs without a shell.
 */
export function localRepositoryTools(repo: string): ToolProvider {
  const git = async (args: string[], signal: AbortSignal): Promise<Buffer | undefined> => {
    try {
      const { stdout } = await execGit("git", args, {
        cwd: repo,
        encoding: "buffer",
        maxBuffer: MAX_FILE_BYTES * 4,
        signal,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
      });
      return stdout;
    } catch {
      return undefined;
    }
  };
  const source = (path: string, ref: string | undefined, signal: AbortSignal) =>
    contentAt(git, ref ?? "HEAD", path, signal);
  return {
    server: "github",
    describe: async (tool): Promise<ToolDescriptor | undefined> => {
      if (tool !== "file_read" && tool !== "file_list") return undefined;
      const t = FILE_TOOLS[tool];
      return {
        name: `github/${tool}`,
        server: "github",
        tool,
        readOnly: true,
        allowWrites: false,
        description: t.description,
        inputSchema: t.inputSchema,
      };
    },
    call: async (tool, args, signal) => {
      if (tool !== "file_read" && tool !== "file_list")
        throw new ToolError("TOOL-UNKNOWN", `a local run has no github/${tool}: it needs GitHub`);
      return FILE_TOOLS[tool].read(source, args, signal);
    },
  };
}

type Git = (args: string[], signal: AbortSignal) => Promise<Buffer | undefined>;

/** What `<ref>:<path>` names in the repository's objects, as GitHub's contents API shows it. */
async function contentAt(
  git: Git,
  ref: string,
  path: string,
  signal: AbortSignal,
): Promise<RepositoryContent | undefined> {
  const spec = `${ref}:${path}`;
  const kind = (await git(["cat-file", "-t", spec], signal))?.toString("utf8").trim();
  if (kind === "tree") {
    const listing = (await git(["ls-tree", "-z", spec], signal))?.toString("utf8") ?? "";
    return listing
      .split("\0")
      .filter(Boolean)
      .map((line) => {
        const [meta = "", name = ""] = line.split("\t");
        const [mode, type = ""] = meta.split(" ");
        return { name, type: mode === "120000" ? "symlink" : (ENTRY_TYPES[type] ?? type) };
      });
  }
  if (kind !== "blob") return undefined;
  const sha = (await git(["rev-parse", spec], signal))?.toString("utf8").trim() ?? "";
  const size = Number((await git(["cat-file", "-s", spec], signal))?.toString("utf8").trim());
  // A link is its target's name, not a file: GitHub says "symlink" and gives no content.
  const entry = (await git(["ls-tree", "-z", ref, "--", path], signal))?.toString("utf8") ?? "";
  if (entry.startsWith("120000 ")) return { type: "symlink", size, sha };
  if (size > MAX_FILE_BYTES) return { type: "file", size, sha, content: "" };
  const bytes = await git(["cat-file", "blob", spec], signal);
  if (!bytes) return undefined;
  return { type: "file", size, sha, content: bytes.toString("base64") };
}
