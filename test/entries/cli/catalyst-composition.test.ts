import { cpSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { cliIn } from "../../helpers/cli.js";
import { cleanup, git, makeDir, makeRepo } from "../../helpers/git-repo.js";

afterEach(() => {
  vi.unstubAllEnvs();
  cleanup();
});

// Catalyst's first YAML generation: start-blueprint and the three PR-sized children it starts.
const Y1 = join(
  import.meta.dirname,
  "../../fixtures/dialects/catalyst/2025-12-6ceab93/src/playbooks",
);

/** The four playbooks in a folder of their own, and a repository to run them in. */
function setUp(): { repo: string; file: string } {
  const folder = makeDir("pb-catalyst-set-");
  cpSync(Y1, folder, { recursive: true });
  vi.stubEnv("GITHUB_TOKEN", "");
  return { repo: makeRepo("pb-catalyst-compose-"), file: join(folder, "start-blueprint.yaml") };
}

const run = (repo: string, file: string, mode: string) =>
  cliIn(
    [
      "run",
      file,
      "issue-number=1",
      `confirmation-mode=${mode}`,
      "--mode",
      "autonomous",
      "--repo",
      repo,
    ],
    repo,
  );

describe("Catalyst's composition into PR-sized child playbooks, run locally", () => {
  it("writes on the run's branch, branches the blueprint from it, and starts the research child; the default branch and work tree stay as they were", async () => {
    const { repo, file } = setUp();
    const main = git(repo, "rev-parse", "main");
    const r = await run(repo, file, "pull-request");
    const out = r.out + r.err;
    expect(out).toMatch(/init-blueprint-rollout completed/);
    expect(out).toMatch(/git-commit-6 completed/);
    expect(out).toMatch(/blueprint-issue \(investigate\) in write-blueprint-research/);
    // Catalyst names the child's branch under the parent's (xe/blueprint/research beside
    // xe/blueprint): git keeps no branch inside another's name, so the child stops there.
    expect(out).toContain("git could not create branch 'xe/blueprint/research'");
    expect(git(repo, "rev-parse", "main")).toBe(main);
    expect(git(repo, "status", "--porcelain")).toBe("");
    expect(git(repo, "show", "xe/blueprint:.xe/rollouts/rollout-blueprint.md")).toContain(
      "status: in-progress",
    );
    expect(git(repo, "log", "--format=%s", "xe/blueprint")).toContain(
      "Initialize blueprint rollout tracking",
    );
  });
});
