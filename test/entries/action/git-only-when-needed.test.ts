import * as childProcess from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { run } from "../../../src/entries/action/main.js";

vi.mock("node:child_process", async (original) => {
  const actual = await original<typeof childProcess>();
  return { ...actual, execFileSync: vi.fn(actual.execFileSync) };
});

let ws: string;
// @actions/core keeps the summary file's path after its first write: one file for the suite.
const files = mkdtempSync(join(tmpdir(), "pb-action-git-files-"));
afterAll(() => rmSync(files, { recursive: true, force: true }));
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), "pb-action-git-"));
  mkdirSync(join(ws, "playbooks"));
  writeFileSync(
    join(ws, "playbooks", "ok.yaml"),
    "apiVersion: playbook-bot/v1\nid: ok\ndescription: Fine.\nsteps:\n  - id: done\n    type: end\n    description: Done.\n",
  );
  writeFileSync(join(files, "summary.md"), "");
  writeFileSync(join(files, "output.txt"), "");
  vi.stubEnv("GITHUB_STEP_SUMMARY", join(files, "summary.md"));
  vi.stubEnv("GITHUB_OUTPUT", join(files, "output.txt"));
  vi.spyOn(process.stdout, "write").mockImplementation(() => true);
  vi.mocked(childProcess.execFileSync).mockClear();
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  rmSync(ws, { recursive: true, force: true });
});

const gitCalls = () =>
  vi.mocked(childProcess.execFileSync).mock.calls.filter(([file]) => file === "git").length;

describe("the Action asks git for the repository's root only when it needs it", () => {
  it("not to validate and summarise", async () => {
    expect(await run({ workspace: ws, env: process.env, log: () => undefined })).toBe(0);
    expect(gitCalls()).toBe(0);
  });

  it("once to write SARIF", async () => {
    vi.stubEnv("INPUT_SARIF-FILE", "out/playbooks.sarif");
    expect(await run({ workspace: ws, env: process.env, log: () => undefined })).toBe(0);
    expect(gitCalls()).toBe(1);
  });
});
