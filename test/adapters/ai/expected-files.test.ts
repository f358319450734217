import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MockAiAdapter } from "../../../src/runtime/ai.js";
import { LocalEffects } from "../../../src/adapters/local/effects.js";
import { MemoryGitHub } from "../../../src/adapters/memory/github.js";
import type { Effect } from "../../../src/core/engine/events.js";
import type { RunState } from "../../../src/core/engine/state.js";
import { EXAMPLE_REPO, makeClock, testPort } from "../../entries/app/harness.js";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { cleanup, makeRepo, runIn, write } from "../../helpers/git-repo.js";
import { sampleRun } from "../../runtime/state/fixtures.js";

afterEach(cleanup);

function ai(expect_files: string[]): Effect<"ai"> {
  return {
    key: "run/think/1",
    kind: "ai",
    step: "think",
    params: { prompt: "Write", expect_files },
  };
}

const run: RunState = sampleRun();

describe("an ai effect's expected files", () => {
  it("locally: must be files in the working tree", async () => {
    const repo = makeRepo();
    write(repo, "out/report.md", "# Report\n");
    const local = new LocalEffects({ repo, dryRun: false, ai: new MockAiAdapter(), log: () => {} });
    expect(await local.perform(ai(["out/report.md", "README.md"]), run)).toMatchObject({
      ok: true,
      outputs: { text: "mock response to: Write" },
    });
    expect(await local.perform(ai(["out/report.md", "out/summary.md", "out"]), run)).toEqual({
      ok: false,
      error: {
        code: "PB-AI-OUTPUT-MISSING",
        message: "expected files are missing in the working tree: out/summary.md, out",
        guidance: expect.stringContaining("did not produce the files"),
      },
    });
  });

  it("in memory: must be files on main", async () => {
    const gh = new MemoryGitHub();
    const commit: Effect<"commit"> = {
      key: "run/write/1",
      kind: "commit",
      step: "write",
      params: { branch: "main", message: "m", files: [{ path: "out/report.md", content: "x" }] },
    };
    expect(await gh.perform(ai(["out/report.md"]), run)).toMatchObject({
      ok: false,
      error: { message: "expected files are missing on branch main: out/report.md" },
    });
    await gh.perform(commit, run);
    expect(await gh.perform(ai(["out/report.md"]), run)).toMatchObject({ ok: true });
  });

  describe("on GitHub", () => {
    let fake: FakeGitHub;
    beforeEach(() => {
      nock.disableNetConnect();
      fake = new FakeGitHub({
        ...EXAMPLE_REPO,
        files: { "README.md": "# test\n", "docs/guide.md": "guide" },
        clock: makeClock(),
      }).install();
    });
    afterEach(() => {
      fake.uninstall();
      nock.enableNetConnect();
    });

    it("must be files on the default branch, read from one listing of its tree", async () => {
      const port = testPort();
      const mark = fake.requests.length;
      expect(await port.perform(ai(["docs/guide.md", "README.md"]), run)).toMatchObject({
        ok: true,
      });
      expect(fake.since(mark).map((r) => `${r.method} ${r.path.split("?")[0]}`)).toEqual([
        `GET /repos/${EXAMPLE_REPO.owner}/${EXAMPLE_REPO.repo}/git/ref/heads/${EXAMPLE_REPO.defaultBranch}`,
        expect.stringMatching(/\/git\/trees\/[0-9a-f]+$/),
      ]);
      expect(await port.perform(ai(["docs/guide.md", "docs/missing.md"]), run)).toMatchObject({
        ok: false,
        error: {
          code: "PB-AI-OUTPUT-MISSING",
          message: `expected files are missing on branch ${EXAMPLE_REPO.defaultBranch}: docs/missing.md`,
        },
      });
    });

    it("asks for each unlisted path when the listing is truncated", async () => {
      fake.fault = ({ path }) => {
        if (/\/git\/trees\//.test(path))
          return { status: 200, body: { truncated: true, tree: [] } };
        if (path.includes("/contents/docs/guide.md"))
          return { status: 200, body: { type: "file", path: "docs/guide.md" } };
        return undefined;
      };
      expect(await testPort().perform(ai(["docs/guide.md", "docs/gone.md"]), run)).toMatchObject({
        ok: false,
        error: { message: expect.stringMatching(/: docs\/gone\.md$/) },
      });
    });

    it("ask GitHub for nothing when the step expects no file", async () => {
      const mark = fake.requests.length;
      expect(await testPort().perform(ai([]), run)).toMatchObject({ ok: true });
      expect(fake.since(mark)).toEqual([]);
    });
  });
});

const WRITES = `apiVersion: playbook-bot/v1
id: writes
description: An ai step that should have written a report.
inputs:
  name: { type: string, default: report }
steps:
  - id: think
    type: ai
    prompt: Write the report
    expect_files: ["out/{{ inputs.name }}.md"]
  - id: end
    type: end
`;

describe("a local run whose ai step's expected file does not exist", () => {
  it("fails the step with PB-AI-OUTPUT-MISSING and exits 2", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/writes.yaml", WRITES);
    const r = await runIn(repo, "writes", [], { mode: "autonomous" });
    expect(r.code).toBe(2);
    expect(r.out).toContain("PB-AI-OUTPUT-MISSING");
    expect(r.out).toContain("out/report.md");
  });

  it("completes once the file is there (its path rendered from the inputs)", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/writes.yaml", WRITES);
    write(repo, "out/report.md", "# Report\n");
    const r = await runIn(repo, "writes", [], { mode: "autonomous" });
    expect(r.code).toBe(0);
  });
});
