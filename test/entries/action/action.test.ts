import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Nodes, Table } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { toString } from "mdast-util-to-string";
import { gfm } from "micromark-extension-gfm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HOSTILE, workflowCommands } from "../../helpers/workflow-commands.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const bundle = join(root, "dist", "action", "index.js");

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), "pb-action-"));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

function write(rel: string, text: string): void {
  mkdirSync(dirname(join(ws, rel)), { recursive: true });
  writeFileSync(join(ws, rel), text);
}

/** Run the bundled action as the runner does: a child process with INPUT_* and the GITHUB_* files. */
function runAction(inputs: Record<string, string>, extraEnv: Record<string, string> = {}) {
  const summary = join(ws, ".summary.md");
  const output = join(ws, ".output.txt");
  writeFileSync(summary, "");
  writeFileSync(output, "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    GITHUB_WORKSPACE: ws,
    GITHUB_STEP_SUMMARY: summary,
    GITHUB_OUTPUT: output,
    GITHUB_REPOSITORY: "octo/repo",
    GITHUB_SHA: "abc123",
    GITHUB_SERVER_URL: "https://github.com",
    ...extraEnv,
  };
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  const r = spawnSync(process.execPath, [bundle], { cwd: ws, env, encoding: "utf8" });
  const outputs: Record<string, string> = {};
  const text = readFileSync(output, "utf8");
  for (const m of text.matchAll(/^([a-z-]+)<<(\S+)\n([\s\S]*?)\n\2$/gm))
    outputs[m[1] as string] = m[3] as string;
  return {
    code: r.status,
    stdout: r.stdout,
    stderr: r.stderr,
    summary: readFileSync(summary, "utf8"),
    outputs,
  };
}

const VALID = `apiVersion: playbook-bot/v1
id: ok
description: Fine.
steps:
  - id: hello
    type: comment
    description: Say hello.
    body: Hello
`;

const BROKEN = `apiVersion: playbook-bot/v1
id: broken
description: Broken.
steps:
  - id: first
    type: comit
    description: A typo.
  - id: second
    type: comment
    description: Bad goto.
    body: hi
    next: nowhere
`;

describe("the bundled action", () => {
  it("annotates the exact lines, sets outputs, writes the summary and fails on errors", () => {
    write(".github/playbooks/ok.yaml", VALID);
    write(".github/playbooks/broken.yaml", BROKEN);
    const r = runAction({});
    expect(r.code).toBe(1);
    const commands = r.stdout
      .split("\n")
      .filter((l) => l.startsWith("::error title=") || l.startsWith("::warning title="));
    expect(commands).toEqual([
      "::error title=schema-step-type,file=.github/playbooks/broken.yaml,line=6,endLine=6,col=11,endColumn=16::steps[0].type: unknown step kind 'comit' (expected one of: ai, branch, checkpoint, close, comment, commit, decide, dispatch, end, investigate, issue, label, parallel, playbook, pull_request, script) — did you mean 'commit'?%0Awrite 'commit'",
      // The other step is checked beyond the first one's schema error, in the same run.
      "::error title=goto-unresolved,file=.github/playbooks/broken.yaml,line=12,endLine=12,col=11,endColumn=18::steps[1].next: 'nowhere' names no step%0Aname an existing step, or add the step",
    ]);
    expect(r.stdout).toContain("::error::2 errors and 0 warnings in 2 playbook files");
    expect(r.outputs).toEqual({ files: "2", errors: "2", warnings: "0" });
    expect(r.summary).toContain("### ❌ Playbooks: 2 checked, 2 errors, 0 warnings");
    expect(r.summary).toContain("| ok | `.github/playbooks/ok.yaml` | 1 | ✅ valid |");
    expect(r.summary).toContain(
      "[.github/playbooks/broken.yaml:6:11](https://github.com/octo/repo/blob/abc123/.github/playbooks/broken.yaml#L6) | ❌ `schema-step-type`",
    );
    expect(r.summary).toContain("```mermaid\nflowchart TD");
  });

  it("reads a runbook with its sidecars, and annotates a sidecar's own line", () => {
    const spec = join(root, "test/fixtures/dialects/runbook/runbooks");
    for (const name of [
      "cache_stale.yaml",
      "cache_stale.selector.json",
      "cache_stale.execution.json",
    ])
      write(`.github/playbooks/${name}`, readFileSync(join(spec, name), "utf8"));
    const decision = readFileSync(join(spec, "cache_stale.decision.json"), "utf8").replace(
      '"name": "cache_stale"',
      '"name": "stale"',
    );
    write(".github/playbooks/cache_stale.decision.json", decision);
    const r = runAction({});
    expect(r.code).toBe(1);
    // One playbook: the sidecars are read with it, never on their own.
    expect(r.outputs).toMatchObject({ files: "1", errors: "1" });
    const line = decision.split("\n").findIndex((l) => l.includes('"stale"')) + 1;
    expect(r.stdout).toContain(
      `::error title=dialect-invalid,file=.github/playbooks/cache_stale.decision.json,line=${line},`,
    );
  });

  it("passes on valid playbooks, and fails on warnings only when told to", () => {
    write("playbooks/ok.yaml", VALID.replace("    description: Say hello.\n", ""));
    const pass = runAction({ "fail-on": "error" });
    expect(pass.code).toBe(0);
    expect(pass.outputs).toEqual({ files: "1", errors: "0", warnings: "1" });
    expect(pass.stdout).toContain(
      "::warning title=step-no-description,file=playbooks/ok.yaml,line=5,endLine=5,col=9,endColumn=14::",
    );
    const strict = runAction({ "fail-on": "warning" });
    expect(strict.code).toBe(1);
    const bad = runAction({ "fail-on": "sometimes" });
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("::error::fail-on must be 'error' or 'warning', not 'sometimes'");
  });

  it("annotates at most 10 of a kind, most important first, and lists every diagnostic in the summary", () => {
    // 60 playbooks with one error each: more than GitHub's 50 annotations per job.
    for (let i = 0; i < 60; i++)
      write(
        `playbooks/p${String(i).padStart(2, "0")}.yaml`,
        BROKEN.replace("id: broken", `id: broken-${i}`).replace("    next: nowhere\n", ""),
      );
    const r = runAction({ paths: "playbooks/**" });
    expect(r.code).toBe(1);
    const errors = r.stdout.split("\n").filter((l) => l.startsWith("::error title="));
    expect(errors).toHaveLength(10);
    expect(errors[0]).toMatch(
      /^::error title=schema-step-type,file=playbooks\/p00\.yaml,line=6,endLine=6,col=11,endColumn=16::/,
    );
    expect(r.stdout).toContain(
      "50 of 60 diagnostics are not annotated (GitHub shows at most 10 of a kind per step); the job summary lists all of them.",
    );
    expect(r.outputs.errors).toBe("60");
    expect(r.summary).toContain("_50 of 60 are not shown as annotations on the diff");
    expect(r.summary.match(/❌ `schema-step-type`/g)).toHaveLength(60);
  });

  it("with changed-only, annotates only the files the pull request changes but validates everything", () => {
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], {
        cwd: ws,
        encoding: "utf8",
      }).trim();
    git("init", "-q", "-b", "main");
    write("playbooks/old.yaml", BROKEN.replace("id: broken", "id: old"));
    git("add", ".");
    git("commit", "-qm", "base");
    const base = git("rev-parse", "HEAD");
    write("playbooks/new.yaml", BROKEN.replace("id: broken", "id: new"));
    git("add", ".");
    git("commit", "-qm", "head");
    const head = git("rev-parse", "HEAD");
    write(
      ".event.json",
      JSON.stringify({ pull_request: { base: { sha: base }, head: { sha: head } } }),
    );
    const r = runAction(
      { "changed-only": "true", paths: "playbooks/**" },
      { GITHUB_EVENT_PATH: join(ws, ".event.json") },
    );
    const annotated = r.stdout.split("\n").filter((l) => l.startsWith("::error title="));
    expect(annotated.every((l) => l.includes(",file=playbooks/new.yaml,"))).toBe(true);
    // Each file has two errors (a schema error and, beyond it, a goto naming no step).
    expect(annotated).toHaveLength(2);
    expect(r.outputs.errors).toBe("4");
    expect(r.code).toBe(1);
  });

  it("says when no playbook matched", () => {
    const r = runAction({ paths: "nothing/**" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("No playbook files matched nothing/**.");
    expect(r.outputs.files).toBe("0");
  });

  it("resolves handoff targets against the bundled library", () => {
    write(
      ".github/playbooks/ok.yaml",
      VALID.replace(
        "    body: Hello\n",
        "    body: Hello\n  - id: end\n    type: end\n    description: Hand off.\n    handoff: [storage-investigation]\n",
      ),
    );
    const r = runAction({});
    expect(r.code).toBe(0);
  });

  it("turns no text of a playbook file, nor its name, into a workflow command or live Markdown", () => {
    const file = "playbooks/::add-mask::secret%0A`<b>@octocat|x.yaml";
    const q = (v: string) => JSON.stringify(v);
    write(
      file,
      `apiVersion: playbook-bot/v1
id: hostile
description: Hostile values.
steps:
  - id: first
    type: ${q(`comit${HOSTILE.warning}`)}
    description: A typo.
  - id: second
    type: comment
    body: hi
    next: ${q(`nowhere${HOSTILE.cr}`)}
  - id: third
    type: comment
    description: Third.
    body: hi
    next: ${q(`x${HOSTILE.v1} ${HOSTILE.escaped}`)}
  - id: ${q(HOSTILE.mask)}
    type: comment
    description: Fourth.
    body: hi
  - id: ${q("a|b @octocat <img src=https://e.x/p.png>")}
    type: comment
    description: Fifth.
    body: hi
  - id: ${q("![i](https://e.x/i.png) [l](https://e.x)")}
    type: comment
    body: hi
`,
    );
    // A valid playbook with a warning, under a name that is a command.
    const warned = "playbooks/::warning file=x::pwned.yaml";
    write(warned, VALID.replace("    description: Say hello.\n", ""));
    const r = runAction({ paths: "playbooks/**" });
    expect(r.code).toBe(1);
    expect(r.outputs.warnings).toBe("1");

    // The runner reads only the commands the Action meant: one annotation per diagnostic on the
    // real file, and the failure. No mask, no forged warning, nothing in the older ##[ form.
    const commands = workflowCommands(r.stdout);
    const annotations = commands.filter((c) => c.properties.file !== undefined);
    expect(commands.filter((c) => c.form === "##[")).toEqual([]);
    expect(commands.filter((c) => c.name !== "error" && c.name !== "warning")).toEqual([]);
    expect(annotations.map((c) => [c.name, c.properties.file])).toEqual([
      ...Array.from({ length: Number(r.outputs.errors) }, () => ["error", file]),
      ["warning", warned],
    ]);
    expect(commands).toHaveLength(annotations.length + 1);
    expect(commands.at(-1)).toMatchObject({ name: "error", properties: {} });
    expect(commands.at(-1)?.data).toMatch(/^\d+ errors and 1 warning in 2 playbook files$/);
    // ... and the hostile values reach the annotations intact, as text.
    const data = annotations.map((c) => c.data).join("\n");
    for (const value of [`comit${HOSTILE.warning}`, `nowhere${HOSTILE.cr}`, HOSTILE.mask])
      expect(data).toContain(value);
    expect(data).toContain(`x${HOSTILE.v1} ${HOSTILE.escaped}`);
    // The plain listing keeps one line per diagnostic, with the line breaks shown as escapes.
    expect(r.stdout).toContain("'comit\\n::warning file=x::pwned'");
    expect(r.stdout).toContain("'nowhere\\r::add-mask::secret2'");

    // The summary renders every value as text: no HTML, image, mention or foreign link, and
    // each table row keeps its cells.
    const tree = fromMarkdown(r.summary, {
      extensions: [gfm()],
      mdastExtensions: [gfmFromMarkdown()],
    });
    const all: Nodes[] = [];
    const walk = (n: Nodes) => {
      all.push(n);
      if ("children" in n) for (const c of n.children) walk(c as Nodes);
    };
    walk(tree);
    // The only HTML is the graph's own wrapper.
    expect(
      all.filter(
        (n) =>
          n.type === "html" &&
          !/^(<details><summary>Graph of <code>[\w-]+<\/code><\/summary>|<\/details>)$/.test(
            n.value,
          ),
      ),
    ).toEqual([]);
    expect(all.filter((n) => n.type === "image" || n.type === "imageReference")).toEqual([]);
    const links = all.flatMap((n) => (n.type === "link" ? [n.url] : []));
    expect(links.length).toBeGreaterThan(0);
    expect(links.filter((u) => !u.startsWith("https://github.com/octo/repo/blob/abc123/"))).toEqual(
      [],
    );
    const texts = all.flatMap((n) => (n.type === "text" ? [n.value] : []));
    expect(texts.filter((t) => /(^|[^\w`])@[a-z0-9]/i.test(t))).toEqual([]);
    const tables = all.filter((n): n is Table => n.type === "table");
    expect(tables).toHaveLength(2);
    for (const t of tables)
      for (const row of t.children)
        expect(row.children).toHaveLength(t.children[0]!.children.length);
    const [files, diagnostics] = tables as [Table, Table];
    expect(files.children.slice(1).map((row) => row.children.map((c) => toString(c)))).toEqual([
      ["—", file, "—", expect.stringMatching(/^❌ \d+ errors$/)],
      ["ok", warned, "1", "✅ valid, 1 warning"],
    ]);
    const cells = diagnostics.children.slice(1).map((row) => row.children.map((c) => toString(c)));
    expect(
      cells.every(
        (row) =>
          row[0]?.startsWith(`${file.replace("@", "@\u200b")}:`) ||
          row[0]?.startsWith(`${warned}:`),
      ),
    ).toBe(true);
    const messages = cells.map((row) => row[2]).join("\n");
    expect(messages).toContain("'a|b @\u200boctocat <img src=https:\u200b//e.x/p.png>'");
    expect(messages).toContain("'![i](https:\u200b//e.x/i.png) [l](https:\u200b//e.x)'");
    expect(messages).toContain("'comit ::warning file=x::pwned'");
  });
});
