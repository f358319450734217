import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pathToFileURL } from "node:url";
import { StreamMessageReader, StreamMessageWriter } from "vscode-languageserver/node";
import { Workspace } from "../../src/entries/lsp/workspace.js";
import { folderFiles } from "../../src/entries/playground/start.js";
import { BIN, cleanup, makeDir } from "../helpers/git-repo.js";
import { ACTION_BUNDLE, pushRunnerEnv, spawned } from "../helpers/spawned.js";
import { workflowCommands } from "../helpers/workflow-commands.js";
import { TestClient } from "./lsp/lsp-client.js";

/**
 * Issue #15: a fork's playbook folder is read as data by every entry that reads it from disk.
 * Links out of the checkout, a link to /dev/zero, a named pipe and an oversized file are each a
 * finding that names the file — the built CLI, the bundled Action as a runner runs it, the
 * language server and the playground finish, and none prints a byte from outside the checkout.
 */

afterEach(cleanup);

/** What a command may take at most here; a hang on /dev/zero or the pipe would exceed it. */
const LIMIT_MS = 20_000;
const SECRET = "s3cret-from-outside";

const PLAYBOOK = `apiVersion: playbook-bot/v1
id: fine
description: A playbook committed as a file.
steps:
  - id: done
    type: end
    description: Nothing to do.
`;

const HOSTILE = ["big.yaml", "out.yaml", "pipe.yaml", "zero.yaml"];

/** A checkout as a fork's pull request could leave it. */
function checkout(): string {
  const base = makeDir("pb-files-");
  const repo = join(base, "repo");
  const dir = join(repo, ".github", "playbooks");
  mkdirSync(dir, { recursive: true });
  mkdirSync(join(base, "outside"));
  writeFileSync(join(base, "outside", "secret.yaml"), `id: ${SECRET}\n`);
  writeFileSync(join(dir, "fine.yaml"), PLAYBOOK);
  writeFileSync(join(dir, "big.yaml"), `# ${"x".repeat(2 * 1024 * 1024)}\n${PLAYBOOK}`);
  symlinkSync(join(base, "outside", "secret.yaml"), join(dir, "out.yaml"));
  symlinkSync("/dev/zero", join(dir, "zero.yaml"));
  execFileSync("mkfifo", [join(dir, "pipe.yaml")]);
  return repo;
}

const run = (args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) =>
  spawned(args, cwd, env, LIMIT_MS);

interface JsonReport {
  files: { file: string; diagnostics: { rule: string; message: string }[] }[];
}

describe("the CLI reads playbook files as data", () => {
  it("validate: one finding per refused file, the rest validated, nothing from outside", async () => {
    const repo = checkout();
    const r = await run([BIN, "validate", "-f", "json"], repo);
    expect(r.code).toBe(1);
    expect(r.ms).toBeLessThan(LIMIT_MS);
    expect(r.out).not.toContain(SECRET);
    const report = JSON.parse(r.out) as JsonReport;
    const rules = Object.fromEntries(
      report.files.map((f) => [f.file.split("/").pop(), f.diagnostics.map((d) => d.rule)]),
    );
    expect(rules).toEqual({
      "big.yaml": ["file-refused"],
      "fine.yaml": [],
      "out.yaml": ["file-refused"],
      "pipe.yaml": ["file-refused"],
      "zero.yaml": ["file-refused"],
    });
    const messages = report.files.flatMap((f) => f.diagnostics.map((d) => d.message));
    expect(messages).toEqual(
      expect.arrayContaining([
        "file is a symbolic link; links are not followed",
        "file is a named pipe (FIFO), not a file",
        expect.stringMatching(/^file is more than the \d+ bytes it may be$/),
      ]),
    );
  }, 30_000);

  it("validate, graph and import name the file given when it is a link or a pipe", async () => {
    const repo = checkout();
    for (const name of ["zero.yaml", "pipe.yaml", "out.yaml"]) {
      const file = `.github/playbooks/${name}`;
      for (const command of [
        ["validate", file],
        ["graph", file],
        ["import", file],
      ]) {
        const r = await run([BIN, ...command], repo);
        expect(r.code, `${command.join(" ")}: ${r.out}`).toBe(1);
        expect(r.out).toContain(name);
        expect(r.out).toContain("file-refused");
        expect(r.out).not.toContain(SECRET);
      }
    }
  }, 60_000);

  it("validate: a config file linked to /dev/zero stops the command with its reason", async () => {
    const repo = checkout();
    symlinkSync("/dev/zero", join(repo, ".playbook-bot.yml"));
    const r = await run([BIN, "validate", ".github/playbooks/fine.yaml"], repo);
    expect(r.ms).toBeLessThan(LIMIT_MS);
    expect(r.code).toBe(2);
    expect(r.out).toContain(
      ".playbook-bot.yml: file is a symbolic link; links are not followed (symlink)",
    );
  }, 30_000);
});

describe("the bundled Action reads playbook files as data", () => {
  it("annotates each refused file and finishes, as a runner runs it", async () => {
    const repo = checkout();
    const r = await run([ACTION_BUNDLE], repo, pushRunnerEnv(repo));
    expect(r.ms).toBeLessThan(LIMIT_MS);
    expect(r.code).toBe(1);
    expect(r.out).not.toContain(SECRET);
    const annotated = workflowCommands(r.out)
      .filter((c) => c.name === "error" && c.properties.file !== undefined)
      .filter(
        (c) => c.data.includes("file-refused") || c.properties.title?.includes("file-refused"),
      )
      .map((c) => (c.properties.file ?? "").split("/").pop());
    expect(annotated.sort()).toEqual(HOSTILE);
  }, 30_000);
});

describe("the language server reads playbook files as data", () => {
  it("reports each refused file of the repository's set and validates the rest", async () => {
    const repo = checkout();
    const ws = new Workspace([repo], () => undefined);
    const set = ws.setOf(join(repo, ".github/playbooks/fine.yaml"));
    expect(set?.kind).toBe("repository");
    const started = Date.now();
    const result = await ws.validate(set!);
    expect(Date.now() - started).toBeLessThan(LIMIT_MS);
    const rules = new Map(
      result.files.map((f) => [
        relative(join(repo, ".github/playbooks"), f),
        (result.diagnostics.get(f) ?? []).map((d) => d.rule),
      ]),
    );
    expect(Object.fromEntries(rules)).toEqual({
      "big.yaml": ["file-refused"],
      "fine.yaml": [],
      "out.yaml": ["file-refused"],
      "pipe.yaml": ["file-refused"],
      "zero.yaml": ["file-refused"],
    });
  }, 30_000);
});

describe("the language server's folder sets", () => {
  it("keep a refused YAML file beside a playbook outside the playbook folders, with its finding", async () => {
    const repo = checkout();
    const docs = join(repo, "docs");
    mkdirSync(docs);
    writeFileSync(join(docs, "flow.yaml"), PLAYBOOK);
    symlinkSync("/dev/zero", join(docs, "zero.yaml"));
    execFileSync("mkfifo", [join(docs, "pipe.yml")]);
    const ws = new Workspace([repo], () => undefined);
    const set = ws.setOf(join(docs, "flow.yaml"));
    expect(set?.kind).toBe("folder");
    const result = await ws.validate(set!);
    expect(result.files.map((f) => relative(docs, f))).toEqual([
      "flow.yaml",
      "pipe.yml",
      "zero.yaml",
    ]);
    expect(result.diagnostics.get(join(docs, "zero.yaml"))?.map((d) => d.rule)).toEqual([
      "file-refused",
    ]);
    expect(result.diagnostics.get(join(docs, "pipe.yml"))?.map((d) => d.rule)).toEqual([
      "file-refused",
    ]);
  });
});

/** The built CLI's language server over stdio in `repo`, as an editor starts it. */
function startLanguageServer(repo: string): { proc: ChildProcess; client: TestClient } {
  const proc = spawn(process.execPath, [BIN, "lsp", "--stdio"], {
    cwd: repo,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const client = new TestClient(
    new StreamMessageReader(proc.stdout!),
    new StreamMessageWriter(proc.stdin!),
  );
  return { proc, client };
}

/** The editor's first two messages, with the workspace at `repo`. */
async function initialize(client: TestClient, repo: string): Promise<void> {
  await client.connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri: pathToFileURL(repo).href,
    capabilities: {},
    initializationOptions: { debounceMs: 20 },
  });
  await client.connection.sendNotification("initialized", {});
}

/**
 * Ends the language server as an editor does (`shutdown`, then `exit`) and waits for it to go, so
 * no answer of the client is written to a pipe already closed; killed if it does not go.
 */
async function closeServer(client: TestClient, proc: ChildProcess): Promise<void> {
  const gone = new Promise<void>((done) =>
    proc.exitCode !== null || proc.signalCode !== null ? done() : proc.once("exit", () => done()),
  );
  const timer = setTimeout(() => proc.kill(), 5_000);
  try {
    await client.connection.sendRequest("shutdown");
    await client.connection.sendNotification("exit");
  } catch {
    proc.kill();
  }
  await gone;
  clearTimeout(timer);
  client.connection.dispose();
}

describe("the language server over stdio, as an editor starts it", () => {
  it("publishes file-refused on each refused file of the set and stays up", async () => {
    const repo = checkout();
    const { proc, client } = startLanguageServer(repo);
    try {
      await initialize(client, repo);
      const dir = join(repo, ".github/playbooks");
      client.open(pathToFileURL(join(dir, "fine.yaml")).href, PLAYBOOK);
      for (const name of HOSTILE) {
        const found = await client.diagnosticsFor(pathToFileURL(join(dir, name)).href, (d) =>
          d.some((x) => x.code === "file-refused"),
        );
        expect(found.map((d) => d.code)).toEqual(["file-refused"]);
      }
      expect(proc.exitCode).toBeNull();
      expect(JSON.stringify([...client.diagnostics.values()])).not.toContain(SECRET);
    } finally {
      await closeServer(client, proc);
    }
  }, 30_000);
});

describe("the playground reads a folder as data", () => {
  it("takes the regular files and names each refused one with its rule", async () => {
    const repo = checkout();
    const started = Date.now();
    const { files, refused } = await folderFiles(join(repo, ".github/playbooks"));
    expect(Date.now() - started).toBeLessThan(LIMIT_MS);
    expect(Object.keys(files)).toEqual([".github/playbooks/fine.yaml"]);
    expect(Object.values(files).join("")).not.toContain(SECRET);
    expect(refused.map((r) => [r.file, r.rule])).toEqual([
      ["big.yaml", "too-large"],
      ["out.yaml", "symlink"],
      ["pipe.yaml", "not-regular"],
      ["zero.yaml", "symlink"],
    ]);
  });
});

describe("validation agrees with the run about the files a playbook names", () => {
  const TEMPLATED = (template: string) => `apiVersion: playbook-bot/v1
id: tpl
description: Commits a template.
steps:
  - id: c
    type: commit
    description: Commit.
    branch: work
    message: m
    files: [{ path: a.md, template: ${template} }]
  - id: done
    type: end
    description: Done.
`;

  it("a template out of the checkout, or a link, is missing to validate and the language server, as to a run", async () => {
    const repo = checkout();
    const dir = join(repo, ".github", "playbooks");
    rmSync(join(dir, "pipe.yaml"));
    for (const h of ["big.yaml", "out.yaml", "zero.yaml"]) rmSync(join(dir, h));
    writeFileSync(join(dir, "up.yaml"), TEMPLATED("../../../outside/secret.yaml"));
    mkdirSync(join(dir, "templates"));
    symlinkSync(join(repo, "..", "outside", "secret.yaml"), join(dir, "templates", "linked.md"));
    writeFileSync(
      join(dir, "linked.yaml"),
      TEMPLATED("templates/linked.md").replace("id: tpl", "id: tpl2"),
    );
    const r = await run([BIN, "validate", "-f", "json"], repo);
    const report = JSON.parse(r.out) as JsonReport;
    const rules = Object.fromEntries(
      report.files.map((f) => [f.file.split("/").pop(), f.diagnostics.map((d) => d.rule)]),
    );
    expect(rules).toEqual({
      "fine.yaml": [],
      "linked.yaml": ["file-missing"],
      "up.yaml": ["file-missing"],
    });
    expect(r.out).not.toContain(SECRET);
    const ws = new Workspace([repo], () => undefined);
    const result = await ws.validate(ws.setOf(join(dir, "up.yaml"))!);
    for (const name of ["up.yaml", "linked.yaml"])
      expect(result.diagnostics.get(join(dir, name))?.map((d) => d.rule)).toEqual(["file-missing"]);
  }, 30_000);
});

describe("the language server over stdio, with the playbook folder's parent a link out", () => {
  it("reads nothing through `.github` linked out of the workspace, and stays up", async () => {
    const base = makeDir("pb-files-");
    const repo = join(base, "repo");
    mkdirSync(join(repo, "playbooks"), { recursive: true });
    mkdirSync(join(base, "outside", "playbooks"), { recursive: true });
    // A sibling the set around an opened file would read from disk.
    writeFileSync(
      join(base, "outside", "playbooks", "other.yaml"),
      `${PLAYBOOK.replace("id: fine", "id: other")}    nope: ${SECRET}\n`,
    );
    symlinkSync(join(base, "outside"), join(repo, ".github"));
    writeFileSync(join(repo, "playbooks", "fine.yaml"), PLAYBOOK);
    const { proc, client } = startLanguageServer(repo);
    try {
      await initialize(client, repo);
      // An editor opening the repository's playbook: the set around it is read from disk.
      const fine = pathToFileURL(join(repo, "playbooks", "fine.yaml")).href;
      client.open(fine, PLAYBOOK);
      expect(await client.diagnosticsFor(fine, () => true)).toEqual([]);
      // A file opened through the link: the siblings around it are not read through the link.
      const linked = pathToFileURL(join(repo, ".github", "playbooks", "leak.yaml")).href;
      client.open(linked, PLAYBOOK.replace("id: fine", "id: leak"));
      const other = pathToFileURL(join(repo, ".github", "playbooks", "other.yaml")).href;
      const refused = await client.diagnosticsFor(other, (d) => d.length > 0);
      expect(refused.map((d) => [d.code, d.message])).toEqual([
        ["file-refused", "file resolves outside the folder it was read from"],
      ]);
      expect(proc.exitCode).toBeNull();
      expect(JSON.stringify([...client.diagnostics.values()])).not.toContain(SECRET);
    } finally {
      await closeServer(client, proc);
    }
  }, 30_000);
});

describe("a socket where a playbook should be", () => {
  it("validate names it and finishes, without connecting or blocking", async () => {
    const { createServer } = await import("node:net");
    const repo = checkout();
    const dir = join(repo, ".github", "playbooks");
    for (const h of HOSTILE) rmSync(join(dir, h));
    const server = createServer((s) => s.end(`id: ${SECRET}\n`));
    await new Promise<void>((done) => server.listen(join(dir, "sock.yaml"), done));
    try {
      const r = await run([BIN, "validate", "-f", "json"], repo);
      expect(r.ms).toBeLessThan(LIMIT_MS);
      const report = JSON.parse(r.out) as JsonReport;
      const found = report.files.map((f) => [
        f.file.split("/").pop(),
        f.diagnostics.map((d) => d.message),
      ]);
      expect(found).toEqual([
        ["fine.yaml", []],
        ["sock.yaml", ["file is a socket, not a file"]],
      ]);
      expect(r.out).not.toContain(SECRET);
    } finally {
      await new Promise((done) => server.close(done));
    }
  }, 30_000);
});
