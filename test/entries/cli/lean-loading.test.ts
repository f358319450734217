import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type BuildOptions, type Metafile } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The built command, as people run it, with a loader hook that records every package it imports:
// a command loads what it uses, when it uses it.
const root = join(import.meta.dirname, "..", "..", "..");
const BIN = join(root, "bin", "playbook-bot.js");

const HEAVY = [
  "probot",
  "@octokit/",
  "openai",
  "@modelcontextprotocol/sdk",
  "ioredis",
  "vscode-languageserver",
  "prom-client",
  "bottleneck",
  "mdast-util-from-markdown",
  // The playground's editor is a browser bundle the playground serves; esbuild builds it.
  "@codemirror/",
  "@lezer/",
  "esbuild",
];

let dir: string;
let register: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "pb-lean-"));
  const hooks = join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    `import { isBuiltin } from "node:module";
export async function resolve(specifier, context, next) {
  if (/^[@a-z]/i.test(specifier) && !isBuiltin(specifier) && !specifier.startsWith("file:"))
    process.stderr.write("LOADED " + specifier + "\\n");
  return next(specifier, context);
}\n`,
  );
  register = join(dir, "register.mjs");
  // The hooks see imports; require() (a bundled CommonJS module's, through createRequire) is
  // seen where Node loads it.
  writeFileSync(
    register,
    `import Module, { isBuiltin, register } from "node:module";
register(${JSON.stringify(pathToFileURL(hooks).href)});
const load = Module._load;
Module._load = function (request, ...rest) {
  if (/^[@a-z]/i.test(request) && !isBuiltin(request)) process.stderr.write("LOADED " + request + "\\n");
  return load.call(this, request, ...rest);
};\n`,
  );
  writeFileSync(
    join(dir, "one.yaml"),
    "apiVersion: playbook-bot/v1\nid: one\nname: One\non:\n  labels: [one]\nsteps:\n  - id: done\n    type: end\n    status: success\n",
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The packages the built command imports for these arguments. */
function packagesLoaded(args: string[]): { status: number | null; loaded: string[] } {
  const r = spawnSync(process.execPath, ["--import", register, BIN, ...args], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const loaded = r.stderr
    .split("\n")
    .filter((l) => l.startsWith("LOADED "))
    .map((l) => l.slice("LOADED ".length));
  return { status: r.status, loaded };
}

const heavyAmong = (loaded: string[]) =>
  [...new Set(loaded.filter((p) => HEAVY.some((h) => p === h || p.startsWith(h))))].sort();

describe("what a command loads", () => {
  it("--version and --help load no package from node_modules (the bundle holds the parser)", () => {
    for (const flag of ["--version", "--help"]) {
      const r = packagesLoaded([flag]);
      expect(r.status, flag).toBe(0);
      expect(r.loaded, flag).toEqual([]);
    }
  });

  it("validate loads nothing of the app, AI, tools, Redis or the language server", () => {
    const r = packagesLoaded(["validate", "one.yaml"]);
    expect(r.status).toBe(0);
    expect(heavyAmong(r.loaded)).toEqual([]);
    expect(r.loaded).toEqual([]);
  });

  it("a command that runs playbooks does load the runtime (the hook sees it)", () => {
    const r = packagesLoaded(["run", "one", "--dry-run", "--scratch"]);
    expect(heavyAmong(r.loaded).length).toBeGreaterThan(0);
  });
});

/**
 * The bundle's modules a command loads as it starts: the entry's chunk and the command's, and the
 * chunks they import (not those imported on demand, such as SARIF's), from the build's metafile.
 */
async function modulesOfCommand(command: string): Promise<Map<string, string>> {
  const script = pathToFileURL(join(root, "scripts", "build-cli.mjs")).href;
  const { CLI_BUILD_OPTIONS } = (await import(script)) as { CLI_BUILD_OPTIONS: BuildOptions };
  const out = join(dir, "bundle");
  const { metafile } = await build({
    ...CLI_BUILD_OPTIONS,
    absWorkingDir: root,
    outdir: out,
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const outputs = (metafile as Metafile).outputs;
  const entry = `src/entries/cli/commands/${command}.ts`;
  const starts = Object.keys(outputs).filter(
    (o) => outputs[o]?.entryPoint === entry || outputs[o]?.entryPoint === "src/entries/cli/main.ts",
  );
  const loaded = new Set<string>();
  const queue = [...starts];
  while (queue.length > 0) {
    const o = queue.pop() as string;
    if (loaded.has(o)) continue;
    loaded.add(o);
    for (const i of outputs[o]?.imports ?? [])
      if (i.kind === "import-statement" && outputs[i.path]) queue.push(i.path);
  }
  // Each input module, with the module that imports it on the shortest path from the command.
  const inputs = new Set([...loaded].flatMap((o) => Object.keys(outputs[o]?.inputs ?? {})));
  const importer = new Map<string, string>([[entry, ""]]);
  const walk = [entry];
  while (walk.length > 0) {
    const m = walk.shift() as string;
    for (const i of metafile?.inputs[m]?.imports ?? [])
      if (inputs.has(i.path) && !importer.has(i.path)) {
        importer.set(i.path, m);
        walk.push(i.path);
      }
  }
  return importer;
}

describe("what the validate command's bundle holds", () => {
  it("no executor, no Markdown, no engine and no SARIF help: only what checks a playbook", async () => {
    const modules = [...(await modulesOfCommand("validate")).keys()];
    expect(modules.length).toBeGreaterThan(50);
    const unwanted = [
      /^src\/core\/steps\/[^/]+\/executor\.ts$/,
      /^src\/core\/steps\/executors\.ts$/,
      /^src\/core\/engine\/engine\.ts$/,
      /^src\/core\/markdown\//,
      /^src\/core\/rules\/docs\.ts$/,
      /node_modules\/(mdast-|micromark|character-entities)/,
    ];
    expect(modules.filter((m) => unwanted.some((u) => u.test(m)))).toEqual([]);
  });

  it("re2js only for the patterns the rules check (regex-invalid, response schemas)", async () => {
    const importer = await modulesOfCommand("validate");
    const re2js = [...importer.keys()].filter((m) => m.includes("node_modules/re2js/"));
    // Input patterns, signal patterns and a response schema's `pattern` must compile on the
    // engine they run on: checking them takes re2js itself, through the one module that wraps it.
    expect(re2js.length).toBeGreaterThan(0);
    expect(
      re2js.map((m) => importer.get(m)).filter((m) => m?.includes("node_modules/re2js/") === false),
    ).toEqual(["src/core/util/regex.ts"]);
  });
});
