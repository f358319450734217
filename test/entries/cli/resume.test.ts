import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  branches,
  cleanup,
  FIXED_ID,
  git,
  makeRepo,
  resumeIn,
  runIn,
  spawnCli,
  write,
} from "../../helpers/git-repo.js";

afterEach(cleanup);

const RUN_ID = /\d{8}-\d{4}-[a-z0-9]+/g;

function openRunId(repo: string): string {
  const files = readdirSync(join(repo, ".playbook-runs")).filter((f) => /^run-.*\.json$/.test(f));
  expect(files).toHaveLength(1);
  return (files[0] as string).slice(4, -5);
}

/** Everything the run left in git, with run ids replaced (two runs differ only by id). */
function gitOutcome(repo: string) {
  const [branch, ...others] = branches(repo).filter((b) => b !== "main");
  expect(others).toEqual([]);
  const b = branch as string;
  return {
    branch: b.replace(RUN_ID, "<id>"),
    log: git(repo, "log", "--all", "--topo-order", "--format=%s%n%b").replace(RUN_ID, "<id>"),
    commits: git(repo, "rev-list", "--count", "--all"),
    files: git(repo, "ls-tree", "-r", "--name-only", b),
    greeting: git(repo, "show", `${b}:greetings/world.md`).replace(RUN_ID, "<id>"),
    main: git(repo, "rev-parse", "main"),
    status: git(repo, "status", "--porcelain"),
  };
}

function uninterrupted() {
  const repo = makeRepo("pb-clean-");
  const r = spawnCli(["run", "hello-world", "--mode", "autonomous"], repo);
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  return gitOutcome(repo);
}

describe("a run killed after an effect resumes without repeating it (real CLI, real git)", () => {
  it("crash after the commit: resume finds the commit and finishes", () => {
    const expected = uninterrupted();
    expect(expected.commits).toBe("2");
    expect(expected.log).toBe("docs: greet world\nPlaybook-Run: <id>/commit/1\n\ninit");

    const repo = makeRepo("pb-crash-");
    const crashed = spawnCli(["run", "hello-world", "--mode", "autonomous"], repo, {
      PLAYBOOK_BOT_FAULT: "crash-after-effect:commit",
    });
    expect(crashed.signal).toBe("SIGKILL");
    expect(crashed.out).toContain("▶ commit (commit)");
    expect(crashed.out).not.toContain("✔ commit");
    const id = openRunId(repo);
    // The commit was made, but its result was never saved: the state still awaits it.
    const saved = JSON.parse(readFileSync(join(repo, ".playbook-runs", `run-${id}.json`), "utf8"));
    expect(saved.run.stack[0]).toMatchObject({ current: "commit", phase: "effect" });
    expect(git(repo, "rev-list", "--count", "--all")).toBe("2");

    const resumed = spawnCli(["resume", id], repo);
    expect(resumed.err).toBe("");
    expect(resumed.code).toBe(0);
    expect(resumed.out).toContain(`Resuming run ${id} at commit`);
    expect(resumed.out).toContain("✔ commit completed");
    expect(resumed.out).not.toContain("▶ branch");
    expect(gitOutcome(repo)).toEqual({ ...expected, main: gitOutcome(repo).main });
    expect(existsSync(join(repo, ".playbook-runs", `run-${id}.json`))).toBe(false);
  });

  it("crash after the branch: resume reuses the branch, then commits once", () => {
    const expected = uninterrupted();
    const repo = makeRepo("pb-crash-");
    const crashed = spawnCli(["run", "hello-world", "--mode", "autonomous"], repo, {
      PLAYBOOK_BOT_FAULT: "crash-after-effect:branch",
    });
    expect(crashed.signal).toBe("SIGKILL");
    expect(branches(repo)).toHaveLength(2);
    expect(git(repo, "rev-list", "--count", "--all")).toBe("1");
    const id = openRunId(repo);

    const resumed = spawnCli(["resume", id], repo);
    expect(resumed.code).toBe(0);
    expect(resumed.out).toContain(`Resuming run ${id} at branch`);
    expect(resumed.out).toMatch(/branch +branch +completed/);
    expect(resumed.out).toMatch(/commit +commit +completed/);
    expect(gitOutcome(repo)).toEqual({ ...expected, main: gitOutcome(repo).main });
  });

  it("resume in this process finds the commit the killed process made", async () => {
    const repo = makeRepo("pb-crash-");
    const crashed = spawnCli(["run", "hello-world", "--mode", "autonomous"], repo, {
      PLAYBOOK_BOT_FAULT: "crash-after-effect:commit",
    });
    expect(crashed.signal).toBe("SIGKILL");
    const id = openRunId(repo);
    const branch = branches(repo).find((b) => b !== "main") as string;
    const sha = git(repo, "rev-parse", branch);
    const r = await resumeIn(repo, id);
    expect(r.code).toBe(0);
    expect(git(repo, "rev-parse", branch)).toBe(sha);
    expect(r.out).toContain(`Greeting committed as ${sha} on ${branch}.`);
  });

  it("a fault for another effect kind, or a malformed fault, changes nothing", () => {
    const repo = makeRepo();
    const r = spawnCli(["run", "hello-world", "--mode", "autonomous"], repo, {
      PLAYBOOK_BOT_FAULT: "crash-after-effect:issue",
    });
    expect(r.code).toBe(0);
    const repo2 = makeRepo();
    const r2 = spawnCli(["run", "hello-world", "--mode", "autonomous"], repo2, {
      PLAYBOOK_BOT_FAULT: "explode",
    });
    expect(r2.code).toBe(0);
    expect(gitOutcome(repo2).log).toBe(gitOutcome(repo).log);
  });
});

describe("manual mode without a terminal", () => {
  it("pauses at the checkpoint (exit 4) and resumes autonomously (real CLI)", () => {
    const repo = makeRepo();
    const paused = spawnCli(["run", "hello-world"], repo);
    expect(paused.code).toBe(4);
    const id = openRunId(repo);
    expect(paused.out).toContain(
      `Run ${id} paused at approve (waiting). Resume with: playbook-bot resume ${id}\n`,
    );
    expect(branches(repo)).toEqual(["main"]);

    // Still no terminal: pauses again, nothing done.
    const again = spawnCli(["resume", id], repo);
    expect(again.code).toBe(4);
    expect(branches(repo)).toEqual(["main"]);

    const done = spawnCli(["resume", id, "--mode", "autonomous"], repo);
    expect(done.err).toBe("");
    expect(done.code).toBe(0);
    expect(done.out).toContain("autonomous mode: approving approve");
    expect(branches(repo)).toHaveLength(2);
    const day = readdirSync(join(repo, ".playbook-runs", "history"), { recursive: true });
    expect(day.map(String)).toContainEqual(expect.stringMatching(new RegExp(`run-${id}\\.json$`)));
  });

  it("resumes in manual mode when someone answers", async () => {
    const repo = makeRepo();
    const paused = await runIn(repo, "hello-world", [], {}, { interactive: false });
    expect(paused.code).toBe(4);
    const r = await resumeIn(repo, FIXED_ID, {}, { answers: [""] });
    expect(r.code).toBe(0);
    expect(r.questions).toEqual(["Approve approve? [ENTER approves, n rejects] "]);
    expect(branches(repo)).toHaveLength(2);
  });

  it("resumes a run waiting for a retry's backoff", async () => {
    const repo = makeRepo();
    write(
      repo,
      ".github/playbooks/flaky.yaml",
      `apiVersion: playbook-bot/v1
id: flaky
description: Retries a branch that cannot be made.
steps:
  - id: branch
    type: branch
    description: Cannot work.
    name: x
    from: nope
    on_error: { GIT-FAILED: retry:1 }
  - id: end
    type: end
    description: Never reached.
`,
    );
    const paused = await runIn(repo, "flaky", [], { mode: "autonomous" }, { frozen: true });
    expect(paused.code).toBe(4);
    const sleeps: number[] = [];
    const r = await resumeIn(repo, FIXED_ID, { repo }, { sleeps });
    expect(r.code).toBe(2);
    expect(sleeps).toEqual([2000]);
    expect(r.out).toContain("✖ branch failed (GIT-FAILED)");
  });
});

describe("resume refuses damaged state with exit 3 and a way to recover", () => {
  async function pausedRun() {
    const repo = makeRepo();
    const r = await runIn(repo, "hello-world", []);
    expect(r.code).toBe(4);
    const dir = join(repo, ".playbook-runs");
    const file = join(dir, `run-${FIXED_ID}.json`);
    const pinned = join(dir, "playbooks", readdirSync(join(dir, "playbooks"))[0] as string);
    return { repo, file, pinned };
  }

  function edit(file: string, f: (doc: Record<string, unknown>) => void): void {
    const doc = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    f(doc);
    writeFileSync(file, JSON.stringify(doc));
  }

  async function refused(repo: string, id = FIXED_ID) {
    const r = await resumeIn(repo, id, { mode: "autonomous" });
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/^playbook-bot: .+\n {2}how to recover: .+\n$/);
    expect(branches(repo)).toEqual(["main"]);
    return r.err;
  }

  it("invalid JSON (real CLI, on stderr)", async () => {
    const { repo, file } = await pausedRun();
    writeFileSync(file, readFileSync(file, "utf8").slice(0, 100));
    const r = spawnCli(["resume", FIXED_ID, "--mode", "autonomous"], repo);
    expect(r.code).toBe(3);
    expect(r.out).toBe("");
    expect(r.err).toContain("is not valid JSON");
    expect(r.err).toContain("how to recover: the file was edited or damaged");
    expect(branches(repo)).toEqual(["main"]);
  });

  it("a hand-edited status", async () => {
    const { repo, file } = await pausedRun();
    edit(file, (d) => ((d.run as Record<string, unknown>).status = "bogus"));
    expect(await refused(repo)).toContain("holds an invalid run state: /status");
  });

  it("a missing field", async () => {
    const { repo, file } = await pausedRun();
    edit(file, (d) => delete (d.run as Record<string, unknown>).stack);
    expect(await refused(repo)).toContain("must have required property 'stack'");
  });

  it("a record without its mode", async () => {
    const { repo, file } = await pausedRun();
    edit(file, (d) => delete d.mode);
    expect(await refused(repo)).toContain("is not a run record");
  });

  it("a record whose pinned playbooks were nulled", async () => {
    const { repo, file } = await pausedRun();
    edit(file, (d) => (d.playbooks = null));
    expect(await refused(repo)).toContain("is not a run record");
  });

  it("an edited pinned playbook", async () => {
    const { repo, pinned } = await pausedRun();
    edit(pinned, (d) => (d.source = String(d.source).replace("docs: greet", "feat: greet")));
    expect(await refused(repo)).toContain("does not match the run");
  });

  it("a pinned playbook that no longer validates", async () => {
    const { repo, pinned } = await pausedRun();
    edit(pinned, (d) => (d.source = "id: [broken"));
    expect(await refused(repo)).toContain("does not match the run");
  });

  it("a damaged pinned playbook", async () => {
    const { repo, pinned } = await pausedRun();
    writeFileSync(pinned, "not json");
    expect(await refused(repo)).toContain("is damaged");
  });

  it("a missing pinned playbook", async () => {
    const { repo, pinned } = await pausedRun();
    rmSync(pinned);
    expect(await refused(repo)).toContain("is missing");
  });

  it("an unknown run id lists the open runs", async () => {
    const { repo } = await pausedRun();
    const err = await refused(repo, "20990101-0000-001");
    expect(err).toContain("no open run '20990101-0000-001'");
    expect(err).toContain(`how to recover: open runs: ${FIXED_ID}`);
  });

  it("a finished run", async () => {
    const repo = makeRepo();
    const r = await runIn(repo, "hello-world", [], { mode: "autonomous" });
    expect(r.code).toBe(0);
    const again = await resumeIn(repo, FIXED_ID);
    expect(again.code).toBe(3);
    expect(again.err).toContain("how to recover: finished runs are under history/");
    // A finished run put back by hand is refused as finished.
    const archived = join(
      repo,
      ".playbook-runs",
      "history",
      "2024",
      "03",
      "05",
      `run-${FIXED_ID}.json`,
    );
    writeFileSync(join(repo, ".playbook-runs", `run-${FIXED_ID}.json`), readFileSync(archived));
    const back = await resumeIn(repo, FIXED_ID);
    expect(back.code).toBe(3);
    expect(back.err).toContain(`run ${FIXED_ID} has already ended (completed)`);
  });
});
