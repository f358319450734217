import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../../../src/entries/cli/main.js";

const dirs: string[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const PLAYBOOK = [
  "apiVersion: playbook-bot/v1",
  "id: scripted",
  "inputs:",
  "  who: { type: string, default: 'world; touch /tmp/never' }",
  "steps:",
  "  - id: greet",
  "    type: script",
  "    shell: sh",
  '    run: printf "hello %s" "$WHO"',
  '    env: { WHO: "{{ inputs.who }}" }',
  "  - id: say",
  "    type: comment",
  '    body: "{{ steps.greet.outputs.stdout }}"',
  "  - { id: done, type: end }",
  "",
].join("\n");

async function runScripted(flags: string[]): Promise<{ code: number; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), "pb-script-"));
  dirs.push(dir);
  const file = join(dir, "scripted.yaml");
  writeFileSync(file, PLAYBOOK);
  vi.stubEnv("GITHUB_TOKEN", "");
  let out = "";
  const code = await main(["run", file, "--mode", "autonomous", "--scratch", ...flags], {
    out: (t) => void (out += t),
    err: (t) => void (out += t),
    cwd: dir,
  });
  const scratch = /Scratch repository: (.+)\n/.exec(out)?.[1];
  if (scratch) dirs.push(scratch);
  return { code, out };
}

describe("script steps in a local run", () => {
  it("run with --allow-scripts; a value reaches the script as data, never as shell syntax", async () => {
    const { code, out } = await runScripted(["--allow-scripts"]);
    expect(code, out).toBe(0);
    expect(out).toContain("hello world; touch /tmp/never");
  });

  it("are refused without --allow-scripts, and say how to allow them", async () => {
    const { code, out } = await runScripted([]);
    expect(code).not.toBe(0);
    expect(out).toContain("PB-SCRIPT-REFUSED");
    expect(out).toContain("--allow-scripts");
  });
});

describe("requires: in a local run", () => {
  it("stops before any step when a required secret is not in the environment", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pb-req-"));
    dirs.push(dir);
    const file = join(dir, "needs.yaml");
    writeFileSync(
      file,
      "apiVersion: playbook-bot/v1\nid: needs\nrequires: { secrets: [PB_TEST_SECRET], tools: [metrics/query] }\nsteps:\n  - { id: say, type: comment, body: hi }\n  - { id: done, type: end }\n",
    );
    vi.stubEnv("PB_TEST_SECRET", "");
    let out = "";
    const code = await main(["run", file, "--mode", "autonomous", "--scratch"], {
      out: (t) => void (out += t),
      err: (t) => void (out += t),
      cwd: dir,
    });
    const scratch = /Scratch repository: (.+)\n/.exec(out)?.[1];
    if (scratch) dirs.push(scratch);
    expect(code).toBe(1);
    expect(out).toContain(
      "needs requires the secret PB_TEST_SECRET, which this machine does not have: export it as an environment variable before the run",
    );
    expect(out).toContain("needs requires the tool metrics/query");
    expect(out).not.toContain("comment on the thread");
  });
});
