import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MockAiAdapter } from "../../../src/runtime/ai.js";
import { Runner } from "../../../src/entries/cli/runner.js";
import { LocalEffects } from "../../../src/adapters/local/effects.js";
import { start } from "../../../src/core/engine/engine.js";
import type { Effect } from "../../../src/core/engine/events.js";
import { FileRunStore } from "../../../src/adapters/local/file-store.js";
import {
  bundleHash,
  delegateClosure,
  findTarget,
  loadLocalPlaybooks,
  loadPinned,
  pinBundles,
} from "../../../src/entries/cli/local-playbooks.js";
import {
  branches,
  cleanup,
  FIXED_ID,
  git,
  makeRepo,
  ROOT,
  runIn,
  write,
} from "../../helpers/git-repo.js";

afterEach(cleanup);

/** The terminal: what readline is asked, and the answers it gives. */
const terminal = vi.hoisted(() => ({
  questions: [] as string[],
  answers: [] as string[],
  closed: 0,
}));
vi.mock("node:readline/promises", () => ({
  createInterface: () => ({
    question: async (q: string) => {
      terminal.questions.push(q);
      return terminal.answers.shift() ?? "";
    },
    close: () => void terminal.closed++,
  }),
}));

const HELLO_BRANCH = `playbook/hello-world-${FIXED_ID}`;

/** A repository playbook exercising the runner's answers without GitHub. */
const SINK = `apiVersion: playbook-bot/v1
id: sink
name: Kitchen sink
description: Every kind of wait the local runner answers by itself.
steps:
  - id: two
    type: checkpoint
    description: Two approvals.
    message: Two people, please.
    approvers: { count: 3 }
  - id: think
    type: ai
    description: A write-scope ai step needs an approval.
    prompt: Write something
    scope: write
  - id: deploy
    type: dispatch
    description: Run a workflow and wait for it.
    workflow: deploy.yml
    wait: true
  - id: tag
    type: label
    description: Label the issue.
    authority: ask-first
    add: [done]
  - id: pr
    type: pull_request
    description: Open a pull request and wait for its merge.
    head: feature
    title: A change
    wait: merged
  - id: end
    type: end
    description: Finish.
    advice: "AI said {{ steps.think.outputs.text }}"
`;

const RETRY = `apiVersion: playbook-bot/v1
id: flaky
description: A branch from a base that does not exist, retried twice.
steps:
  - id: branch
    type: branch
    description: Cannot work.
    name: x
    from: does-not-exist
    on_error: { GIT-FAILED: retry:2, default: fail }
  - id: end
    type: end
    description: Never reached.
`;

const ASK = `apiVersion: playbook-bot/v1
id: ask
description: An investigation without branches.
steps:
  - id: look
    type: investigate
    description: Look around.
    expected_findings: [disk_full, cpu_high]
  - id: plain
    type: investigate
    description: Nothing expected.
  - id: end
    type: end
    description: Finish.
    advice: "disk {{ findings.disk_full }}"
`;

describe("playbook-bot run hello-world", () => {
  it("runs autonomously: branch, commit, logs, summary, archive", async () => {
    const repo = makeRepo();
    const r = await runIn(repo, "hello-world", ['name="Ada Lovelace"'], { mode: "autonomous" });
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const branch = `playbook/hello-ada-lovelace-${FIXED_ID}`;
    expect(branches(repo)).toEqual(["main", branch]);
    expect(git(repo, "log", "-1", "--format=%s%n%b", branch)).toBe(
      `docs: greet ada-lovelace\nPlaybook-Run: ${FIXED_ID}/commit/1`,
    );
    expect(git(repo, "show", `${branch}:greetings/ada-lovelace.md`)).toContain(
      "Hello, ada-lovelace!",
    );
    // The checkout is untouched.
    expect(git(repo, "status", "--porcelain")).toBe("");
    expect(r.out).toContain(`Run ${FIXED_ID}: Hello, world (autonomous)\n`);
    for (const line of [
      "[10:20:30] ▶ approve (checkpoint)",
      "[10:20:30] autonomous mode: approving approve",
      "✔ approve completed in",
      "▶ branch (branch)",
      "✔ branch completed in",
      "▶ commit (commit)",
      "✔ commit completed in",
      "✔ done completed in",
    ])
      expect(r.out).toContain(line);
    expect(r.out).toMatch(
      /step +kind +result +time\n-+ +-+ +-+ +-+\napprove +checkpoint +completed +\d+ ms\nbranch +branch +completed +\d+ ms\ncommit +commit +completed +\d+ ms\ndone +end +completed +\d+ ms\n/,
    );
    const runs = join(repo, ".playbook-runs");
    const archived = join(runs, "history", "2024", "03", "05", `run-${FIXED_ID}.json`);
    expect(r.out).toContain(`Run ${FIXED_ID} completed. State: ${archived}\n`);
    expect(existsSync(join(runs, `run-${FIXED_ID}.json`))).toBe(false);
    expect(JSON.parse(readFileSync(archived, "utf8")).run.status).toBe("completed");
    expect(readFileSync(join(runs, ".gitignore"), "utf8")).toBe("*\n");
    expect(readdirSync(join(runs, "playbooks"))).toHaveLength(1);
  });

  it("finds a playbook by its command and by its file", async () => {
    const repo = makeRepo();
    const byCommand = await runIn(repo, "hello", [], { mode: "autonomous" });
    expect(byCommand.code).toBe(0);
    expect(byCommand.out).toContain("Hello, world (autonomous)");
    const repo2 = makeRepo();
    const byFile = await runIn(repo2, join(ROOT, "playbooks", "hello-world.yaml"), [], {
      mode: "autonomous",
    });
    expect(byFile.code).toBe(0);
    expect(branches(repo2)).toContain(HELLO_BRANCH);
  });

  it("asks in manual mode: ENTER approves", async () => {
    const repo = makeRepo();
    const r = await runIn(repo, "hello-world", [], {}, { answers: [""] });
    expect(r.code).toBe(0);
    expect(r.questions).toEqual(["Approve approve? [ENTER approves, n rejects] "]);
    expect(branches(repo)).toContain(HELLO_BRANCH);
  });

  it("asks in manual mode: n rejects and the run fails with exit 2", async () => {
    const repo = makeRepo();
    const r = await runIn(repo, "hello-world", [], {}, { answers: ["n"] });
    expect(r.code).toBe(2);
    expect(branches(repo)).toEqual(["main"]);
    expect(r.out).toContain("✖ approve failed");
    expect(r.out).toContain(`Run ${FIXED_ID} failed.`);
    expect(
      existsSync(
        join(repo, ".playbook-runs", "history", "2024", "03", "05", `run-${FIXED_ID}.json`),
      ),
    ).toBe(true);
  });

  it("performs nothing in a dry run and prints what it would do", async () => {
    const repo = makeRepo();
    const r = await runIn(repo, "hello-world", [], { mode: "autonomous", dryRun: true });
    expect(r.code).toBe(0);
    expect(branches(repo)).toEqual(["main"]);
    expect(git(repo, "rev-list", "--all", "--count")).toBe("1");
    expect(r.out).toContain("(autonomous, dry run)");
    expect(r.out).toContain(`dry run: would create branch ${HELLO_BRANCH}`);
    expect(r.out).toContain(`dry run: would commit "docs: greet world" to ${HELLO_BRANCH}`);
  });

  it("runs in a new scratch repository with --scratch", async () => {
    const repo = makeRepo();
    const r = await runIn(repo, "hello-world", [], { mode: "autonomous", scratch: true });
    expect(r.code).toBe(0);
    const scratch = /Scratch repository: (.+)\n/.exec(r.out)?.[1] as string;
    try {
      expect(scratch).toBeTruthy();
      expect(scratch).not.toBe(repo);
      expect(branches(scratch)).toEqual(["main", HELLO_BRANCH]);
      expect(git(scratch, "log", "--format=%s", "main")).toBe("Initial commit");
      expect(branches(repo)).toEqual(["main"]);
      expect(existsSync(join(repo, ".playbook-runs"))).toBe(false);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it("acts on --repo instead of the current folder", async () => {
    const repo = makeRepo();
    const other = makeRepo();
    const r = await runIn(repo, "hello-world", [], { mode: "autonomous", repo: other });
    expect(r.code).toBe(0);
    expect(branches(other)).toContain(HELLO_BRANCH);
    expect(branches(repo)).toEqual(["main"]);
  });
});

describe("playbook-bot run: refusals", () => {
  it("an unknown playbook exits 1 and lists the ids", async () => {
    const repo = makeRepo();
    const r = await runIn(repo, "nope", [], { mode: "autonomous" });
    expect(r.code).toBe(1);
    expect(r.err).toContain("playbook-bot: no playbook 'nope'");
    expect(r.err).toContain(join(repo, ".github/playbooks"));
    expect(r.err).toMatch(/ids: .*hello-world/);
    expect(existsSync(join(repo, ".playbook-runs"))).toBe(false);
  });

  it("invalid inputs exit 1 and say which", async () => {
    const repo = makeRepo();
    const r = await runIn(repo, "hello-world", [`name=${"x".repeat(60)}`], { mode: "autonomous" });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^playbook-bot: hello-world: invalid inputs\n {2}- .*name/);
    expect(branches(repo)).toEqual(["main"]);

    const bump = await runIn(repo, "dependency-bump", [], { mode: "autonomous" });
    expect(bump.code).toBe(1);
    expect(bump.err).toContain("dependency-bump: invalid inputs");
    expect(bump.err).toContain("package");
  });

  it("an invalid playbook named by id or by file exits 1 with its report", async () => {
    const repo = makeRepo();
    write(
      repo,
      ".github/playbooks/broken.yaml",
      "apiVersion: playbook-bot/v1\nid: broken\nsteps:\n  - id: a\n    type: comit\n",
    );
    const byId = await runIn(repo, "broken", [], { mode: "autonomous" });
    expect(byId.code).toBe(1);
    expect(byId.err).toContain("unknown step kind 'comit'");
    const byFile = await runIn(repo, ".github/playbooks/broken.yaml", [], { mode: "autonomous" });
    expect(byFile.code).toBe(1);
    expect(byFile.err).toContain("unknown step kind 'comit'");
  });
});

describe("the runner answers what a local run waits for", () => {
  it("approves multi-person checkpoints and write-scope ai, and treats workflows as done without GitHub", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/sink.yaml", SINK);
    const r = await runIn(repo, "sink", [], { mode: "autonomous" });
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("autonomous mode: approving two");
    expect(r.out).toContain("autonomous mode: approving tag");
    expect(r.out).toContain("no GitHub: treating pull request as merged to continue the local run");
    expect(r.out).toContain("no GitHub token: would run workflow deploy.yml with {}");
    expect(r.out).toContain(
      "no GitHub: treating workflow deploy.yml as successful to continue the local run",
    );
    expect(r.out).toContain("no GitHub token: would label the issue: +[done] -[]");
    expect(r.out).toContain("AI said mock response to: Write something");
    expect(r.out).toMatch(/two +checkpoint +completed/);
    expect(r.out).toMatch(/deploy +dispatch +completed/);
  });

  it("waits between retries with the injected sleep, then fails with exit 2", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/flaky.yaml", RETRY);
    const sleeps: number[] = [];
    const r = await runIn(repo, "flaky", [], { mode: "autonomous" }, { sleeps });
    expect(r.code).toBe(2);
    expect(sleeps.length).toBe(2);
    expect(r.out).toContain("waiting 2 s before retrying branch");
    expect(r.out).toContain("✖ branch failed (GIT-FAILED)");
    expect(r.out).toMatch(/branch +branch +failed/);
    expect(branches(repo)).toEqual(["main"]);
  });

  it("pauses when retries wait on a clock that does not move", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/flaky.yaml", RETRY);
    const sleeps: number[] = [];
    const r = await runIn(repo, "flaky", [], { mode: "autonomous" }, { sleeps, frozen: true });
    expect(r.code).toBe(4);
    expect(sleeps).toHaveLength(4);
    expect(r.out).toContain(`Run ${FIXED_ID} paused at branch (running)`);
    expect(existsSync(join(repo, ".playbook-runs", `run-${FIXED_ID}.json`))).toBe(true);
  });

  it("asks for findings and records them, or records false for an empty answer", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/ask.yaml", ASK);
    const r = await runIn(repo, "ask", [], {}, { answers: ["disk_full=true cpu_high=false"] });
    expect(r.code).toBe(0);
    expect(r.questions).toEqual(["Findings for look (disk_full=… cpu_high=…): "]);
    expect(r.out).toContain("disk true");

    const repo2 = makeRepo();
    write(repo2, ".github/playbooks/ask.yaml", ASK);
    const r2 = await runIn(repo2, "ask", [], {}, { answers: [""] });
    expect(r2.code).toBe(0);
    expect(r2.out).toContain("disk false");
  });

  it("a delegate to a playbook whose file does not load fails saying why", async () => {
    // Triagent's walker fixtures, the target broken (its symptom left empty).
    const repo = makeRepo();
    const fixture = (id: string) =>
      readFileSync(
        join(
          ROOT,
          "test/fixtures/seed-repos/triagent/pkg/mcp/strategies/testdata/playbooks/investigation",
          `${id}.yaml`,
        ),
        "utf8",
      );
    write(repo, ".github/playbooks/delegate_parent.yaml", fixture("delegate_parent"));
    write(
      repo,
      ".github/playbooks/delegate_target.yaml",
      fixture("delegate_target").replace(/^symptom:.*$/m, 'symptom: ""'),
    );
    const r = await runIn(repo, "delegate_parent", [], {}, { answers: ["walk_target"] });
    expect(r.out + r.err).toContain(
      "playbook 'delegate_target' cannot run: .github/playbooks/delegate_target.yaml is invalid — line 3: the playbook has no symptom",
    );
    expect(r.out + r.err).not.toContain("no playbook has id");
  });

  it("walks an investigation with choices, a delegate and a handoff", async () => {
    const repo = makeRepo();
    const r = await runIn(
      repo,
      "service-triage",
      ["namespace=shop"],
      {},
      {
        answers: [
          "failing_pods=true",
          "unhealthy",
          "volume_mount_error=true",
          "",
          "recent_deploy=false",
          "recent_config_change=false",
        ],
      },
    );
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.questions[0]).toBe("Findings for pod_state (failing_pods=…): ");
    expect(r.questions[1]).toBe("Choose for pod_state (unhealthy | healthy): ");
    expect(r.out).toContain("▶ deploys (investigate) in recent-changes");
    expect(r.out).toMatch(/recent-changes\/deploys +investigate +completed/);
    expect(r.out).toContain("handoff: continue with: playbook-bot run storage-investigation\n");
  });
});

const REFUSED = `apiVersion: playbook-bot/v1
id: refused
description: Only the initiator may approve, and the initiator may not.
steps:
  - id: gate
    type: checkpoint
    description: Gate.
    message: ok?
    approvers: { users: [local-cli], allow_initiator: false }
  - id: end
    type: end
    description: Finish.
`;

const CHOOSE = `apiVersion: playbook-bot/v1
id: choose
description: Choices without labels.
steps:
  - id: look
    type: investigate
    description: Look.
    expected_findings: [a]
    next:
      - { condition: first, goto: e1 }
      - { condition: second, goto: e2 }
  - id: e1
    type: end
    description: One.
    advice: chose one
  - id: e2
    type: end
    description: Two.
    advice: chose two
`;

describe("the runner pauses instead of looping", () => {
  it("pauses when an autonomous approval is refused", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/refused.yaml", REFUSED);
    const r = await runIn(repo, "refused", [], { mode: "autonomous" });
    expect(r.code).toBe(4);
    expect(r.out).toContain("refused: @local-cli started this run and cannot approve it");
    expect(r.out).toContain(`Run ${FIXED_ID} paused at gate (waiting).`);
  });

  it("chooses by target when branches have no label; pauses when nobody answers", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/choose.yaml", CHOOSE);
    const r = await runIn(repo, "choose", [], {}, { answers: ["", "e2"] });
    expect(r.code).toBe(0);
    expect(r.questions).toEqual(["Findings for look (a=…): ", "Choose for look (e1 | e2): "]);
    expect(r.out).toContain("chose two");

    const atFindings = await runIn(makeRepo(), "choose", [], { repo }, { answers: [] });
    expect(atFindings.code).toBe(4);
    expect(atFindings.questions).toEqual(["Findings for look (a=…): "]);

    const repo2 = makeRepo();
    write(repo2, ".github/playbooks/choose.yaml", CHOOSE);
    const atChoice = await runIn(repo2, "choose", [], {}, { answers: ["a=1"] });
    expect(atChoice.code).toBe(4);
    expect(atChoice.questions).toEqual([
      "Findings for look (a=…): ",
      "Choose for look (e1 | e2): ",
    ]);
    expect(atChoice.out).toContain("paused at look (waiting)");
  });

  it("pauses for GitHub when a workflow was really dispatched", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/sink.yaml", SINK);
    const set = await loadLocalPlaybooks(repo);
    const bundle = set.bundles.get("sink");
    if (!bundle) throw new Error("no sink");
    const now = new Date("2024-03-05T10:20:30Z");
    const started = start(
      { bundle, inputs: {}, initiator: { login: "me", permission: "admin" }, eventId: "e" },
      { now, playbooks: (id) => set.bundles.get(id) },
    );
    if (!started.ok) throw new Error("not started");
    const performed: string[] = [];
    const lines: string[] = [];
    const store = new FileRunStore(join(repo, ".playbook-runs"));
    const runner = new Runner(
      { run: started.result.run, mode: "autonomous", dryRun: false, repo, playbooks: {} },
      {
        store,
        effects: new LocalEffects({
          repo,
          dryRun: false,
          ai: new MockAiAdapter(),
          log: (l) => lines.push(l),
          github: {
            perform: async (e: Effect) => {
              performed.push(e.kind);
              return { ok: true, outputs: { number: 5, url: "u", conclusion: "success" } };
            },
          },
        }),
        bundles: new Map([["sink", bundle]]),
        io: { log: (l) => lines.push(l), out: (t) => lines.push(t), ask: async () => null },
        clock: () => now,
        operator: "me",
      },
    );
    expect(await runner.start(started.result)).toBe(4);
    expect(performed).toEqual(["dispatch"]);
    expect(lines.join("")).toContain("paused at deploy (waiting)");
    expect(store.list().map((r) => r.run.id)).toEqual([runner.run.id]);
  });
});

describe("fault injection and the terminal", () => {
  it("kills the process right after the named effect, before its result is saved", async () => {
    const repo = makeRepo();
    const stateAtKill: string[] = [];
    const kill = vi.spyOn(process, "kill").mockImplementation((pid, signal) => {
      const saved = JSON.parse(
        readFileSync(join(repo, ".playbook-runs", `run-${FIXED_ID}.json`), "utf8"),
      );
      stateAtKill.push(
        `${String(pid)} ${String(signal)} ${saved.run.stack[0].current} ${saved.run.stack[0].phase}`,
      );
      return true;
    });
    process.env.PLAYBOOK_BOT_FAULT = "crash-after-effect:commit";
    try {
      const r = await runIn(repo, "hello-world", [], { mode: "autonomous" });
      expect(r.code).toBe(0);
    } finally {
      delete process.env.PLAYBOOK_BOT_FAULT;
      kill.mockRestore();
    }
    expect(stateAtKill).toEqual([`${process.pid} SIGKILL commit effect`]);
    // The commit was already made when the process would have died.
    expect(git(repo, "rev-list", "--count", HELLO_BRANCH)).toBe("2");
  });

  it("ignores a fault spec it does not understand", async () => {
    const repo = makeRepo();
    const kill = vi.spyOn(process, "kill").mockImplementation(() => true);
    process.env.PLAYBOOK_BOT_FAULT = "explode";
    try {
      expect((await runIn(repo, "hello-world", [], { mode: "autonomous" })).code).toBe(0);
    } finally {
      delete process.env.PLAYBOOK_BOT_FAULT;
      kill.mockRestore();
    }
    expect(kill).not.toHaveBeenCalled();
  });

  it("asks on the terminal when one is attached and no ask is given", async () => {
    const repo = makeRepo();
    terminal.questions.length = 0;
    terminal.answers.splice(0, Infinity, "n");
    const spy = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    try {
      const r = await runIn(repo, "hello-world", [], {}, { interactive: true });
      expect(r.code).toBe(2);
    } finally {
      spy.mockRestore();
    }
    expect(terminal.questions).toEqual(["Approve approve? [ENTER approves, n rejects] "]);
    expect(terminal.closed).toBe(1);
  });

  it("uses the real clock when none is given", async () => {
    const repo = makeRepo();
    const before = new Date();
    const r = await runIn(repo, "hello-world", [], { mode: "autonomous" }, { realClock: true });
    expect(r.code).toBe(0);
    const id = /Run (\d{8}-\d{4}-[a-z0-9]+):/.exec(r.out)?.[1] ?? "";
    expect(id.slice(0, 8)).toBe(before.toISOString().slice(0, 10).replace(/-/g, ""));
  });

  it("shows progress lines on a terminal", async () => {
    const repo = makeRepo();
    const writes: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      writes.push(String(chunk));
      return true;
    });
    try {
      const r = await runIn(repo, "hello-world", [], {}, { interactive: true, answers: [""] });
      expect(r.code).toBe(0);
    } finally {
      spy.mockRestore();
    }
    expect(writes).toContain("\r⠿ branch: branch …");
    expect(writes).toContain("\r⠿ commit: commit …");
    expect(writes).toContain("\r\x1b[K");
  });
});

describe("local playbook discovery", () => {
  const OVERRIDE = readFileSync(join(ROOT, "playbooks", "hello-world.yaml"), "utf8").replace(
    "name: Hello, world",
    "name: Hello from the repository",
  );

  it("loads the bundled library", async () => {
    const set = await loadLocalPlaybooks(makeRepo());
    expect([...set.bundles.keys()]).toEqual(
      expect.arrayContaining(["hello-world", "dependency-bump", "service-triage"]),
    );
    const hello = set.bundles.get("hello-world");
    expect(hello?.files).toEqual({
      "templates/hello.md": readFileSync(join(ROOT, "playbooks/templates/hello.md"), "utf8"),
    });
    expect(hello?.hash).toBe(bundleHash(hello?.source ?? "", hello?.files ?? {}));
  });

  it("prefers the repository's .github/playbooks over the bundled library", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/hello-world.yaml", OVERRIDE);
    write(repo, ".github/playbooks/templates/hello.md", "Hi {{ inputs.name }} from the repo\n");
    const set = await loadLocalPlaybooks(repo);
    expect(set.bundles.get("hello-world")?.playbook.name).toBe("Hello from the repository");
    expect(set.bundles.get("hello-world")?.file).toBe(
      join(repo, ".github/playbooks/hello-world.yaml"),
    );

    const r = await runIn(repo, "hello-world", [], { mode: "autonomous" });
    expect(r.code).toBe(0);
    expect(r.out).toContain("Hello from the repository (autonomous)");
    expect(git(repo, "show", `${HELLO_BRANCH}:greetings/world.md`)).toBe("Hi world from the repo");
  });

  it("prefers an explicit file over the repository's playbooks", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/hello-world.yaml", OVERRIDE);
    write(repo, "elsewhere/templates/hello.md", "elsewhere\n");
    const other = write(
      repo,
      "elsewhere/hello.yaml",
      OVERRIDE.replace("Hello from the repository", "Hello from elsewhere"),
    );
    const set = await loadLocalPlaybooks(repo, other);
    expect(set.bundles.get("hello-world")?.playbook.name).toBe("Hello from elsewhere");
    expect(findTarget(set, "elsewhere/hello.yaml", repo).bundle?.file).toBe(other);
  });

  it("disables an id with active: false", async () => {
    const repo = makeRepo();
    write(
      repo,
      ".github/playbooks/hello-world.yaml",
      OVERRIDE.replace("owner:", "active: false\nowner:"),
    );
    write(repo, ".github/playbooks/templates/hello.md", "unused\n");
    const set = await loadLocalPlaybooks(repo);
    expect(set.bundles.has("hello-world")).toBe(false);
    expect(set.bundles.has("dependency-bump")).toBe(true);
    const r = await runIn(repo, "hello-world", [], { mode: "autonomous" });
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `playbook-bot: playbook 'hello-world' is disabled (active: false in ${join(repo, ".github/playbooks/hello-world.yaml")})\n`,
    );
    const byFile = await runIn(repo, ".github/playbooks/hello-world.yaml", [], {
      mode: "autonomous",
    });
    expect(byFile.code).toBe(1);
    expect(byFile.err).toContain("is disabled (active: false in");
    expect(branches(repo)).toEqual(["main"]);
  });

  it("reports an invalid file and keeps the valid ones", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/bad.yaml", "apiVersion: playbook-bot/v1\nid: bad\nsteps: 3\n");
    const set = await loadLocalPlaybooks(repo);
    expect(set.bundles.has("bad")).toBe(false);
    const report = set.reports.find((x) => x.file.endsWith("bad.yaml"));
    expect(report?.diagnostics.some((d) => d.severity === "error")).toBe(true);
    expect(findTarget(set, "bad", repo).report).toBe(report);
    expect(findTarget(set, ".github/playbooks/bad.yaml", repo).report).toBe(report);
  });

  it("finds nothing for an unknown target or an unlisted yaml file", async () => {
    const repo = makeRepo();
    const set = await loadLocalPlaybooks(repo);
    expect(findTarget(set, "unknown", repo)).toEqual({});
    write(repo, "stray.yaml", "a: 1\n");
    expect(findTarget(set, "stray.yaml", repo)).toEqual({});
    // A file that is not yaml is looked up as an id.
    expect(findTarget(set, "README.md", repo)).toEqual({});
  });

  it("loads the prompt files of ai steps with the playbook", async () => {
    const repo = makeRepo();
    write(
      repo,
      ".github/playbooks/asker.yaml",
      `apiVersion: playbook-bot/v1
id: asker
description: An ai step with a prompt file.
steps:
  - id: think
    type: ai
    description: Think.
    prompt_file: prompts/think.md
  - id: end
    type: end
    description: Finish.
`,
    );
    write(repo, ".github/playbooks/prompts/think.md", "Think hard\n");
    const set = await loadLocalPlaybooks(repo);
    expect(set.bundles.get("asker")?.files).toEqual({ "prompts/think.md": "Think hard\n" });
  });

  it("pins the playbooks a run uses and loads them back", async () => {
    const repo = makeRepo();
    const set = await loadLocalPlaybooks(repo);
    const store = new FileRunStore(join(repo, ".playbook-runs"));
    const pinned = pinBundles(store, ["service-triage", "recent-changes", "missing"], set.bundles);
    expect(Object.keys(pinned).sort()).toEqual(["recent-changes", "service-triage"]);
    const back = loadPinned(store, pinned);
    expect(back.get("service-triage")?.hash).toBe(set.bundles.get("service-triage")?.hash);
    expect(back.get("recent-changes")?.playbook.id).toBe("recent-changes");
  });

  it("computes the delegate closure transitively and once", async () => {
    const set = await loadLocalPlaybooks(makeRepo());
    expect(delegateClosure("service-triage", set.bundles).sort()).toEqual([
      "recent-changes",
      "service-triage",
    ]);
    expect(delegateClosure("hello-world", set.bundles)).toEqual(["hello-world"]);
    expect(delegateClosure("missing", set.bundles)).toEqual([]);
    // Two delegate steps into one playbook count it once.
    const repo = makeRepo();
    const twice = readFileSync(join(ROOT, "playbooks", "recent-changes.yaml"), "utf8");
    write(
      repo,
      ".github/playbooks/twice.yaml",
      `apiVersion: playbook-bot/v1
id: twice
description: Delegates twice.
steps:
  - id: one
    type: playbook
    description: First.
    playbook: recent-changes
    mode: delegate
    with: { namespace: a }
  - id: two
    type: playbook
    description: Second.
    playbook: recent-changes
    mode: delegate
    with: { namespace: b }
  - id: end
    type: end
    description: Finish.
`,
    );
    expect(twice).toContain("id: recent-changes");
    const set2 = await loadLocalPlaybooks(repo);
    expect(delegateClosure("twice", set2.bundles)).toEqual(["twice", "recent-changes"]);
  });
});
