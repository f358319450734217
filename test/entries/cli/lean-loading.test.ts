import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
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
  writeFileSync(
    register,
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
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
