import { afterEach, describe, expect, it } from "vitest";
import { branches, cleanup, git, makeRepo, spawnCli, write } from "../../helpers/git-repo.js";

/**
 * A local run's git effects, attacked through the built command: a playbook (or an input it
 * renders into a name) aiming its commit at the branch the user has checked out, at the default
 * branch, or at a name git itself refuses.
 */

afterEach(cleanup);

function commitTo(branch: string): string {
  return `apiVersion: playbook-bot/v1
id: sneak
description: Commits to a branch the playbook did not make.
steps:
  - id: save
    type: commit
    description: Save.
    branch: ${branch}
    message: Overwrite
    files:
      - path: README.md
        content: "overwritten\\n"
  - id: done
    type: end
    description: Done.
`;
}

const RUN = ["run", "sneak", "--mode", "autonomous"];

describe("a local commit never moves a checked-out or default branch", () => {
  it("refuses the branch checked out in this work tree, which stays as it was", () => {
    const repo = makeRepo("pb-attack-git-");
    write(repo, ".github/playbooks/sneak.yaml", commitTo("main"));
    const before = git(repo, "rev-parse", "main");
    const r = spawnCli(RUN, repo);
    expect(r.code).toBe(2);
    expect(r.out).toContain("branch 'main' is checked out or is the default branch");
    expect(git(repo, "rev-parse", "main")).toBe(before);
    // The work tree and index agree with the branch: nothing staged that would undo a commit.
    expect(git(repo, "status", "--porcelain", "--untracked-files=no")).toBe("");
  });

  it("refuses a branch checked out in another work tree of the repository", () => {
    const repo = makeRepo("pb-attack-git-");
    git(repo, "branch", "side");
    const other = `${repo}-side`;
    git(repo, "worktree", "add", "-q", other, "side");
    try {
      write(repo, ".github/playbooks/sneak.yaml", commitTo("side"));
      const before = git(repo, "rev-parse", "side");
      const r = spawnCli(RUN, repo);
      expect(r.code).toBe(2);
      expect(r.out).toContain("branch 'side' is checked out or is the default branch");
      expect(git(repo, "rev-parse", "side")).toBe(before);
    } finally {
      git(repo, "worktree", "remove", "--force", other);
    }
  });

  it("refuses the default branch (origin's HEAD) while another branch is checked out", () => {
    const repo = makeRepo("pb-attack-git-");
    git(repo, "update-ref", "refs/remotes/origin/main", "main");
    git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main");
    git(repo, "checkout", "-q", "-b", "work");
    write(repo, ".github/playbooks/sneak.yaml", commitTo("main"));
    const before = git(repo, "rev-parse", "main");
    const r = spawnCli(RUN, repo);
    expect(r.code).toBe(2);
    expect(r.out).toContain("branch 'main' is checked out or is the default branch");
    expect(git(repo, "rev-parse", "main")).toBe(before);
  });

  it("refuses a name that is the checked-out branch but for case (one ref file where case is folded)", () => {
    const repo = makeRepo("pb-attack-git-");
    git(repo, "branch", "MAIN");
    write(repo, ".github/playbooks/sneak.yaml", commitTo("MAIN"));
    const before = git(repo, "rev-parse", "MAIN");
    const r = spawnCli(RUN, repo);
    expect(r.code).toBe(2);
    expect(r.out).toContain("branch 'MAIN' is checked out or is the default branch");
    expect(git(repo, "rev-parse", "MAIN")).toBe(before);
  });

  it("still commits to a branch of the run's own", () => {
    const repo = makeRepo("pb-attack-git-");
    git(repo, "branch", "notes");
    write(repo, ".github/playbooks/sneak.yaml", commitTo("notes"));
    const r = spawnCli(RUN, repo);
    expect(r.code).toBe(0);
    expect(git(repo, "show", "notes:README.md")).toBe("overwritten");
    expect(branches(repo)).toEqual(["main", "notes"]);
  });
});

const BRANCH_FROM_INPUT = `apiVersion: playbook-bot/v1
id: named
description: A branch named by an input.
inputs:
  name: { type: string, description: The branch name. }
steps:
  - id: br
    type: branch
    description: Branch.
    name: "{{ inputs.name }}"
  - id: done
    type: end
    description: Done.
`;

describe("a branch name rendered from an input is a name git takes as a branch", () => {
  it.each(["HEAD", "-x", "a..b"])("refuses %j before git is asked, and makes no ref", (name) => {
    const repo = makeRepo("pb-attack-git-");
    write(repo, ".github/playbooks/named.yaml", BRANCH_FROM_INPUT);
    const r = spawnCli(["run", "named", `name=${name}`, "--mode", "autonomous"], repo);
    expect(r.code).toBe(2);
    expect(r.out).toContain("PB-TEMPLATE-UNSAFE");
    expect(branches(repo)).toEqual(["main"]);
    expect(git(repo, "for-each-ref", "--format=%(refname)")).toBe("refs/heads/main");
  });
});
