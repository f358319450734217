import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Effect } from "../../../src/core/engine/events.js";
import { gitBranch, gitCommit, LocalGit } from "../../../src/adapters/local/git.js";
import { runTrailer } from "../../../src/runtime/effects.js";
import { branches, cleanup, git, makeDir, makeRepo } from "../../helpers/git-repo.js";

afterEach(cleanup);

const noFiles = async () => [];

function branchEffect(params: Record<string, unknown>): Effect<"branch"> {
  return { key: "run/branch/1", kind: "branch", step: "branch", params } as Effect<"branch">;
}

function commitEffect(key: string, params: Record<string, unknown>): Effect<"commit"> {
  return { key, kind: "commit", step: "commit", params } as Effect<"commit">;
}

describe("LocalGit", () => {
  it("knows a repository from a plain folder", async () => {
    expect(await new LocalGit(makeRepo()).isRepository()).toBe(true);
    expect(await new LocalGit(makeDir()).isRepository()).toBe(false);
  });

  it("finds branch heads and remotes", async () => {
    const repo = makeRepo();
    const g = new LocalGit(repo);
    expect(await g.branchHead("main")).toBe(git(repo, "rev-parse", "HEAD"));
    expect(await g.branchHead("nope")).toBeUndefined();
    expect(await g.hasRemote()).toBe(false);
    git(repo, "remote", "add", "origin", "https://example.com/x.git");
    expect(await g.hasRemote()).toBe(true);
    expect(await g.hasRemote("upstream")).toBe(false);
  });

  it("protects the checked-out branches and origin's default branch, none when detached alone", async () => {
    const repo = makeRepo();
    const g = new LocalGit(repo);
    expect([...(await g.protectedBranches())]).toEqual(["main"]);
    git(repo, "checkout", "-q", "--detach");
    expect([...(await g.protectedBranches())]).toEqual([]);
    git(repo, "update-ref", "refs/remotes/origin/trunk", "HEAD");
    git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk");
    expect([...(await g.protectedBranches())]).toEqual(["trunk"]);
    expect([...(await new LocalGit(makeDir()).protectedBranches())]).toEqual([]);
  });

  it("passes input on stdin and throws on failure (tryGit returns undefined)", async () => {
    const g = new LocalGit(makeRepo());
    const blob = await g.git(["hash-object", "--stdin"], { input: "hello\n" });
    expect(blob).toBe("ce013625030ba8dba906f756967f9e9ca394464a");
    await expect(g.git(["rev-parse", "--verify", "nope"])).rejects.toThrow();
    expect(await g.tryGit(["rev-parse", "--verify", "nope"])).toBeUndefined();
  });

  describe("identityEnv", () => {
    const saved = { ...process.env };
    beforeEach(() => {
      // No global or system identity: only what the repository itself configures.
      process.env.GIT_CONFIG_GLOBAL = "/dev/null";
      process.env.GIT_CONFIG_NOSYSTEM = "1";
      for (const k of [
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
      ])
        delete process.env[k];
    });
    afterEach(() => {
      for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
      Object.assign(process.env, saved);
    });

    it("supplies a name and an email when git has none", async () => {
      const repo = makeRepo();
      git(repo, "branch", "work");
      expect(await new LocalGit(repo).identityEnv()).toEqual({
        GIT_AUTHOR_NAME: "playbook-bot",
        GIT_COMMITTER_NAME: "playbook-bot",
        GIT_AUTHOR_EMAIL: "playbook-bot@localhost",
        GIT_COMMITTER_EMAIL: "playbook-bot@localhost",
      });
      const r = await gitCommit(
        new LocalGit(repo),
        commitEffect("k/1", { branch: "work", message: "m", files: [{ path: "a", content: "" }] }),
        noFiles,
      );
      expect(r.ok).toBe(true);
      expect(git(repo, "log", "-1", "--format=%an <%ae> / %cn <%ce>", "work")).toBe(
        "playbook-bot <playbook-bot@localhost> / playbook-bot <playbook-bot@localhost>",
      );
    });

    it("supplies only what is missing", async () => {
      const repo = makeRepo();
      git(repo, "config", "user.name", "Ann");
      expect(await new LocalGit(repo).identityEnv()).toEqual({
        GIT_AUTHOR_EMAIL: "playbook-bot@localhost",
        GIT_COMMITTER_EMAIL: "playbook-bot@localhost",
      });
      git(repo, "config", "--unset", "user.name");
      git(repo, "config", "user.email", "ann@example.com");
      expect(await new LocalGit(repo).identityEnv()).toEqual({
        GIT_AUTHOR_NAME: "playbook-bot",
        GIT_COMMITTER_NAME: "playbook-bot",
      });
    });

    it("supplies nothing when git has an identity", async () => {
      const repo = makeRepo();
      git(repo, "config", "user.name", "Ann");
      git(repo, "config", "user.email", "ann@example.com");
      expect(await new LocalGit(repo).identityEnv()).toEqual({});
    });
  });
});

describe("gitBranch", () => {
  it("creates a branch at HEAD without touching the checkout", async () => {
    const repo = makeRepo();
    const head = git(repo, "rev-parse", "HEAD");
    const r = await gitBranch(new LocalGit(repo), branchEffect({ name: "feature/x" }));
    expect(r).toEqual({
      ok: true,
      outputs: { name: "feature/x", sha: head, created: true, url: "(local branch)" },
    });
    expect(branches(repo)).toEqual(["feature/x", "main"]);
    expect(git(repo, "rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
  });

  it("creates a branch from a given base", async () => {
    const repo = makeRepo();
    const first = git(repo, "rev-parse", "HEAD");
    git(
      repo,
      "-c",
      "user.name=T",
      "-c",
      "user.email=t@e",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "2",
    );
    const r = await gitBranch(new LocalGit(repo), branchEffect({ name: "old", from: first }));
    expect(r).toMatchObject({ ok: true, outputs: { sha: first, created: true } });
    expect(git(repo, "rev-parse", "old")).toBe(first);
  });

  it("reuses an existing branch", async () => {
    const repo = makeRepo();
    git(repo, "branch", "existing");
    const r = await gitBranch(new LocalGit(repo), branchEffect({ name: "existing" }));
    expect(r).toEqual({
      ok: true,
      outputs: {
        name: "existing",
        sha: git(repo, "rev-parse", "existing"),
        created: false,
        url: "(local branch)",
      },
    });
  });

  it("refuses an existing branch when the step requires a new one", async () => {
    const repo = makeRepo();
    git(repo, "branch", "existing");
    const r = await gitBranch(
      new LocalGit(repo),
      branchEffect({ name: "existing", require_new: true }),
    );
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("GH-CONFLICT");
      expect(r.error.message).toContain("'existing' already exists");
    }
  });

  /** A commit on a branch as someone else makes it (a plain `git commit`). */
  function commitOn(repo: string, branch: string, message: string): string {
    const sha = git(
      repo,
      "-c",
      "user.name=Someone",
      "-c",
      "user.email=someone@example.com",
      "commit-tree",
      `${branch}^{tree}`,
      "-p",
      branch,
      "-m",
      message,
    );
    git(repo, "update-ref", `refs/heads/${branch}`, sha);
    return sha;
  }

  it("refuses a branch that holds a commit this run did not make, saying what to do", async () => {
    const repo = makeRepo();
    git(repo, "branch", "existing");
    const foreign = commitOn(repo, "existing", "someone's change\n\nPlaybook-Run: other/commit/1");
    const r = await gitBranch(new LocalGit(repo), branchEffect({ name: "existing" }));
    expect(r).toMatchObject({ ok: false, error: { code: "GH-CONFLICT" } });
    if (!r.ok) {
      expect(r.error.message).toContain("'existing'");
      expect(r.error.message).toContain(foreign.slice(0, 7));
      expect(r.error.message).toContain("someone's change");
      expect(r.error.message).toContain("if_exists: new-name");
    }
    expect(git(repo, "rev-parse", "existing")).toBe(foreign);
  });

  it("reuses the branch this run made and committed to (a crash, then the retry)", async () => {
    const repo = makeRepo();
    const g = new LocalGit(repo);
    expect(await gitBranch(g, branchEffect({ name: "work" }))).toMatchObject({
      ok: true,
      outputs: { created: true },
    });
    const c = await gitCommit(
      g,
      commitEffect("run/commit/1", {
        branch: "work",
        message: "m",
        files: [{ path: "a", content: "" }],
      }),
      noFiles,
    );
    expect(c.ok).toBe(true);
    const again = await gitBranch(g, branchEffect({ name: "work" }));
    expect(again).toEqual({
      ok: true,
      outputs: {
        name: "work",
        sha: git(repo, "rev-parse", "work"),
        created: false,
        url: "(local branch)",
      },
    });
    // Someone else's commit on top: no longer only this run's.
    commitOn(repo, "work", "later");
    expect(await gitBranch(g, branchEffect({ name: "work" }))).toMatchObject({
      ok: false,
      error: { code: "GH-CONFLICT" },
    });
  });

  it("checks against the base it was asked for", async () => {
    const repo = makeRepo();
    git(repo, "branch", "release");
    commitOn(repo, "release", "release work");
    git(repo, "branch", "hotfix", "release");
    const g = new LocalGit(repo);
    // From release, the hotfix branch holds nothing else; from HEAD (main), it holds release work.
    expect(await gitBranch(g, branchEffect({ name: "hotfix", from: "release" }))).toMatchObject({
      ok: true,
      outputs: { created: false },
    });
    expect(await gitBranch(g, branchEffect({ name: "hotfix" }))).toMatchObject({
      ok: false,
      error: { code: "GH-CONFLICT" },
    });
  });

  it("if_exists: new-name picks the first free name, or the one this run left", async () => {
    const repo = makeRepo();
    for (const b of ["fix", "fix-2"]) {
      git(repo, "branch", b);
      commitOn(repo, b, `work on ${b}`);
    }
    const g = new LocalGit(repo);
    const r = await gitBranch(g, branchEffect({ name: "fix", if_exists: "new-name" }));
    expect(r).toMatchObject({ ok: true, outputs: { name: "fix-3", created: true } });
    await gitCommit(
      g,
      commitEffect("run/commit/1", {
        branch: "fix-3",
        message: "m",
        files: [{ path: "a", content: "" }],
      }),
      noFiles,
    );
    const again = await gitBranch(g, branchEffect({ name: "fix", if_exists: "new-name" }));
    expect(again).toMatchObject({ ok: true, outputs: { name: "fix-3", created: false } });
    expect(branches(repo)).toEqual(["fix", "fix-2", "fix-3", "main"]);
  });

  it("if_exists: fail refuses any existing branch", async () => {
    const repo = makeRepo();
    git(repo, "branch", "existing");
    const r = await gitBranch(
      new LocalGit(repo),
      branchEffect({ name: "existing", if_exists: "fail" }),
    );
    expect(r).toMatchObject({ ok: false, error: { code: "GH-CONFLICT" } });
  });

  it("reports a base that does not exist as a git failure", async () => {
    const repo = makeRepo();
    const r = await gitBranch(new LocalGit(repo), branchEffect({ name: "x", from: "nope" }));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("GIT-FAILED");
      expect(r.error.message).toBe("git could not create branch 'x' from 'nope'");
      expect(r.error.cause).toBeTruthy();
    }
    expect(branches(repo)).toEqual(["main"]);
  });
});

describe("gitCommit", () => {
  it("never commits to the branch checked out in the work tree, nor to origin's default branch", async () => {
    const repo = makeRepo();
    git(repo, "branch", "trunk");
    git(repo, "branch", "run-branch");
    git(repo, "update-ref", "refs/remotes/origin/trunk", "trunk");
    git(repo, "symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk");
    const heads = () => ["main", "trunk"].map((b) => git(repo, "rev-parse", b));
    const before = heads();
    const commit = (branch: string) =>
      gitCommit(
        new LocalGit(repo),
        commitEffect(`k/${branch}`, {
          branch,
          message: "m",
          files: [{ path: "a.md", content: "x" }],
        }),
        noFiles,
      );
    const onCheckout = await commit("main");
    expect(onCheckout.ok).toBe(false);
    if (!onCheckout.ok) {
      expect(onCheckout.error.message).toContain("branch 'main' is checked out or is the default");
      expect(onCheckout.error.message).toContain("create one with a branch step");
    }
    const onDefault = await commit("trunk");
    expect(onDefault.ok).toBe(false);
    if (!onDefault.ok)
      expect(onDefault.error.message).toContain("branch 'trunk' is checked out or is the default");
    expect(heads()).toEqual(before);
    expect(git(repo, "status", "--porcelain")).toBe("");
    // The run's own branch takes the commit; the checkout is as it was.
    expect((await commit("run-branch")).ok).toBe(true);
    expect(git(repo, "show", "run-branch:a.md")).toBe("x");
    expect(git(repo, "status", "--porcelain")).toBe("");
  });

  async function setup() {
    const repo = makeRepo();
    git(repo, "branch", "work");
    return { repo, g: new LocalGit(repo) };
  }

  it("commits files to the branch with the run trailer, leaving the checkout alone", async () => {
    const { repo, g } = await setup();
    const parent = git(repo, "rev-parse", "work");
    const r = await gitCommit(
      g,
      commitEffect("run-1/commit/1", {
        branch: "work",
        message: "docs: hello",
        files: [
          { path: "greetings/a.md", content: "A\n" },
          { path: "README.md", content: "changed\n" },
        ],
      }),
      noFiles,
    );
    expect(r.ok).toBe(true);
    const sha = git(repo, "rev-parse", "work");
    expect(r).toEqual({
      ok: true,
      outputs: { sha, branch: "work", created: true, url: "(local commit)" },
    });
    expect(git(repo, "rev-parse", "work^")).toBe(parent);
    expect(git(repo, "log", "-1", "--format=%B", "work")).toBe(
      `docs: hello\n\n${runTrailer("run-1/commit/1")}`,
    );
    expect(git(repo, "show", "work:greetings/a.md")).toBe("A");
    expect(git(repo, "show", "work:README.md")).toBe("changed");
    expect(git(repo, "ls-tree", "-r", "--name-only", "work").split("\n")).toEqual([
      "README.md",
      "greetings/a.md",
    ]);
    // The work tree, index and HEAD are untouched.
    expect(git(repo, "status", "--porcelain")).toBe("");
    expect(git(repo, "rev-parse", "--abbrev-ref", "HEAD")).toBe("main");
  });

  it("finds its own commit again on a retry with the same key instead of committing twice", async () => {
    const { repo, g } = await setup();
    const effect = commitEffect("run-1/commit/1", {
      branch: "work",
      message: "m",
      files: [{ path: "f.txt", content: "1" }],
    });
    const first = await gitCommit(g, effect, noFiles);
    const count = git(repo, "rev-list", "--count", "work");
    const again = await gitCommit(g, effect, noFiles);
    expect(again).toEqual({
      ok: true,
      outputs: {
        sha: first.ok ? first.outputs.sha : "(failed)",
        branch: "work",
        created: false,
        url: "(local commit)",
      },
    });
    expect(git(repo, "rev-list", "--count", "work")).toBe(count);

    // A commit made on top still lets the retry find it.
    git(
      repo,
      "update-ref",
      "refs/heads/work",
      git(repo, "commit-tree", "work^{tree}", "-p", "work", "-m", "later"),
    );
    const third = await gitCommit(g, effect, noFiles);
    expect(third).toMatchObject({ ok: true, outputs: { created: false } });

    // Another key commits again.
    const other = await gitCommit(g, commitEffect("run-1/commit/2", effect.params), noFiles);
    expect(other).toMatchObject({ ok: true, outputs: { created: true } });
    expect(Number(git(repo, "rev-list", "--count", "work"))).toBe(Number(count) + 2);
  });

  it("matches the trailer exactly: a commit for key k/12 is not the commit for k/1", async () => {
    const { repo, g } = await setup();
    const params = { branch: "work", message: "m", files: [{ path: "f", content: "x" }] };
    await gitCommit(g, commitEffect("run-1/commit/12", params), noFiles);
    const r = await gitCommit(g, commitEffect("run-1/commit/1", params), noFiles);
    expect(r).toMatchObject({ ok: true, outputs: { created: true } });
    expect(git(repo, "log", "-1", "--format=%(trailers:key=Playbook-Run,valueonly)", "work")).toBe(
      "run-1/commit/1",
    );
  });

  it("commits the work-tree files a pattern names", async () => {
    const { repo, g } = await setup();
    const asked: string[] = [];
    const r = await gitCommit(
      g,
      commitEffect("k/1", { branch: "work", message: "m", paths: ["src/*.ts", "none/*"] }),
      async (pattern) => {
        asked.push(pattern);
        return pattern === "src/*.ts" ? [{ path: "src/a.ts", content: "export {};\n" }] : [];
      },
    );
    expect(r.ok).toBe(true);
    expect(asked).toEqual(["src/*.ts", "none/*"]);
    expect(git(repo, "show", "work:src/a.ts")).toBe("export {};");
  });

  it("refuses a commit with no files", async () => {
    const { repo, g } = await setup();
    const before = git(repo, "rev-parse", "work");
    const r = await gitCommit(
      g,
      commitEffect("k/1", { branch: "work", message: "m", paths: ["nothing/*"] }),
      noFiles,
    );
    expect(r).toMatchObject({ ok: false, error: { code: "PB-EFFECT-FAILED" } });
    expect(git(repo, "rev-parse", "work")).toBe(before);
  });

  it("refuses a commit to a missing branch", async () => {
    const { g } = await setup();
    const r = await gitCommit(
      g,
      commitEffect("k/1", { branch: "gone", message: "m", files: [{ path: "a", content: "" }] }),
      noFiles,
    );
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("GH-NOT-FOUND");
      expect(r.error.message).toContain("branch 'gone' does not exist");
    }
  });

  it("reports a path git refuses as a git failure and leaves the branch alone", async () => {
    const { repo, g } = await setup();
    const before = git(repo, "rev-parse", "work");
    const r = await gitCommit(
      g,
      commitEffect("k/1", {
        branch: "work",
        message: "m",
        files: [{ path: ".git/evil", content: "x" }],
      }),
      noFiles,
    );
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("GIT-FAILED");
      expect(r.error.message).toBe("git could not commit to 'work'");
    }
    expect(git(repo, "rev-parse", "work")).toBe(before);
  });
});
