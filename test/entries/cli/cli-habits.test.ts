import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { unknownStep } from "../../../src/entries/cli/commands/graph.js";
import { EXIT_CODES } from "../../../src/entries/cli/cli-io.js";
import { colours, colourWanted } from "../../../src/entries/cli/colour.js";
import { bundledLibraryDir } from "../../../src/adapters/local/library.js";
import { HOSTILE, workflowCommands } from "../../helpers/workflow-commands.js";
import { cliIn } from "../../helpers/cli.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const BIN = join(root, "bin", "playbook-bot.js");
const ESC = String.fromCharCode(27);
const ANSI = new RegExp(`${ESC}\\[[0-9;]*m`);
const stripAnsi = (text: string): string => text.replace(new RegExp(ANSI.source, "g"), "");

const cli = cliIn;

/** Standard input holding `text`. */
const stdin = (text: string | Uint8Array) => ({
  readStdin: async (max: number) =>
    (typeof text === "string" ? Buffer.from(text) : Buffer.from(text)).subarray(0, max + 1),
});

const VALID = `apiVersion: playbook-bot/v1
id: hello
name: Say hello
description: Says hello.
steps:
  - id: greet
    type: comment
    description: Greet the thread.
    body: Hello from {{ run.id }}
  - id: done
    type: end
    description: Finish.
`;

/** Valid, with one warning (a step without a description). */
const WARNS = `apiVersion: playbook-bot/v1
id: warns
description: One warning.
steps:
  - id: greet
    type: comment
    body: hi
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

/** Hands off to `hello`, which only a playbook beside it defines. */
const HANDS_OFF = `apiVersion: playbook-bot/v1
id: hands-off
description: Hands off to hello.
steps:
  - id: done
    type: end
    description: Finish.
    handoff: [hello]
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pb-habits-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(rel: string, text: string): string {
  const file = join(dir, rel);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

describe("validate --quiet", () => {
  it("prints errors only, and nothing when there are none", async () => {
    write("playbooks/warns.yaml", WARNS);
    const quiet = await cli(["validate", "--quiet"], dir);
    expect(quiet).toEqual({ code: 0, out: "", err: "" });
    const loud = await cli(["validate"], dir);
    expect(loud.out).toContain("warning: ");
    write("playbooks/broken.yaml", BROKEN);
    const both = await cli(["validate", "-q"], dir);
    expect(both.code).toBe(1);
    expect(both.out).toContain("[schema-step-type]");
    expect(both.out).not.toContain("warning:");
    expect(both.out).toMatch(/1 error and 0 warnings in 2 files \(1 invalid\)\n$/);
  });

  it("leaves warnings out of the machine formats too", async () => {
    write("playbooks/warns.yaml", WARNS);
    const all = JSON.parse((await cli(["validate", "-f", "json"], dir)).out) as {
      files: { diagnostics: unknown[] }[];
    };
    const quiet = JSON.parse((await cli(["validate", "-f", "json", "-q"], dir)).out) as typeof all;
    expect(all.files[0]?.diagnostics.length).toBeGreaterThan(0);
    expect(quiet.files[0]?.diagnostics).toEqual([]);
    expect((await cli(["validate", "-f", "github", "-q"], dir)).out).not.toContain("::warning");
  });
});

describe("validate --help", () => {
  it("names the new options and the exit codes", async () => {
    const r = await cli(["validate", "--help"], dir);
    expect(r.code).toBe(0);
    for (const option of ["--quiet", "--max-warnings <n>", "--output-file <file>", "--stdin"])
      expect(r.out).toContain(option);
    expect(r.out).toContain(
      "Exit codes: 0 valid (warnings allowed), 1 invalid or more warnings than --max-warnings, 2 the",
    );
  });

  it("every command's help, and the program's, names the exit codes", async () => {
    const commands = ["", "validate", "list", "run", "resume", "trace", "test", "simulate"];
    for (const command of [
      ...commands,
      "playground",
      "graph",
      "import",
      "schema",
      "lsp",
      "rules",
    ]) {
      const r = await cli(command ? [command, "--help"] : ["--help"], dir);
      expect(r.code, command).toBe(0);
      const codes = r.out.slice(r.out.indexOf("Exit codes: ")).replace(/\s+/g, " ");
      expect(codes, command).toMatch(/^Exit codes: 0 [^,]+, .*2 /);
      expect(codes, command).toContain(EXIT_CODES[command] ?? "");
    }
  });

  it("simulate's help says its events option is required", async () => {
    const r = await cli(["simulate", "--help"], dir);
    expect(r.out).toMatch(/-e, --events <file>\s+events file \(YAML\) — required/);
  });
});

describe("validate --max-warnings", () => {
  it("exits 1 when the warnings are more than allowed, 0 when they are not", async () => {
    write("playbooks/warns.yaml", WARNS);
    const over = await cli(["validate", "--max-warnings", "0"], dir);
    expect(over.code).toBe(1);
    expect(over.out).toContain("warning: ");
    expect(over.err).toBe("playbook-bot: 1 warning, more than --max-warnings 0 allows\n");
    expect((await cli(["validate", "--max-warnings", "1"], dir)).code).toBe(0);
    expect((await cli(["validate"], dir)).code).toBe(0);
  });

  it("counts the warnings --quiet hides, and says so", async () => {
    write("playbooks/warns.yaml", WARNS);
    write("playbooks/warns-too.yaml", WARNS.replace("id: warns", "id: warns-too"));
    const r = await cli(["validate", "--quiet", "--max-warnings", "1"], dir);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toBe(
      "playbook-bot: 2 warnings (not shown: --quiet), more than --max-warnings 1 allows\n",
    );
  });

  it("takes a whole number only", async () => {
    write("playbooks/warns.yaml", WARNS);
    for (const bad of ["-1", "x", "1.5"]) {
      const r = await cli(["validate", `--max-warnings=${bad}`], dir);
      expect(r.code).toBe(2);
      expect(r.err).toContain(`--max-warnings ${bad}: give a whole number from 0`);
    }
  });
});

describe("validate --output-file", () => {
  it("writes the report, in any format, to the file and not to standard output", async () => {
    write("playbooks/broken.yaml", BROKEN);
    const text = await cli(["validate", "-o", "out/deep/report.txt"], dir);
    expect(text.code).toBe(1);
    expect(text.out).toBe("");
    const written = readFileSync(join(dir, "out/deep/report.txt"), "utf8");
    expect(written).toContain("playbooks/broken.yaml:5:11:");
    expect(written).not.toMatch(ANSI);
    const sarif = await cli(["validate", "-f", "sarif", "--output-file", "report.sarif"], dir);
    expect(sarif.out).toBe("");
    const log = JSON.parse(readFileSync(join(dir, "report.sarif"), "utf8")) as { version: string };
    expect(log.version).toBe("2.1.0");
  });

  it("colours the file only when told to", async () => {
    write("playbooks/broken.yaml", BROKEN);
    await cli(["validate", "-o", "plain.txt"], dir, { env: { FORCE_COLOR: "0" } });
    await cli(["--color", "validate", "-o", "colour.txt"], dir);
    const plain = readFileSync(join(dir, "plain.txt"), "utf8");
    const colour = readFileSync(join(dir, "colour.txt"), "utf8");
    expect(plain).not.toMatch(ANSI);
    expect(colour).toMatch(ANSI);
    expect(stripAnsi(colour)).toBe(plain);
  });

  it("exits 2 when the file cannot be written", async () => {
    write("playbooks/warns.yaml", WARNS);
    mkdirSync(join(dir, "taken"));
    const r = await cli(["validate", "-o", "taken"], dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`playbook-bot: cannot write the report to ${join(dir, "taken")}:`);
  });
});

describe("validate from standard input", () => {
  it("validates what - reads, named <stdin>", async () => {
    const r = await cli(["validate", "-"], dir, stdin(BROKEN));
    expect(r.code).toBe(1);
    expect(r.out).toContain("<stdin>:5:11: steps[0].type: unknown step kind 'comit'");
    const ok = await cli(["validate", "--stdin"], dir, stdin(VALID));
    expect(ok).toMatchObject({ code: 0, out: "1 playbook valid\n" });
  });

  it("names it as --stdin-filename says and finds the playbooks beside that file", async () => {
    write(".github/playbooks/hello.yaml", VALID);
    const file = join(".github", "playbooks", "hands-off.yaml");
    write(file, "on disk: this copy is not read\n");
    const r = await cli(
      ["validate", "--stdin", "--stdin-filename", file, "--no-library", "-f", "json"],
      dir,
      stdin(HANDS_OFF.replace("description: Finish.", "")),
    );
    const report = JSON.parse(r.out) as {
      files: { file: string; diagnostics: { rule: string }[] }[];
    };
    expect(report.files.map((f) => f.file)).toEqual([file]);
    // `hello` resolves beside it; the only finding is the step without a description.
    expect(report.files[0]?.diagnostics.map((d) => d.rule)).toEqual(["step-no-description"]);
    const alone = await cli(["validate", "-", "--no-library"], dir, stdin(HANDS_OFF));
    expect(alone.code).toBe(1);
    expect(alone.out).toContain("'hello'");
  });

  it("reads the files a playbook names relative to the path it stands for", async () => {
    write("pb/templates/body.md", "hi\n");
    const withTemplate = `apiVersion: playbook-bot/v1
id: tpl
description: Commits a template.
steps:
  - id: commit
    type: commit
    description: Commit.
    branch: main
    message: add
    files: [{ path: a.md, template: templates/body.md }]
`;
    const there = await cli(
      ["validate", "-", "--stdin-filename", "pb/tpl.yaml"],
      dir,
      stdin(withTemplate),
    );
    expect(there).toMatchObject({ code: 0, out: "1 playbook valid\n" });
    const elsewhere = await cli(["validate", "-"], dir, stdin(withTemplate));
    expect(elsewhere.out).toContain("<stdin>:10:37:");
    expect(elsewhere.out).toContain("[file-missing]");
  });

  it("refuses a playbook too big to read, as it refuses a file", async () => {
    const big = Buffer.alloc(2 * 1024 * 1024, "#");
    const r = await cli(["validate", "-"], dir, stdin(big));
    expect(r.code).toBe(1);
    expect(r.out).toContain("more than the 1.0 MiB a playbook may be");
  });

  it("exits 2 for standard input with files, or --stdin-filename without it", async () => {
    write("playbooks/hello.yaml", VALID);
    const both = await cli(["validate", "-", "playbooks"], dir, stdin(VALID));
    expect(both.code).toBe(2);
    expect(both.err).toBe("playbook-bot: validate reads standard input or files, not both\n");
    const name = await cli(["validate", "--stdin-filename", "x.yaml"], dir);
    expect(name.code).toBe(2);
    expect(name.err).toContain("--stdin-filename names what standard input holds");
  });

  it("reads the process's standard input in the built command", () => {
    const r = spawnSync(process.execPath, [BIN, "validate", "-"], {
      cwd: dir,
      input: BROKEN,
      encoding: "utf8",
      env: plainEnv(),
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("<stdin>:5:11:");
  });
});

describe("playbook-bot list", () => {
  it("lists the repository's playbooks, then the bundled library, with tier and status", async () => {
    write(".github/playbooks/hello.yaml", VALID);
    write(".github/playbooks/warns.yaml", WARNS);
    write(".github/playbooks/broken.yaml", BROKEN);
    write(
      ".github/playbooks/hello-world.yaml",
      VALID.replace("id: hello", "id: hello-world").replace("name: Say hello", "name: Mine"),
    );
    const r = await cli(["list", "--format", "json"], dir);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.out) as {
      id: string;
      name: string | null;
      tier: string;
      file: string;
      status: string;
      replacedBy: string | null;
    }[];
    const own = rows.filter((x) => x.tier === "repository");
    expect(own.map((x) => [x.id, x.status])).toEqual([
      ["broken", "1 error"],
      ["hello-world", "valid"],
      ["hello", "valid"],
      ["warns", "1 warning"],
    ]);
    expect(own.find((x) => x.id === "hello")).toMatchObject({
      name: "Say hello",
      file: join(".github", "playbooks", "hello.yaml"),
    });
    const library = rows.filter((x) => x.tier === "library");
    expect(library.length).toBeGreaterThan(5);
    expect(library.find((x) => x.id === "hello-world")).toMatchObject({
      status: "valid, replaced",
      replacedBy: join(".github", "playbooks", "hello-world.yaml"),
    });
    expect(library.find((x) => x.id === "alert-triage")?.file).toBe(
      join(bundledLibraryDir(), "alert-triage.yaml"),
    );
  });

  it("prints a table with aligned columns", async () => {
    write(".github/playbooks/hello.yaml", VALID);
    write(".github/playbooks/broken.yaml", BROKEN);
    const r = await cli(["list", "--no-library"], dir);
    expect(r.out.split("\n")).toEqual([
      "ID      NAME       TIER        STATUS   FILE",
      `broken  -          repository  1 error  ${join(".github", "playbooks", "broken.yaml")}`,
      `hello   Say hello  repository  valid    ${join(".github", "playbooks", "hello.yaml")}`,
      "",
    ]);
  });

  it("marks files named outside the repository's folder, disabled ids, and a locked system playbook", async () => {
    write("elsewhere/off.yaml", `${VALID.replace("id: hello", "id: off")}active: false\n`);
    write(
      "elsewhere/triage.yaml",
      VALID.replace("id: hello", "id: alert-triage").replace("name: Say hello", "name: Mine"),
    );
    const rows = JSON.parse((await cli(["list", "elsewhere", "-f", "json"], dir)).out) as {
      id: string;
      tier: string;
      status: string;
      active: boolean;
    }[];
    expect(rows.find((x) => x.id === "off")).toMatchObject({
      tier: "named",
      status: "valid, disabled",
      active: false,
    });
    const triage = rows.filter((x) => x.id === "alert-triage");
    expect(triage.map((x) => [x.tier, x.status])).toEqual([
      ["named", "1 error"],
      ["library", "valid"],
    ]);
  });

  it("says when there is nothing, and exits 2 for a path that does not exist", async () => {
    expect(await cli(["list", "--no-library"], dir)).toEqual({
      code: 0,
      out: "no playbooks found\n",
      err: "",
    });
    mkdirSync(join(dir, "playbooks"));
    expect((await cli(["list", "--no-library", "-f", "json"], dir)).out).toBe("[]\n");
    const missing = await cli(["list", "nowhere"], dir);
    expect(missing.code).toBe(2);
    expect(missing.err).toBe("playbook-bot: nowhere: no such file or folder\n");
  });

  it("keeps a hostile name on one inert line, cut to fit", async () => {
    write(
      "playbooks/h.yaml",
      VALID.replace(
        "name: Say hello",
        `name: ${JSON.stringify(`${HOSTILE.v1} ${HOSTILE.warning} \u001b[31m ${"x".repeat(60)}`)}`,
      ),
    );
    const r = await cli(["list", "--no-library"], dir);
    expect(r.out.split("\n")).toHaveLength(3);
    expect(r.out).not.toContain("\u001b");
    expect(workflowCommands(r.out)).toEqual([]);
    expect(r.out).toContain("…");
  });

  it("colours the status by what it says", async () => {
    write("playbooks/hello.yaml", VALID);
    write("playbooks/broken.yaml", BROKEN);
    write("playbooks/warns.yaml", WARNS);
    const r = await cli(["list", "--no-library", "--color"], dir);
    expect(r.out).toContain("\u001b[31m1 error");
    expect(r.out).toContain("\u001b[32mvalid ");
    expect(r.out).toContain("\u001b[33m1 warning");
    expect(stripAnsi(r.out)).toBe((await cli(["list", "--no-library"], dir)).out);
    write(".github/playbooks/hello-world.yaml", VALID.replace("id: hello", "id: hello-world"));
    rmSync(join(dir, "playbooks"), { recursive: true });
    expect((await cli(["list", "--color"], dir)).out).toContain("\u001b[2mvalid, replaced");
  });
});

describe("colour", () => {
  it("styles text only when on, and never an empty string", () => {
    expect(colours(true).red("x")).toBe(`${ESC}[31mx${ESC}[39m`);
    expect(colours(true).red("")).toBe("");
    expect(colours(false).red("x")).toBe("x");
  });

  it("is decided by the flag, then FORCE_COLOR, then NO_COLOR, then the terminal", () => {
    const cases: [boolean, Record<string, string>, boolean | undefined, boolean][] = [
      [true, {}, undefined, true],
      [false, {}, undefined, false],
      [true, { NO_COLOR: "1" }, undefined, false],
      [true, { NO_COLOR: "" }, undefined, true],
      [true, { TERM: "dumb" }, undefined, false],
      [false, { FORCE_COLOR: "1" }, undefined, true],
      [false, { FORCE_COLOR: "3", NO_COLOR: "1" }, undefined, true],
      [true, { FORCE_COLOR: "0" }, undefined, false],
      [true, { FORCE_COLOR: "false" }, undefined, false],
      [false, { FORCE_COLOR: "" }, undefined, false],
      [false, { NO_COLOR: "1" }, true, true],
      [true, { FORCE_COLOR: "1" }, false, false],
    ];
    for (const [terminal, env, flag, want] of cases)
      expect([terminal, env, flag, colourWanted(terminal, env, flag)]).toEqual([
        terminal,
        env,
        flag,
        want,
      ]);
  });

  it("colours a report on a terminal, and the same text without colour elsewhere", async () => {
    write("playbooks/warns.yaml", WARNS);
    write("playbooks/broken.yaml", BROKEN);
    const tty = { terminal: { out: true, err: true } };
    const coloured = await cli(["validate"], dir, { ...tty, env: {} });
    expect(coloured.out).toMatch(ANSI);
    expect(coloured.out).toContain("\u001b[1m\u001b[33mwarning:\u001b[39m\u001b[22m");
    const plain = await cli(["validate"], dir);
    expect(plain.out).not.toMatch(ANSI);
    expect(stripAnsi(coloured.out)).toBe(plain.out);
    expect((await cli(["validate"], dir, { ...tty, env: { NO_COLOR: "1" } })).out).toBe(plain.out);
    expect((await cli(["validate", "--no-color"], dir, { ...tty, env: {} })).out).toBe(plain.out);
    expect((await cli(["validate", "-f", "json"], dir, { ...tty, env: {} })).out).not.toMatch(ANSI);
  });

  it("makes a hostile file's text inert whether coloured or not", async () => {
    const q = (v: string) => JSON.stringify(v);
    const file = "::add-mask::secret,x.yaml";
    write(
      file,
      `apiVersion: playbook-bot/v1
id: hostile
steps:
  - id: first
    type: ${q(`comit${HOSTILE.warning}`)}
  - id: second
    type: comment
    body: hi
    next: ${q(`nowhere${HOSTILE.cr}`)}
  - id: ${q(`${HOSTILE.mask} ${HOSTILE.v1}`)}
    type: comment
    body: ${q(HOSTILE.escaped)}
`,
    );
    const plain = await cli(["validate", file], dir);
    const coloured = await cli(["--color", "validate", file], dir);
    expect(plain.out).toContain("\\::add-mask::secret,x.yaml:");
    expect(plain.code).toBe(1);
    expect(workflowCommands(plain.out)).toEqual([]);
    expect(stripAnsi(coloured.out)).toBe(plain.out);
  });

  it("colours the report on standard error by that stream's terminal", async () => {
    write("bad.yaml", BROKEN);
    const errTty = await cli(["graph", "bad.yaml"], dir, { terminal: { out: false, err: true } });
    expect(errTty.err).toMatch(ANSI);
    const outTty = await cli(["graph", "bad.yaml"], dir, { terminal: { out: true, err: false } });
    expect(outTty.err).not.toMatch(ANSI);
  });

  it("marks passed and failed golden cases in colour", async () => {
    const r = await cli(["--color", "test", join(root, "playbooks", "hello-world.yaml")], root);
    expect(r.code).toBe(0);
    expect(r.out).toContain("\u001b[32m✔\u001b[39m hello-world:");
  });
});

/** The environment without anything that decides colour. */
function plainEnv(more: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...more };
  if (!("NO_COLOR" in more)) delete env.NO_COLOR;
  if (!("FORCE_COLOR" in more)) delete env.FORCE_COLOR;
  delete env.NODE_DISABLE_COLORS;
  env.TERM = more.TERM ?? "xterm";
  return env;
}

describe("colour in the built command", () => {
  const hasScript = spawnSync("script", ["--version"]).status === 0;

  /** The command on a pseudo-terminal (util-linux `script`), as a person at a terminal runs it. */
  function onTerminal(args: string[], env: NodeJS.ProcessEnv) {
    const line = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(" ");
    return spawnSync("script", ["-qec", line, "/dev/null"], { cwd: dir, env, encoding: "utf8" });
  }

  it("colours nothing through a pipe, unless FORCE_COLOR or --color says so", () => {
    write("bad.yaml", BROKEN);
    const run = (args: string[], env: NodeJS.ProcessEnv) =>
      spawnSync(process.execPath, [BIN, ...args], { cwd: dir, env, encoding: "utf8" });
    expect(run(["validate", "bad.yaml"], plainEnv()).stdout).not.toMatch(ANSI);
    expect(run(["validate", "bad.yaml"], plainEnv({ FORCE_COLOR: "1" })).stdout).toMatch(ANSI);
    expect(run(["validate", "bad.yaml", "--color"], plainEnv()).stdout).toMatch(ANSI);
    expect(
      run(["validate", "bad.yaml", "--no-color"], plainEnv({ FORCE_COLOR: "1" })).stdout,
    ).not.toMatch(ANSI);
  });

  it.runIf(hasScript)("colours a terminal unless NO_COLOR is set and not empty", () => {
    write("bad.yaml", BROKEN);
    const tty = onTerminal(["validate", "bad.yaml"], plainEnv());
    expect(tty.status).toBe(1);
    expect(tty.stdout).toMatch(ANSI);
    expect(onTerminal(["validate", "bad.yaml"], plainEnv({ NO_COLOR: "1" })).stdout).not.toMatch(
      ANSI,
    );
    expect(onTerminal(["validate", "bad.yaml"], plainEnv({ NO_COLOR: "" })).stdout).toMatch(ANSI);
    expect(onTerminal(["validate", "bad.yaml"], plainEnv({ TERM: "dumb" })).stdout).not.toMatch(
      ANSI,
    );
  });
});

describe("graph --current", () => {
  it("refuses a step the playbook does not have, with the nearest ids", async () => {
    write("hello.yaml", VALID);
    const r = await cli(["graph", "hello.yaml", "--current", "gret"], dir);
    expect(r).toEqual({
      code: 1,
      out: "",
      err: "playbook-bot: hello.yaml has no step 'gret' — did you mean 'greet'? (its steps: greet, done)\n",
    });
    const far = await cli(["graph", "hello.yaml", "--current", "somewhere-else"], dir);
    expect(far.code).toBe(1);
    expect(far.err).toBe(
      "playbook-bot: hello.yaml has no step 'somewhere-else' (its steps: greet, done)\n",
    );
    const ok = await cli(["graph", "hello.yaml", "--current", "greet"], dir);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain("  class s_greet current\n");
  });

  it("names up to three near ids, nearest first, and lists at most twenty steps", () => {
    const steps = [
      "step-1",
      "step-2",
      "step-3",
      "step-4",
      ...Array.from({ length: 20 }, (_, i) => `s${i}`),
    ];
    const message = unknownStep("f.yaml", "step-", steps);
    expect(message).toContain("did you mean one of 'step-1', 'step-2', 'step-3'?");
    expect(message).toMatch(/\(its steps: step-1, step-2, step-3, step-4, s0, .*, s15, …\)$/);
    expect(unknownStep("f.yaml", "bad\nline", ["a"])).not.toContain("\n");
  });
});
