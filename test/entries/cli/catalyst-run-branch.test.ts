import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { validateSource } from "../../../src/core/rules/validate.js";
import { cliIn } from "../../helpers/cli.js";
import { cleanup, git, makeDir, makeRepo } from "../../helpers/git-repo.js";

afterEach(() => {
  vi.unstubAllEnvs();
  cleanup();
});

// A Catalyst playbook that writes a file with no git-branch before it.
const PLAYBOOK = [
  "name: write-notes",
  "description: Writes a file with no branch first",
  "owner: Engineer",
  "steps:",
  "  - name: notes",
  "    file-write:",
  "      path: docs/notes.md",
  '      content: "Hello"',
  "",
].join("\n");

describe("Catalyst: a file write that no git-branch precedes", () => {
  it("is committed on a branch the run opens first, never the default branch", () => {
    const report = validateSource("write-notes.yaml", PLAYBOOK);
    expect(report.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const steps = (report.playbook as { steps?: Record<string, unknown>[] }).steps ?? [];
    expect(steps.map((s) => s.type)).toEqual(["branch", "commit"]);
    expect(steps[1]?.branch).toBe(`{{ steps.${String(steps[0]?.id)}.outputs.name }}`);
    expect(JSON.stringify(report.playbook)).not.toContain("default_branch");
  });

  it("a local run leaves the checked-out default branch and its work tree as they were", async () => {
    const repo = makeRepo("pb-catalyst-write-");
    const file = join(makeDir("pb-catalyst-pb-"), "write-notes.yaml");
    writeFileSync(file, PLAYBOOK);
    vi.stubEnv("GITHUB_TOKEN", "");
    const before = git(repo, "rev-parse", "main");
    const r = await cliIn(["run", file, "--mode", "autonomous", "--repo", repo], repo);
    expect(r.code, r.out + r.err).toBe(0);
    expect(git(repo, "rev-parse", "main")).toBe(before);
    expect(git(repo, "status", "--porcelain", "--untracked-files=no")).toBe("");
    const branch = git(repo, "branch", "--list", "playbook/*")
      .replace(/^[*\s]+/, "")
      .trim();
    expect(branch).toMatch(/^playbook\/write-notes/);
    expect(git(repo, "show", `${branch}:docs/notes.md`)).toBe("Hello");
  });
});
