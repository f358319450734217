import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localRepositoryTools } from "../../../src/adapters/tools/local-repository.js";
import { MAX_FILE_BYTES } from "../../../src/adapters/tools/github.js";
import { ToolError } from "../../../src/runtime/tools.js";
import { cliIn } from "../../helpers/cli.js";

let repo: string;
const git = (...args: string[]) =>
  execFileSync("git", args, {
    cwd: repo,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  });

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), "pb-local-repo-"));
  git("init", "-q", "-b", "main");
  mkdirSync(join(repo, ".xe", "features"), { recursive: true });
  writeFileSync(join(repo, ".xe", "notes.md"), "# Notes\nfrom the dot-folder\n");
  writeFileSync(join(repo, ".xe", "features", "a.md"), "a\n");
  writeFileSync(join(repo, ".xe", "features", "b.json"), '{"b": 1}\n');
  writeFileSync(join(repo, "big.txt"), "x".repeat(MAX_FILE_BYTES + 1));
  symlinkSync("/etc/hostname", join(repo, "link"));
  git("add", ".");
  git("commit", "-qm", "init");
  git("checkout", "-q", "-b", "work");
  writeFileSync(join(repo, ".xe", "notes.md"), "# Notes\non the work branch\n");
  git("commit", "-qam", "work");
  git("checkout", "-q", "main");
  // Not committed: a run reads what the repository holds, not the work tree's edits.
  writeFileSync(join(repo, ".xe", "notes.md"), "uncommitted\n");
});
afterAll(() => rmSync(repo, { recursive: true, force: true }));

const call = (tool: string, args: Record<string, unknown>) =>
  localRepositoryTools(repo).call(tool, args, new AbortController().signal);

describe("github/file_read and file_list in a local run", () => {
  it("read a committed file under a dot-folder, trying each ending, at the checked-out commit", async () => {
    const r = (await call("file_read", { path: ".xe/notes", extensions: [".md"] })) as {
      path: string;
      content: string;
      exists: boolean;
    };
    expect(r).toMatchObject({ path: ".xe/notes.md", exists: true, type: "file" });
    expect(r.content).toBe("# Notes\nfrom the dot-folder\n");
  });

  it("read at a ref, parse JSON, and say a missing file is missing when asked to", async () => {
    const work = (await call("file_read", { path: ".xe/notes.md", ref: "work" })) as {
      content: string;
    };
    expect(work.content).toBe("# Notes\non the work branch\n");
    const json = (await call("file_read", { path: ".xe/features/b.json", json: true })) as {
      value: unknown;
    };
    expect(json.value).toEqual({ b: 1 });
    expect(await call("file_read", { path: ".xe/none", missing_ok: true })).toEqual({
      path: ".xe/none",
      type: "none",
      exists: false,
    });
    await expect(call("file_read", { path: ".xe/none" })).rejects.toThrow(
      /is not in the repository/,
    );
  });

  it("list a folder's files and entries, a link as a link, never its target", async () => {
    expect(await call("file_list", { path: ".xe/features", pattern: "*.md" })).toEqual({
      path: ".xe/features",
      names: ["a.md"],
      count: 1,
    });
    const folder = (await call("file_read", { path: ".xe" })) as {
      entries: { name: string; type: string }[];
    };
    expect(folder.entries).toEqual([
      { name: "features", type: "dir" },
      { name: "notes.md", type: "file" },
    ]);
    expect(await call("file_read", { path: "link" })).toMatchObject({
      type: "symlink",
      exists: true,
    });
  });

  it("refuse paths out of the repository, option-like refs and files past the size limit", async () => {
    await expect(call("file_read", { path: "../etc/passwd" })).rejects.toBeInstanceOf(ToolError);
    await expect(call("file_read", { path: "x", ref: "--output=/tmp/x" })).rejects.toThrow(
      /'ref' refused/,
    );
    await expect(call("file_read", { path: "big.txt" })).rejects.toThrow(/returns at most/);
    await expect(call("issue_read", { number: 1 })).rejects.toThrow(/needs GitHub/);
  });
});

describe("a local run's playbook reading its repository", () => {
  it("reads a dot-folder file with github/file_read, without GitHub", async () => {
    mkdirSync(join(repo, ".github", "playbooks"), { recursive: true });
    writeFileSync(
      join(repo, ".github", "playbooks", "read.yaml"),
      `apiVersion: playbook-bot/v1
id: read-xe
name: Read a dot-folder file
steps:
  - id: read
    type: investigate
    description: Reads .xe/notes
    suggested_calls:
      - tool: github/file_read
        args: { path: .xe/notes, extensions: [".md"], missing_ok: true }
        run: auto
        required: true
        outputs: { content: content, exists: exists }
  - id: say
    type: comment
    body: "exists={{ steps.read.outputs.exists }} content={{ steps.read.outputs.content }}"
  - id: done
    type: end
    status: success
`,
    );
    const r = await cliIn(["run", "read-xe", "--mode", "autonomous"], repo);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("exists=true content=# Notes\nfrom the dot-folder");
  });
});
