import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../../src/entries/cli/main.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function simulateScript(playbook: string, script: string) {
  const dir = mkdtempSync(join(tmpdir(), "pb-sim-"));
  dirs.push(dir);
  const file = join(dir, "events.yaml");
  writeFileSync(file, script);
  let out = "";
  let err = "";
  const code = await main(["simulate", playbook, "--events", file], {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    cwd: root,
  });
  return { code, out, err };
}

describe("playbook-bot simulate with parallel steps", () => {
  it("runs parallel-checks: its branches, then one comment per item, to the end", async () => {
    const r = await simulateScript(
      "parallel-checks",
      "issue: { title: Checks, author: alice }\nusers: { alice: write }\nevents:\n  - comment: /run parallel-checks services=api,web\n    by: alice\n",
    );
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("**Status:** completed");
    expect(r.out).toContain("Lint started for api, web.");
    expect(r.out).toContain("Service api (#0): report committed as");
    expect(r.out).toContain("Service web (#1): report committed as");
    expect(r.out).toContain("Branches done: lint, docs, report.");
  });

  it("runs release-dag: the announcement after the commit and the notes", async () => {
    const r = await simulateScript(
      "release-dag",
      "issue: { title: Release, author: alice }\nusers: { alice: write }\nevents:\n  - comment: /run release-dag version=4.0.0\n    by: alice\n",
    );
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("**Status:** completed");
    const notes = r.out.indexOf("Release notes for 4.0.0 are being drafted.");
    const announce = r.out.indexOf("Release 4.0.0 is ready on release/4.0.0-");
    expect(notes).toBeGreaterThan(0);
    expect(announce).toBeGreaterThan(notes);
  });
});

describe("playbook-bot run with checkpoints in branches", () => {
  it("approves each waiting branch in autonomous mode and completes", async () => {
    vi.stubEnv("GITHUB_TOKEN", "");
    const dir = mkdtempSync(join(tmpdir(), "pb-run-"));
    dirs.push(dir);
    const file = join(dir, "gates.yaml");
    writeFileSync(
      file,
      [
        "apiVersion: playbook-bot/v1",
        "id: gates",
        "steps:",
        "  - id: both",
        "    type: parallel",
        "    branches:",
        "      a: [{ id: a-ok, type: checkpoint, message: A? }]",
        "      b: [{ id: b-ok, type: checkpoint, message: B? }]",
        "  - { id: done, type: end }",
        "",
      ].join("\n"),
    );
    let out = "";
    const code = await main(["run", file, "--mode", "autonomous", "--scratch"], {
      out: (t) => void (out += t),
      err: (t) => void (out += t),
      cwd: dir,
    });
    vi.unstubAllEnvs();
    const scratch = /Scratch repository: (.+)\n/.exec(out)?.[1];
    if (scratch) dirs.push(scratch);
    expect(out).toContain("autonomous mode: approving a-ok");
    expect(out).toContain("autonomous mode: approving b-ok");
    expect(code, out).toBe(0);
  });
});
