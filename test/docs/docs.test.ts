import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { AppMetrics } from "../../src/adapters/metrics/metrics.js";
import { COMMANDS } from "../../src/core/engine/commands.js";
import { cliIn } from "../helpers/cli.js";

// The user's guide (README.md and docs/*.md) checked against what it documents: the app's
// manifest, the CLI's own help, the environment variables the code reads, the playbook schema,
// and its own links.
const ROOT = join(import.meta.dirname, "..", "..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const PAGES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** Whether `name` is written as code on the page: `name`, or `name` followed by more (`--mode x`). */
function namesAsCode(page: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`\`${escaped}(?![A-Za-z0-9_-])[^\`]*\``).test(page);
}

function missingFrom(file: string, names: Iterable<string>): string[] {
  const page = read(file);
  return [...names].filter((n) => !namesAsCode(page, n));
}

describe("install-app.md", () => {
  it("names every webhook event app.yml subscribes to", () => {
    const manifest = load(read("app.yml")) as { default_events: string[] };
    expect(manifest.default_events.length).toBeGreaterThan(3);
    expect(missingFrom("docs/install-app.md", manifest.default_events)).toEqual([]);
  });
});

describe("action.md", () => {
  it("names every input and output action.yml declares", () => {
    const action = load(read("action.yml")) as {
      inputs: Record<string, unknown>;
      outputs: Record<string, unknown>;
    };
    const names = [...Object.keys(action.inputs), ...Object.keys(action.outputs)];
    expect(names).toEqual(expect.arrayContaining(["paths", "mode", "errors"]));
    expect(missingFrom("docs/action.md", names)).toEqual([]);
  });
});

/** The sections of a commander help text: "Options:" → its lines. */
function helpSection(help: string, title: string): string[] {
  const lines = help.split("\n");
  const start = lines.indexOf(`${title}:`);
  if (start < 0) return [];
  const end = lines.findIndex((l, i) => i > start && !l.startsWith(" ") && l.trim() !== "");
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

async function helpOf(argv: string[]): Promise<string> {
  const r = await cliIn([...argv, "--help"], ROOT);
  expect(r.code, r.err).toBe(0);
  return r.out;
}

/** Long flags of a help text's "Options:" section (`--no-library`, `--max-warnings`, …). */
function longFlags(help: string): string[] {
  return helpSection(help, "Options")
    .filter((l) => /^\s{2}-/.test(l))
    .flatMap((l) => [...(l.trim().split(/\s{2,}/)[0] ?? "").matchAll(/--[a-z][a-z-]*/g)])
    .map((m) => m[0]);
}

describe("cli.md", () => {
  it("names every command and every long flag the CLI's --help lists", async () => {
    const top = await helpOf([]);
    const commands = helpSection(top, "Commands")
      .filter((l) => /^\s{2}[a-z]/.test(l))
      .map((l) => l.trim().split(/\s/)[0]!);
    expect(commands).toEqual(expect.arrayContaining(["validate", "run", "playground", "lsp"]));
    const flags = new Map<string, string[]>([["playbook-bot", longFlags(top)]]);
    for (const command of commands.filter((c) => c !== "help"))
      flags.set(command, longFlags(await helpOf([command])));
    expect(flags.get("run")).toEqual(expect.arrayContaining(["--scratch", "--allow-scripts"]));
    expect(missingFrom("docs/cli.md", commands)).toEqual([]);
    const page = read("docs/cli.md");
    const missing = [...flags].flatMap(([command, list]) =>
      list.filter((f) => !namesAsCode(page, f)).map((f) => `${command} ${f}`),
    );
    expect(missing).toEqual([]);
  });
});

/** Every .ts file under a folder. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith(".ts")
        ? [join(dir, e.name)]
        : [],
  );
}

// `env.X` or `env["X"]` (not assigned to), and the helpers that take `(env, "X")`.
const ENV_READS = [
  /\benv\??\.([A-Z][A-Z0-9_]{2,})\b(?!\s*=(?!=))/g,
  /\benv\[\s*"([A-Z][A-Z0-9_]+)"\s*\](?!\s*=(?!=))/g,
  /\(\s*env\s*,\s*"([A-Z][A-Z0-9_]+)"/g,
];

/**
 * The environment variables the code reads. The dialects are left out: what they write is the
 * text of a playbook's own script (`process.env["CATALYST_GET_…"]` runs in that script).
 */
function environmentVariablesRead(src = join(ROOT, "src")): Set<string> {
  const names = new Set<string>();
  for (const file of sources(src)) {
    if (relative(src, file).startsWith(join("core", "dialects"))) continue;
    const text = readFileSync(file, "utf8");
    for (const pattern of ENV_READS) for (const m of text.matchAll(pattern)) names.add(m[1]!);
  }
  return names;
}

describe("running.md", () => {
  it("lists every environment variable the code reads", () => {
    const names = environmentVariablesRead();
    // The scan finds reads of each form: a property, a helper's argument, the Action's runner.
    for (const known of ["REDIS_URL", "INBOX_CONCURRENCY", "PLAYBOOK_AI_MODEL", "GITHUB_SHA"])
      expect(names).toContain(known);
    expect(names).not.toContain("GIT_AUTHOR_NAME"); // written for git, not read
    expect(missingFrom("docs/running.md", names)).toEqual([]);
  });
});

describe("running.md and commands.md", () => {
  it("list every metric the app exposes", async () => {
    const metrics = (await new AppMetrics().registry.getMetricsAsJSON()).map((m) => m.name);
    expect(metrics).toContain("playbook_bot_runs_total");
    expect(missingFrom("docs/running.md", metrics)).toEqual([]);
  });

  it("name every command people may write on an issue", () => {
    expect(
      missingFrom(
        "docs/commands.md",
        COMMANDS.map((c) => `/${c}`),
      ),
    ).toEqual([]);
  });
});

describe("playbooks.md", () => {
  it("names every field of the playbook schema", () => {
    const schema = JSON.parse(read("schema/playbook.v1.schema.json")) as unknown;
    const fields = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(walk);
      if (node === null || typeof node !== "object") return;
      const props = (node as { properties?: unknown }).properties;
      if (props && typeof props === "object") for (const k of Object.keys(props)) fields.add(k);
      Object.values(node).forEach(walk);
    };
    walk(schema);
    expect(fields.size).toBeGreaterThan(100);
    const page = read("docs/playbooks.md");
    // Written as a field of the reference: `name`, `parent.name` or `parent[].name`.
    const missing = [...fields].filter(
      (f) => !new RegExp(`\`([\\w.\\[\\]]*[.\\]])?${f}\``).test(page),
    );
    expect(missing).toEqual([]);
  });
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slugOf(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*_]{1,2}([^`*_]+)[`*_]{1,2}/g, "$1");
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** A page's text without fenced code blocks (their lines kept, empty). */
function prose(text: string): string {
  let fenced = false;
  return text
    .split("\n")
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return "";
      }
      return fenced ? "" : line;
    })
    .join("\n");
}

function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = slugOf(m[1]!);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Relative links of a page (images included), each as written. */
function relativeLinks(text: string): string[] {
  const plain = prose(text).replace(/`[^`\n]*`/g, "code");
  return [...plain.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/** What is wrong with a link from `page`, or nothing. */
function brokenLink(page: string, link: string): string | undefined {
  const [path = "", anchor] = link.split("#", 2);
  const target = path === "" ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), path);
  if (!existsSync(target)) return `${page}: ${link}: no such file`;
  if (anchor === undefined) return undefined;
  if (statSync(target).isDirectory() || !target.endsWith(".md"))
    return `${page}: ${link}: an anchor into something that is not a page`;
  return anchorsOf(readFileSync(target, "utf8")).has(anchor)
    ? undefined
    : `${page}: ${link}: no heading with that anchor`;
}

describe("the README and docs/*.md", () => {
  it("are the pages this test reads", () => {
    for (const page of ["docs/install-app.md", "docs/running.md", "docs/cli.md", "docs/editors.md"])
      expect(PAGES).toContain(page);
  });

  it("link only to files and headings that exist", () => {
    const broken = PAGES.flatMap((page) =>
      relativeLinks(read(page)).flatMap((link) => brokenLink(page, link) ?? []),
    );
    expect(broken).toEqual([]);
    expect(relativeLinks(read("README.md"))).toContain("docs/images/status-comment.png");
  });

  it("name as code only repository paths that exist", () => {
    const named = PAGES.flatMap((page) =>
      [
        ...read(page).matchAll(
          /`((?:src|test|bench|scripts|examples|schema|playbooks)\/[\w./-]+)`/g,
        ),
      ]
        .map((m) => m[1]!)
        .filter((path) => !existsSync(join(ROOT, path)))
        .map((path) => `${page}: ${path}`),
    );
    expect(named).toEqual([]);
  });

  it("judge links by GitHub's anchors", () => {
    expect(slugOf("Settings and `.env`")).toBe("settings-and-env");
    expect(slugOf("The bot in a workflow (`mode: bot`)")).toBe("the-bot-in-a-workflow-mode-bot");
    expect([...anchorsOf("# A\n```\n# not a heading\n```\n## A\n")]).toEqual(["a", "a-1"]);
    expect(relativeLinks("[x](a.md#b) [y](https://e.x) `[z](c.md)` ![p](i.png)")).toEqual([
      "a.md#b",
      "i.png",
    ]);
    expect(brokenLink("README.md", "docs/running.md#environment-variables")).toBeUndefined();
    expect(brokenLink("README.md", "docs/running.md#no-such-heading")).toMatch(/no heading/);
    expect(brokenLink("README.md", "docs/nowhere.md")).toMatch(/no such file/);
    expect(brokenLink("README.md", "docs/dialects/#x")).toMatch(/not a page/);
  });
});
