import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { main } from "../../../src/entries/cli/main.js";
import { runCase } from "../../../src/adapters/local/playbook-tests.js";
import type { PlaybookBundle } from "../../../src/core/steps/types.js";
import type { TestCase } from "../../../src/core/format/types.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import { cliIn } from "../../helpers/cli.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };

const cli = cliIn;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pb-main-"));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

function write(rel: string, text: string): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

const GREET = `apiVersion: playbook-bot/v1
id: greet
name: Greet
description: Says hello when asked.
on:
  command: greet
steps:
  - id: hello
    type: comment
    description: Greet the thread.
    body: Hello!
  - id: done
    type: end
    description: Finish.
tests:
  - name: greets
    expect: { path: [hello, done], status: completed }
`;

/** Valid, with one warning (a step without name or description). */
const WARNED = `apiVersion: playbook-bot/v1
id: warned
description: Valid with a warning.
steps:
  - id: hello
    type: comment
    body: Hello!
  - id: done
    type: end
    description: Finish.
`;

const BROKEN = `apiVersion: playbook-bot/v1
id: broken
steps:
  - id: first
    type: comit
    description: A typo in the kind.
`;

describe("playbook-bot --version and --help", () => {
  it("prints the package version and exits 0", async () => {
    const r = await cli(["--version"], dir);
    expect(r).toEqual({ code: 0, out: `${pkg.version}\n`, err: "" });
  });

  it("prints help and exits 0", async () => {
    const r = await cli(["--help"], dir);
    expect(r.code).toBe(0);
    expect(r.out).toContain("Usage: playbook-bot");
    expect(r.out).toContain("simulate");
  });

  it("writes to the process's stdout without an io", async () => {
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    expect(await main(["--version"])).toBe(0);
    expect(write).toHaveBeenCalledWith(`${pkg.version}\n`);
  });

  it("writes errors to the process's stderr without an io", async () => {
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    expect(await main(["valdate"])).toBe(2);
    expect(write).toHaveBeenCalledWith(expect.stringContaining("unknown command 'valdate'"));
  });

  it("exits 2 on an unknown option or a missing argument", async () => {
    const r = await cli(["validate", "--frmat", "json"], dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown option '--frmat'");
    const g = await cli(["graph"], dir);
    expect(g.code).toBe(2);
    expect(g.err).toContain("missing required argument 'playbook'");
    const f = await cli(["validate", "--format", "xml"], dir);
    expect(f.code).toBe(2);
    expect(f.err).toContain("Allowed choices are text, json, github, sarif");
  });
});

describe("internal errors", () => {
  it("exit 2 with the stack when output cannot be written", async () => {
    const r = await cli(["rules"], dir, {
      out: () => {
        throw new Error("EPIPE: broken pipe");
      },
    });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^playbook-bot: internal error: Error: EPIPE: broken pipe\n {4}at /);
  });

  it("exit 2 with the message of an error without a stack, and with a thrown non-error", async () => {
    const noStack = new Error("no stack here");
    noStack.stack = undefined;
    const a = await cli(["rules"], dir, {
      out: () => {
        throw noStack;
      },
    });
    expect(a).toMatchObject({ code: 2, err: "playbook-bot: internal error: no stack here\n" });
    const b = await cli(["rules"], dir, {
      out: () => {
        throw "disk full";
      },
    });
    expect(b).toMatchObject({ code: 2, err: "playbook-bot: internal error: disk full\n" });
  });
});

describe("playbook-bot rules and schema", () => {
  it("lists each rule with its severity and layer in aligned columns", async () => {
    const r = await cli(["rules"], dir);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    const line = lines.find((l) => l.startsWith("set-duplicate-id "));
    expect(line).toMatch(
      /^set-duplicate-id +error {4}set {8}two playbooks in one set share an id$/,
    );
    // Every line has its severity at the same column.
    const col = new Set(lines.map((l) => l.search(/ (error|warning|info) /)));
    expect(col.size).toBe(1);
  });

  it("prints the generic alert schema when asked", async () => {
    const r = await cli(["schema", "--generic-alert"], dir);
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.out) as Record<string, unknown>;
    const playbook = JSON.parse((await cli(["schema"], dir)).out) as Record<string, unknown>;
    expect(schema).not.toEqual(playbook);
    expect(schema.type).toBe("object");
  });
});

describe("playbook-bot validate --format on warnings only", () => {
  beforeEach(() => write("playbooks/warned.yaml", WARNED));

  it("text: lists the warning and exits 0", async () => {
    const r = await cli(["validate"], dir);
    expect(r.code).toBe(0);
    expect(r.out).toContain("[step-no-description]");
    expect(r.out).toContain("warning");
  });

  it("json: one file, no errors, one warning, exit 0", async () => {
    const r = await cli(["validate", "--format", "json"], dir);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out) as unknown;
    expect(JSON.stringify(json)).toContain('"step-no-description"');
    expect(JSON.stringify(json)).toContain('"warning"');
    expect(JSON.stringify(json)).not.toContain('"error"');
  });

  it("github: a ::warning command, exit 0", async () => {
    const r = await cli(["validate", "-f", "github"], dir);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^::warning title=step-no-description,file=playbooks\/warned\.yaml,line=5,/m,
    );
    expect(r.out).not.toContain("::error");
  });

  it("sarif: a warning-level result with the package version, exit 0", async () => {
    const r = await cli(["validate", "--format", "sarif"], dir);
    expect(r.code).toBe(0);
    const sarif = JSON.parse(r.out) as {
      runs: {
        tool: { driver: { version: string } };
        results: { level: string; ruleId: string }[];
      }[];
    };
    expect(sarif.runs[0]?.tool.driver.version).toBe(pkg.version);
    expect(sarif.runs[0]?.results).toEqual([
      expect.objectContaining({ level: "warning", ruleId: "step-no-description" }),
    ]);
  });

  it("still exits 1 when a warning is made an error by the config", async () => {
    write(".playbook-bot.yml", "rules:\n  step-no-description: error\n");
    const r = await cli(["validate", "--format", "json"], dir);
    expect(r.code).toBe(1);
  });
});

describe("playbook-bot graph", () => {
  it("exits 2 for a missing file that is no playbook's id either", async () => {
    const r = await cli(["graph", "missing.yaml"], dir);
    expect(r).toEqual({
      code: 2,
      out: "",
      err: "playbook-bot: missing.yaml: no such file, and no playbook has that id (playbook-bot list shows them)\n",
    });
  });

  it("draws a playbook named by its id, as run takes it", async () => {
    const r = await cli(["graph", "hello-world"], dir);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^flowchart TD/m);
    expect(r.out).toContain("checkpoint");
  });

  it("suggests the id nearest a mistyped one", async () => {
    const r = await cli(["graph", "helo-world"], dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain("did you mean 'hello-world'?");
  });

  it("draws without a current step when none is named", async () => {
    write("greet.yaml", GREET);
    const r = await cli(["graph", "greet.yaml"], dir);
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[0]).toBe("flowchart TD");
    expect(r.out).toContain("s_hello");
    expect(r.out).not.toContain("current");
  });
});

describe("playbook-bot simulate", () => {
  const EVENTS = "users: { dana: write }\nevents:\n  - comment: /run greet\n    by: dana\n";

  it("runs a playbook named by its file", async () => {
    write("mine/greet.yaml", GREET);
    write("e.yaml", EVENTS);
    const r = await cli(["simulate", "mine/greet.yaml", "--events", "e.yaml"], dir);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("💬 @dana  [👀 🚀]\n   /run greet\n");
    expect(r.out).toContain("### ✅ Greet");
    expect(r.out).toContain("💬 @playbook-bot[bot]\n   Hello!\n");
  });

  it("runs a playbook of the repository named by its id", async () => {
    write(".github/playbooks/greet.yaml", GREET);
    write("e.yaml", EVENTS);
    const r = await cli(["simulate", "greet", "-e", "e.yaml"], dir);
    expect(r.code).toBe(0);
    expect(r.out).toContain("### ✅ Greet");
  });

  it("exits 1 for an unknown playbook", async () => {
    write("e.yaml", EVENTS);
    const r = await cli(["simulate", "nope", "--events", "e.yaml"], dir);
    expect(r).toEqual({ code: 1, out: "", err: "playbook-bot: no playbook 'nope'\n" });
  });

  it("exits 1 for an invalid playbook file and shows its diagnostics", async () => {
    write("broken.yaml", BROKEN);
    write("e.yaml", EVENTS);
    const r = await cli(["simulate", "broken.yaml", "--events", "e.yaml"], dir);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toContain("broken.yaml");
    expect(r.err).toContain("[schema-step-type]");
  });

  it("exits 2 for an events file with a mistake, with its position", async () => {
    write("greet.yaml", GREET);
    write("e.yaml", "events:\n  - merge: maybe\n");
    const r = await cli(["simulate", "greet.yaml", "--events", "e.yaml"], dir);
    expect(r.code).toBe(2);
    expect(r.err).toBe("playbook-bot: e.yaml:2:12: events[0].merge: must be boolean,integer\n");
    write("e.yaml", "events: [\n");
    const y = await cli(["simulate", "greet.yaml", "--events", "e.yaml"], dir);
    expect(y.code).toBe(2);
    expect(y.err).toMatch(/^playbook-bot: e\.yaml:2:1: /);
  });

  it("exits 2 when the script itself cannot be replayed", async () => {
    write("greet.yaml", GREET);
    write("e.yaml", "events:\n  - merge: true\n");
    const r = await cli(["simulate", "greet.yaml", "--events", "e.yaml"], dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain("no open pull request to merge");
  });

  it("requires --events", async () => {
    const r = await cli(["simulate", "greet"], dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain("required option '-e, --events <file>' not specified");
  });
});

describe("playbook-bot test", () => {
  it("runs the cases of the files a glob matches", async () => {
    write("pbs/greet.yaml", GREET);
    write("pbs/warned.yaml", WARNED);
    write("other/never.yaml", BROKEN);
    const r = await cli(["test", "pbs/*.yaml"], dir);
    expect(r.code).toBe(0);
    expect(r.out).toBe("✔ greet: greets\n1 case passed, 0 failed (1 playbook has no tests)\n");
  });

  it("counts failures and playbooks without tests in the plural", async () => {
    write("pbs/greet.yaml", GREET.replace("status: completed", "status: failed"));
    write("pbs/a.yaml", WARNED);
    write("pbs/b.yaml", WARNED.replace("id: warned", "id: warned-too"));
    const r = await cli(["test", "pbs"], dir);
    expect(r.code).toBe(1);
    expect(r.out).toBe(
      "✖ greet: greets\n    status: expected failed, got completed\n0 cases passed, 1 failed (2 playbooks have no tests)\n",
    );
  });

  it("runs a repository's playbook instead of the bundled one with the same id", async () => {
    write("pbs/hello.yaml", GREET.replace("id: greet", "id: hello-world"));
    const r = await cli(["test", "pbs"], dir);
    expect(r.code).toBe(0);
    expect(r.out).toBe("✔ hello-world: greets\n1 case passed, 0 failed\n");
  });

  it("writes JUnit XML CI systems read: a suite per playbook, a failure per failed case", async () => {
    write("pbs/greet.yaml", GREET.replace("status: completed", "status: failed"));
    write("pbs/ok.yaml", GREET.replace("id: greet", "id: greet-ok"));
    const r = await cli(["test", "pbs", "-f", "junit", "-o", "out/junit.xml"], dir);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    const xml = readFileSync(join(dir, "out/junit.xml"), "utf8");
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="playbook-bot test" tests="2" failures="1"/,
    );
    expect(xml).toMatch(
      /<testsuite name="greet" tests="1" failures="1"[^>]* file="pbs\/greet.yaml">/,
    );
    expect(xml).toContain(
      '<failure message="status: expected failed, got completed" type="case">status: expected failed, got completed</failure>',
    );
    expect(xml).toMatch(
      /<testcase name="greets" classname="greet-ok" file="pbs\/ok.yaml" time="\d+\.\d{3}"\/>/,
    );
  });

  it("reports an invalid file in JUnit as a failed case with each error's line, and in JSON", async () => {
    write("pbs/broken.yaml", BROKEN);
    const junit = await cli(["test", "pbs", "--format", "junit"], dir);
    expect(junit.code).toBe(1);
    expect(junit.out).toMatch(/<testcase name="validates" classname="pbs\/broken.yaml"/);
    expect(junit.out).toMatch(/<failure message="pbs\/broken.yaml:\d+:\d+ schema-step-type: /);
    const json = await cli(["test", "pbs", "--format", "json"], dir);
    const body = JSON.parse(json.out) as {
      failed: number;
      invalid: number;
      invalidFiles: { file: string; errors: { rule: string }[] }[];
    };
    expect(body).toMatchObject({ failed: 0, invalid: 1 });
    expect(body.invalidFiles[0]?.file).toBe("pbs/broken.yaml");
    expect(body.invalidFiles[0]?.errors.map((e) => e.rule)).toContain("schema-step-type");
  });

  it("gives every case as JSON, with its path and problems", async () => {
    write("pbs/greet.yaml", GREET);
    write("pbs/warned.yaml", WARNED);
    const r = await cli(["test", "pbs", "-f", "json"], dir);
    expect(r.code).toBe(0);
    const body = JSON.parse(r.out) as {
      passed: number;
      failed: number;
      withoutTests: number;
      cases: { playbook: string; file: string; ok: boolean; status: string; path: string[] }[];
    };
    expect(body).toMatchObject({ passed: 1, failed: 0, withoutTests: 1 });
    expect(body.cases[0]).toMatchObject({
      playbook: "greet",
      file: "pbs/greet.yaml",
      ok: true,
      status: "completed",
    });
    expect(body.cases[0]?.path.length).toBeGreaterThan(0);
  });

  it("exits 2 for a glob that matches nothing", async () => {
    const r = await cli(["test", "pbs/*.yaml"], dir);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      "playbook-bot: no playbook files (*.yaml, *.yml, or another system's playbooks) found in pbs/*.yaml\n",
    );
  });
});

describe("playbook-bot run and resume", () => {
  it("passes --repo to run: an unknown playbook is looked for in that repository", async () => {
    mkdirSync(join(dir, "repo"));
    const r = await cli(["run", "nope", "--repo", "repo", "--dry-run"], dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `no playbook 'nope' (looked in ${join(dir, "repo", ".github/playbooks")}`,
    );
  });

  it("looks in the current folder without --repo", async () => {
    const r = await cli(["run", "nope", "--dry-run", "--mode", "autonomous"], dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`no playbook 'nope' (looked in ${join(dir, ".github/playbooks")}`);
  });

  it("passes --repo and --mode to resume: an unknown run is reported with exit 3", async () => {
    mkdirSync(join(dir, "repo"));
    const r = await cli(
      ["resume", "20260101-0000-001", "--repo", "repo", "--mode", "autonomous"],
      dir,
    );
    expect(r.code).toBe(3);
    expect(r.err).toContain("no open run '20260101-0000-001'");
    expect(r.err).toContain(join(dir, "repo", ".playbook-runs"));
    expect(r.err).toContain("how to recover:");
  });

  it("resume in the current folder by default", async () => {
    const r = await cli(["resume", "x"], dir);
    expect(r.code).toBe(3);
    expect(r.err).toContain(join(dir, ".playbook-runs"));
  });
});

function bundle(text: string): PlaybookBundle {
  const r = validateSource("p.yaml", text);
  const errors = r.diagnostics.filter((d) => d.severity === "error");
  if (!r.playbook || errors.length) throw new Error(JSON.stringify(errors));
  return { playbook: r.playbook, hash: `h-${r.playbook.id}`, files: {} };
}

describe("golden cases (runCase)", () => {
  const EFFECTS = bundle(`apiVersion: playbook-bot/v1
id: effects
description: Every simulated effect.
inputs:
  loud: { type: boolean, default: false, description: Shout. }
steps:
  - id: shout
    type: comment
    description: Only when loud.
    if: inputs.loud == true
    body: HELLO
  - id: follow
    type: issue
    description: A follow-up issue.
    title: Follow up
    body: Later.
  - id: tag
    type: label
    description: Tag it.
    add: [triaged]
  - id: think
    type: ai
    description: Think.
    prompt: "Why is it slow?\\nDetails follow."
  - id: shut
    type: close
    description: Close.
    reason: completed
  - id: done
    type: end
    description: Finish.
outputs:
  issue: "{{ steps.follow.outputs.url }}"
  text: "{{ steps.think.outputs.text }}"
`);

  const GATE = bundle(`apiVersion: playbook-bot/v1
id: gate
description: Approvals, choices, merges and workflows.
steps:
  - id: ok
    type: checkpoint
    description: The release team approves.
    message: Go?
    approvers: { teams: [octo/release] }
  - id: look
    type: investigate
    description: Look.
    expected_findings: [seen]
    next:
      - { condition: all good, label: good, goto: done }
      - { condition: bad, label: bad, goto: bad }
  - id: bad
    type: end
    description: Bad.
    status: failure
  - id: done
    type: end
    description: Done.
`);

  const lookup = (id: string) => (id === "gate" ? GATE : id === "effects" ? EFFECTS : undefined);
  const caseOf = (tc: Omit<TestCase, "expect"> & Partial<Pick<TestCase, "expect">>): TestCase => ({
    expect: {},
    ...tc,
  });

  it("simulates issue, label, ai and close effects, and leaves skipped steps out of the path", async () => {
    const r = await runCase(
      EFFECTS,
      lookup,
      caseOf({
        name: "quiet",
        expect: {
          path: ["follow", "tag", "think", "shut", "done"],
          status: "completed",
          outputs: {
            issue: "https://github.test/issues/1",
            text: "mock response to: Why is it slow?",
          },
        },
      }),
    );
    expect(r.problems).toEqual([]);
    expect(r).toMatchObject({ ok: true, status: "completed", playbook: "effects", name: "quiet" });
  });

  it("reports a status mismatch with the run's error", async () => {
    const r = await runCase(
      EFFECTS,
      lookup,
      caseOf({
        name: "broken",
        events: [{ fail_effect: { step: "tag", code: "GH-ERROR" } }],
        expect: { status: "completed" },
      }),
    );
    expect(r.ok).toBe(false);
    expect(r.status).toBe("failed");
    expect(r.problems).toEqual([
      "status: expected completed, got failed (GH-ERROR: simulated failure (GH-ERROR))",
    ]);
  });

  it("an approver in the team approves a named step; a choice without a branch is refused", async () => {
    const r = await runCase(
      GATE,
      lookup,
      caseOf({
        name: "team",
        events: [
          { approve: { by: "bob", permission: "read", teams: ["octo/release"], step: "ok" } },
          { choose: { by: "erin" } },
          { record: { by: "erin", findings: { seen: true } } },
          { choose: { by: "erin", branch: "good" } },
        ],
        expect: { path: ["ok", "look", "done"], status: "completed" },
      }),
    );
    expect(r.problems).toEqual([]);
    expect(r.ok).toBe(true);
  });

  it("without the team, the approval is refused and the run still waits", async () => {
    const r = await runCase(
      GATE,
      lookup,
      caseOf({
        name: "no team",
        events: [{ approve: { by: "bob", permission: "admin" } }],
        expect: { path: [], status: "waiting" },
      }),
    );
    expect(r.problems).toEqual([]);
  });

  it("a rejection without a reason fails the run as rejected", async () => {
    const r = await runCase(
      GATE,
      lookup,
      caseOf({
        name: "no",
        events: [{ reject: { by: "bob", teams: ["octo/release"] } }],
        expect: { status: "failed", error: "PB-REJECTED" },
      }),
    );
    expect(r.problems).toEqual([]);
  });

  it("runs a write-scoped AI step after its approval", async () => {
    const WRITER = bundle(`apiVersion: playbook-bot/v1
id: writer
description: An AI step that may write, after an approval.
steps:
  - id: ok
    type: checkpoint
    description: Approve.
    message: Let the AI write?
  - id: fix
    type: ai
    description: Fix it.
    prompt: Fix the config.
    scope: write
    tools: [repo/write]
    expected_findings: [fixed]
  - id: done
    type: end
    description: Done.
    advice: "{{ steps.fix.outputs.text }}"
`);
    const r = await runCase(
      WRITER,
      (id) => (id === "writer" ? WRITER : undefined),
      caseOf({
        name: "write",
        events: [{ approve: { by: "bob", permission: "write" } }],
        expect: { path: ["ok", "fix", "done"], status: "completed" },
      }),
    );
    expect(r.problems).toEqual([]);
    expect(r.ok).toBe(true);
  });

  it("a merge or a workflow that nothing waits for changes nothing", async () => {
    const r = await runCase(
      GATE,
      lookup,
      caseOf({
        name: "stray",
        events: [{ merge: true }, { close_pr: true }, { workflow: "success" }],
        expect: { path: [], status: "waiting" },
      }),
    );
    expect(r.problems).toEqual([]);
    expect(r.status).toBe("waiting");
  });
});
