/**
 * The package as a user gets it: `npm pack` of a copy of this checkout (so the build it runs never
 * touches this checkout's dist/), the tarball installed into a fresh project, then the installed
 * CLI and library used from there.
 *
 * The install needs no network. A fresh install would resolve every dependency's version range
 * against the registry, and the local npm cache holds the dependencies' tarballs but not always their
 * registry metadata; so the fresh project gets a lockfile made from this repository's
 * package-lock.json (its production entries, with their registry addresses), and `npm ci --offline`
 * takes each tarball from the cache by its integrity hash. `npm ci` in this checkout (CI's first
 * step) puts exactly these tarballs in the cache.
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from "node:child_process";
import {
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

interface PackageJson {
  name: string;
  version: string;
  license?: string;
  main?: string;
  types?: string;
  bin?: Record<string, string>;
  exports?: Record<string, string | Record<string, string>>;
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  overrides?: Record<string, unknown>;
}

interface LockEntry {
  name?: string;
  version?: string;
  resolved?: string;
  dev?: boolean;
  [key: string]: unknown;
}

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string; size: number }[];
}

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as PackageJson;

/** Folders of the checkout that are not its sources: never copied. */
const NOT_SOURCES = new Set([".git", "node_modules", "coverage", "reports", ".playbook-runs"]);

/** npm's settings from the environment that would change what `pack` or `ci` do, when vitest runs under `npm test`. */
const NPM_SETTINGS_DROPPED =
  /^npm_config_(dry_run|global|prefix|local_prefix|ignore_scripts|omit|include|production|workspaces?|pack_destination|json|foreground_scripts)$/i;

function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) && !/^npm_config_/i.test(key)) continue;
    if (NPM_SETTINGS_DROPPED.test(key)) continue;
    env[key] = value;
  }
  return { ...env, npm_config_audit: "false", npm_config_fund: "false", ...extra };
}

function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? filesUnder(join(dir, e.name), base)
      : [relative(base, join(dir, e.name)).split(sep).join("/")],
  );
}

/**
 * A lockfile for a project whose one dependency is the tarball: the tarball's own entry, then every
 * production entry of this repository's lockfile at the same place, with the registry address npm
 * leaves out of it (`omit-lockfile-registry-resolved`).
 */
function consumerLock(spec: string): object {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
    packages: Record<string, LockEntry>;
  };
  const packages: Record<string, unknown> = {
    "": { name: "consumer", version: "1.0.0", dependencies: { [pkg.name]: spec } },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version,
      resolved: spec,
      license: pkg.license,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key === "" || entry.dev) continue;
    const name = entry.name ?? key.slice(key.lastIndexOf("node_modules/") + "node_modules/".length);
    const base = name.split("/").pop() ?? name;
    const resolved = `https://registry.npmjs.org/${name}/-/${base}-${String(entry.version)}.tgz`;
    packages[key] = { resolved, ...entry };
  }
  return { name: "consumer", version: "1.0.0", lockfileVersion: 3, requires: true, packages };
}

let tmp: string;
let consumer: string;
let packed: PackResult;
let paths: Set<string>;

function run(command: string, args: string[], extraEnv: Record<string, string> = {}) {
  const result: SpawnSyncReturns<string> = spawnSync(command, args, {
    cwd: consumer,
    env: childEnv({ npm_config_offline: "true", TMPDIR: tmp, ...extraEnv }),
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const playbookBin = () => join(consumer, "node_modules", ".bin", "playbook-bot");

beforeAll(() => {
  tmp = realpathSync(mkdtempSync(join(tmpdir(), "pb-pack-")));

  // A copy of the checkout with the build tools, and a file an earlier build left in dist/.
  const copy = join(tmp, "checkout");
  cpSync(root, copy, {
    recursive: true,
    filter: (source) => {
      const rel = relative(root, source);
      if (rel === "") return true;
      const [top = "", second] = rel.split(sep);
      if (NOT_SOURCES.has(top)) return false;
      if (top === "dist") return second === undefined || second === "action";
      return !(second === undefined && top.endsWith(".tgz"));
    },
  });
  symlinkSync(realpathSync(join(root, "node_modules")), join(copy, "node_modules"), "dir");
  mkdirSync(join(copy, "dist", "leftover"), { recursive: true });
  writeFileSync(join(copy, "dist", "leftover", "old.js"), "export {};\n");

  // npm pack runs prepack (empties dist/) and prepare (builds).
  const out = join(tmp, "out");
  mkdirSync(out);
  const stdout = execFileSync("npm", ["pack", "--json", "--pack-destination", out], {
    cwd: copy,
    env: childEnv(),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const json = stdout.slice(stdout.search(/^\[/m));
  packed = (JSON.parse(json) as PackResult[])[0]!;
  paths = new Set(packed.files.map((f) => f.path));

  // A fresh project that depends on the tarball alone.
  consumer = join(tmp, "consumer");
  mkdirSync(consumer);
  const spec = `file:../out/${packed.filename}`;
  writeFileSync(
    join(consumer, "package.json"),
    JSON.stringify({
      name: "consumer",
      version: "1.0.0",
      private: true,
      type: "module",
      dependencies: { [pkg.name]: spec },
      // What the README asks of a project on Node 20 (npm applies overrides at the root only).
      overrides: pkg.overrides,
    }),
  );
  writeFileSync(join(consumer, "package-lock.json"), JSON.stringify(consumerLock(spec)));
  execFileSync("npm", ["ci", "--offline"], {
    cwd: consumer,
    env: childEnv(),
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}, 240_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe("the packed tarball", () => {
  it("holds the built library, the CLI, the bundled playbooks, the schemas and app.yml", () => {
    for (const file of [
      "package.json",
      "README.md",
      "LICENSE",
      "CHANGELOG.md",
      "app.yml",
      "bin/playbook-bot.js",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/entries/cli/main.js",
      "dist/cli/main.js",
      "dist/entries/server.js",
      "dist/core/format/generated/playbook-validator.js",
      "dist/entries/playground/page/editor.js",
      "dist/entries/playground/page/editor.LICENSES.txt",
      "schema/playbook.v1.schema.json",
      "schema/alert.generic.v1.schema.json",
    ])
      expect(paths, file).toContain(file);
    for (const file of filesUnder(join(root, "playbooks")))
      expect(paths, `playbooks/${file}`).toContain(`playbooks/${file}`);
    // Every source module is built, with its declarations (the Action and the playground's
    // editor, a browser module, are bundled apart).
    for (const file of filesUnder(join(root, "src")).filter(
      (f) =>
        f.endsWith(".ts") &&
        !f.startsWith("entries/action/") &&
        !f.startsWith("entries/playground/editor/"),
    )) {
      const stem = `dist/${file.replace(/\.ts$/, "")}`;
      expect(paths, `${stem}.js`).toContain(`${stem}.js`);
      expect(paths, `${stem}.d.ts`).toContain(`${stem}.d.ts`);
    }
  });

  it("leaves out sources, tests, benchmarks, source maps, the Action's bundle and old builds", () => {
    const unwanted = [...paths].filter(
      (p) =>
        /^(src|test|bench|scripts|examples|docs|node_modules|dist\/action|dist\/leftover)\//.test(
          p,
        ) ||
        p.endsWith(".map") ||
        p.endsWith(".tgz") ||
        (p.endsWith(".ts") && !p.endsWith(".d.ts")) ||
        /(^|\/)tsconfig[^/]*\.json$/.test(p),
    );
    expect(unwanted).toEqual([]);
    expect(paths.has("action.yml")).toBe(false);
  });

  it("is small: besides the playground's browser bundles (Mermaid, DOMPurify, the editor), under 1 MB packed", () => {
    const vendor = packed.files.filter((f) =>
      f.path.startsWith("dist/entries/playground/page/vendor/"),
    );
    expect(vendor.map((f) => f.path).sort()).toEqual([
      "dist/entries/playground/page/vendor/mermaid.LICENSE",
      "dist/entries/playground/page/vendor/mermaid.min.js",
      "dist/entries/playground/page/vendor/purify.LICENSE",
      "dist/entries/playground/page/vendor/purify.min.js",
    ]);
    // The editor: CodeMirror and the language server's completion and hover, about 550 kB.
    const editor = packed.files.filter((f) =>
      /^dist\/entries\/playground\/page\/editor\.(js|LICENSES\.txt)$/.test(f.path),
    );
    expect(editor).toHaveLength(2);
    const editorSize = editor.reduce((n, f) => n + f.size, 0);
    expect(editorSize).toBeLessThan(700_000);
    const vendored = vendor.reduce((n, f) => n + f.size, 0) + editorSize;
    // The modules the library, the server and the language server import, and the CLI's bundle
    // (dist/cli/, about 1.9 MB: a command starts from a few files instead of ~290 modules).
    expect(packed.unpackedSize - vendored).toBeLessThan(6_000_000);
    // The bundle packs to about a third of its size.
    expect(packed.size).toBeLessThan(1_000_000 + vendored / 2);
  });

  it("points bin, main, types and exports at files it holds", () => {
    const targets = [
      ...Object.values(pkg.bin ?? {}),
      pkg.main,
      pkg.types,
      ...Object.values(pkg.exports ?? {}).flatMap((t) =>
        typeof t === "string" ? [t] : Object.values(t),
      ),
    ];
    expect(targets.length).toBeGreaterThan(4);
    for (const target of targets) expect(paths).toContain(target?.replace(/^\.\//, ""));
    // Node 20, 22 and 24 (test/package/engines.test.ts checks what each line's lowest needs).
    expect(pkg.engines?.node).toMatch(/^\^20\.\d+\.\d+ \|\| \^22\.\d+\.\d+ \|\| >=24$/);
  });
});

// Each command starts Node, and tsc reads the declarations: slower than a unit test on a busy machine.
describe("the installed package", { timeout: 60_000 }, () => {
  it("is a real install, without the development tools", () => {
    const installed = join(consumer, "node_modules", pkg.name);
    expect(lstatSync(installed).isSymbolicLink()).toBe(false);
    const names = readdirSync(join(consumer, "node_modules"));
    for (const tool of ["typescript", "vitest", "esbuild", "eslint", "tsx"])
      expect(names).not.toContain(tool);
    expect(readdirSync(installed)).not.toContain("src");
  });

  it("answers npx playbook-bot --version", () => {
    const r = run("npx", ["playbook-bot", "--version"]);
    expect(r.stderr).not.toMatch(/ENOTCACHED|ERR!/);
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it("validates playbooks with the installed CLI", () => {
    writeFileSync(
      join(consumer, "good.yaml"),
      [
        "apiVersion: playbook-bot/v1",
        "id: tiny",
        "description: One step.",
        "steps:",
        "  - id: done",
        "    type: end",
        "    description: Nothing to do.",
        "",
      ].join("\n"),
    );
    writeFileSync(
      join(consumer, "bad.yaml"),
      "apiVersion: playbook-bot/v1\nid: bad\ndescription: x\nsteps:\n  - id: a\n    type: comit\n",
    );
    const good = run(playbookBin(), ["validate", "good.yaml"]);
    expect(good.stdout).toBe("1 playbook valid\n");
    expect(good.status).toBe(0);
    const bad = run(playbookBin(), ["validate", "bad.yaml"]);
    expect(bad.stdout).toContain("[schema-step-type]");
    expect(bad.status).toBe(1);
    const library = run(playbookBin(), ["validate", join("node_modules", pkg.name, "playbooks")]);
    const bundled = filesUnder(join(root, "playbooks")).filter((f) => /^[^/]+\.ya?ml$/.test(f));
    expect(library.stdout).toBe(`${bundled.length} playbooks valid\n`);
    expect(library.status).toBe(0);
  });

  it("runs the README's first command from the bundled library", () => {
    const r = run("npx", [
      "playbook-bot",
      "run",
      "hello-world",
      "--mode",
      "autonomous",
      "--scratch",
    ]);
    expect(r.stderr).not.toMatch(/ENOTCACHED|ERR!/);
    expect(r.stdout).toMatch(/Run \S+ completed\. State: /);
    expect(r.status).toBe(0);
  });

  it("imports from an ES module: the app, the validation library, package.json and the schema", () => {
    writeFileSync(
      join(consumer, "use.mjs"),
      `import playbookBot, { validateSource, countBySeverity, RULE_CODES } from "playbook-bot";
import pkg from "playbook-bot/package.json" with { type: "json" };
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
const good = validateSource("good.yaml", readFileSync("good.yaml", "utf8"));
const bad = validateSource("bad.yaml", readFileSync("bad.yaml", "utf8"));
const schema = JSON.parse(readFileSync(fileURLToPath(import.meta.resolve("playbook-bot/schema.json")), "utf8"));
console.log(JSON.stringify({
  app: typeof playbookBot,
  version: pkg.version,
  good: countBySeverity([good]),
  bad: bad.diagnostics.map((d) => d.rule),
  rules: RULE_CODES.length,
  schema: schema.$id,
  from: fileURLToPath(import.meta.resolve("playbook-bot")),
}));
`,
    );
    const r = run(process.execPath, ["use.mjs"]);
    expect(r.status, r.stderr).toBe(0);
    const used = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(used).toMatchObject({
      app: "function",
      version: pkg.version,
      good: { errors: 0, warnings: 0 },
      bad: ["schema-step-type"],
      schema: "https://playbook-bot.dev/schema/playbook.v1.schema.json",
      from: join(consumer, "node_modules", pkg.name, "dist", "index.js"),
    });
    expect(used.rules).toBeGreaterThan(10);
  });

  it("gives TypeScript its types", () => {
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2022",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ["use.ts"],
      }),
    );
    writeFileSync(
      join(consumer, "use.ts"),
      `import { countBySeverity, validateSource, type FileReport } from "playbook-bot";
const report: FileReport = validateSource("a.yaml", "apiVersion: playbook-bot/v1\\n");
export const counts: { errors: number; warnings: number } = countBySeverity([report]);
// @ts-expect-error the file's text is required
validateSource("a.yaml");
`,
    );
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    const r = run(process.execPath, [tsc, "-p", "tsconfig.json"]);
    expect(r.stdout + r.stderr).toBe("");
    expect(r.status).toBe(0);
  });
});
