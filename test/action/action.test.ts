import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
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
      .filter((l) => l.startsWith("::error file=") || l.startsWith("::warning file="));
    expect(commands).toEqual([
      "::error file=.github/playbooks/broken.yaml,line=6,endLine=6,col=11,endColumn=16,title=schema-step-type::steps[0].type: unknown step kind 'comit' (expected one of: ai, branch, checkpoint, close, comment, commit, decide, dispatch, end, investigate, issue, label, playbook, pull_request) — did you mean 'commit'?%0Awrite 'commit'",
    ]);
    expect(r.stdout).toContain("::error::1 error and 0 warnings in 2 playbook files");
    expect(r.outputs).toEqual({ files: "2", errors: "1", warnings: "0" });
    expect(r.summary).toContain("### ❌ Playbooks: 2 checked, 1 error, 0 warnings");
    expect(r.summary).toContain("| ok | `.github/playbooks/ok.yaml` | 1 | ✅ valid |");
    expect(r.summary).toContain(
      "[.github/playbooks/broken.yaml:6:11](https://github.com/octo/repo/blob/abc123/.github/playbooks/broken.yaml#L6) | ❌ `schema-step-type`",
    );
    expect(r.summary).toContain("```mermaid\nflowchart TD");
  });

  it("passes on valid playbooks, and fails on warnings only when told to", () => {
    write("playbooks/ok.yaml", VALID.replace("    description: Say hello.\n", ""));
    const pass = runAction({ "fail-on": "error" });
    expect(pass.code).toBe(0);
    expect(pass.outputs).toEqual({ files: "1", errors: "0", warnings: "1" });
    expect(pass.stdout).toContain(
      "::warning file=playbooks/ok.yaml,line=5,endLine=5,col=9,endColumn=14,title=step-no-description::",
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
    const errors = r.stdout.split("\n").filter((l) => l.startsWith("::error file="));
    expect(errors).toHaveLength(10);
    expect(errors[0]).toMatch(
      /^::error file=playbooks\/p00\.yaml,line=6,endLine=6,col=11,endColumn=16,title=schema-step-type::/,
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
    const annotated = r.stdout.split("\n").filter((l) => l.startsWith("::error file="));
    expect(annotated.every((l) => l.startsWith("::error file=playbooks/new.yaml"))).toBe(true);
    expect(annotated).toHaveLength(1);
    expect(r.outputs.errors).toBe("2");
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
});
