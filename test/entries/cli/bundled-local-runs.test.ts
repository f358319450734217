import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { main } from "../../../src/entries/cli/main.js";
import { PlaybookGraph } from "../../../src/core/format/graph.js";
import type { PlaybookDocument, TestCase } from "../../../src/core/format/types.js";
import { validateSource } from "../../../src/core/rules/validate.js";
import {
  FIXED_NOW,
  FIXED_TOKEN,
  ROOT,
  branches,
  cleanup,
  makeDir,
  write,
} from "../../helpers/git-repo.js";

afterEach(cleanup);
// Local runs must never reach GitHub here: without a token, GitHub effects are printed.
beforeEach(() => void vi.stubEnv("GITHUB_TOKEN", ""));
afterEach(() => void vi.unstubAllEnvs());

/** The bundled library, each playbook with its golden cases. */
const LIBRARY = readdirSync(join(ROOT, "playbooks"))
  .filter((f) => f.endsWith(".yaml"))
  .sort()
  .map((f) => {
    const file = join(ROOT, "playbooks", f);
    const playbook = validateSource(file, readFileSync(file, "utf8")).playbook as PlaybookDocument;
    return { file: `playbooks/${f}`, playbook };
  });

interface LocalRun {
  code: number;
  out: string;
  err: string;
  scratch: string | undefined;
}

/** `playbook-bot <argv>` in this process, from the repository root, with a fixed clock and id. */
async function cli(argv: string[]): Promise<LocalRun> {
  let out = "";
  let err = "";
  const code = await main(argv, {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    cwd: ROOT,
    clock: () => new Date(FIXED_NOW),
    runToken: () => FIXED_TOKEN,
  });
  return { code, out, err, scratch: /Scratch repository: (.+)\n/.exec(out)?.[1] };
}

/** The arguments a golden case gives a run: its inputs, its alert, and the issue cases run on. */
function caseArgs(tc: TestCase): string[] {
  const args = Object.entries(tc.inputs ?? {}).map(([k, v]) => `${k}=${String(v)}`);
  if (tc.alert) args.push("--alert", write(makeDir(), "alert.json", JSON.stringify(tc.alert)));
  // Golden cases run on issue #1 of a repository (see playbook-tests.ts).
  return [...args, "--issue", "1"];
}

/** Cases that start a run and enter steps: what a local run of the playbook should also do. */
function runnableCases(playbook: PlaybookDocument): TestCase[] {
  return (playbook.tests ?? []).filter((tc) => (tc.expect.path?.length ?? 0) > 0);
}

/** The run ended, or paused where it waits for a person (exit 4, a documented pause). */
function expectEndOrPause(r: LocalRun, playbook: PlaybookDocument): void {
  const text = r.out + r.err;
  expect(text).not.toMatch(/PB-TEMPLATE|template-unresolved/);
  expect([0, 4], text).toContain(r.code);
  if (r.code === 0) {
    expect(r.out).toMatch(/Run \S+ completed\. State: /);
    return;
  }
  const paused = /Run \S+ paused at (\S+) \(waiting\)/.exec(r.out);
  expect(paused, text).not.toBeNull();
  // Without a terminal, a local run pauses only where people answer: an investigation.
  const frames = [playbook, ...LIBRARY.map((l) => l.playbook)];
  const step = frames
    .map((p) => new PlaybookGraph(p).byId.get(paused?.[1] ?? "")?.step)
    .find((s) => s !== undefined);
  expect(step?.type).toBe("investigate");
}

describe("every bundled playbook runs locally", () => {
  it("the library holds the playbooks docs/playbooks.md lists, each with runnable golden cases", () => {
    expect(LIBRARY.map((l) => l.playbook.id)).toEqual([
      "alert-high-error-rate",
      "alert-triage",
      "dependency-bump",
      "hello-world",
      "parallel-checks",
      "recent-changes",
      "release-dag",
      "service-triage",
      "storage-investigation",
    ]);
    for (const l of LIBRARY) expect(runnableCases(l.playbook).length, l.file).toBeGreaterThan(0);
  });

  for (const { file, playbook } of LIBRARY) {
    for (const tc of runnableCases(playbook)) {
      it(`${playbook.id}: "${tc.name}" reaches its end or a documented pause (autonomous, --scratch)`, async () => {
        const r = await cli(["run", file, ...caseArgs(tc), "--mode", "autonomous", "--scratch"]);
        try {
          expectEndOrPause(r, playbook);
        } finally {
          if (r.scratch) rmSync(r.scratch, { recursive: true, force: true });
        }
      });
    }
  }

  it("the dependency bump runs without --issue: its pull request says `Closes #n` only when there is an issue", async () => {
    const bare = await cli([
      "run",
      "dependency-bump",
      "package=lodash",
      "--mode",
      "autonomous",
      "--scratch",
    ]);
    try {
      expect(bare.code, bare.out + bare.err).toBe(0);
      expect(branches(bare.scratch as string)).toContain("playbook/bump-lodash");
      expect(bare.out).toMatch(/Run \S+ completed\. State: /);
    } finally {
      if (bare.scratch) rmSync(bare.scratch, { recursive: true, force: true });
    }
  });

  it("without --issue, a playbook that names the issue is refused before any step, with where and how", async () => {
    const dir = makeDir();
    const file = write(
      dir,
      "notify.yaml",
      [
        "apiVersion: playbook-bot/v1",
        "id: notify",
        "name: Notify",
        "description: Names the issue it runs on.",
        "steps:",
        "  - id: branch",
        "    type: branch",
        "    name: notify/work",
        "  - id: say",
        "    type: comment",
        '    body: "Working on #{{ issue.number }}"',
        "",
      ].join("\n"),
    );
    const r = await cli(["run", file, "--mode", "autonomous", "--scratch"]);
    try {
      expect(r.code).toBe(1);
      expect(r.err).toContain(
        "notify.yaml:11:24: steps[1].body: '{{ issue.number }}' has no value in a local run [template-unresolved]",
      );
      expect(r.err).toContain(
        "= hint: a local run has no GitHub issue unless it is given one: pass --issue <n>",
      );
      expect(r.err).toContain(
        "playbook-bot: notify uses values a local run does not have; nothing was run",
      );
      // nothing ran: no branch, no state, no step line
      expect(branches(r.scratch as string)).toEqual(["main"]);
      expect(existsSync(join(r.scratch as string, ".playbook-runs"))).toBe(false);
      expect(r.out).not.toContain("▶");
      // Given an issue, the same playbook runs.
      const given = await cli(["run", file, "--issue", "7", "--mode", "autonomous", "--scratch"]);
      try {
        expect(given.code, given.out + given.err).toBe(0);
      } finally {
        if (given.scratch) rmSync(given.scratch, { recursive: true, force: true });
      }
    } finally {
      if (r.scratch) rmSync(r.scratch, { recursive: true, force: true });
    }
  });

  it("without an alert, an alert playbook is refused up front and names --alert", async () => {
    const r = await cli(["run", "alert-triage", "--mode", "autonomous", "--scratch"]);
    try {
      expect(r.code).toBe(1);
      expect(r.err).toMatch(
        /playbooks\/alert-triage\.yaml:\d+:\d+: steps\[0\]\.body: '\{\{ alert\.title \}\}' has no value in a local run/,
      );
      expect(r.err).toContain("pass --alert <file>");
      expect(r.out).not.toContain("▶");
    } finally {
      if (r.scratch) rmSync(r.scratch, { recursive: true, force: true });
    }
  });
});
