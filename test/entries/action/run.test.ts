import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { annotationOrder, run } from "../../../src/entries/action/main.js";
import type { Diagnostic } from "../../../src/core/format/diagnostics.js";

let ws: string;
let lines: string[];
/** What @actions/core wrote to stdout (annotations, failures), one entry per line. */
let stdout: string[];
// @actions/core keeps the summary file's path after its first write: one file for the suite.
const files = mkdtempSync(join(tmpdir(), "pb-action-files-"));
afterAll(() => rmSync(files, { recursive: true, force: true }));
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), "pb-action-run-"));
  lines = [];
  stdout = [];
  vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout.push(...String(chunk).split("\n").filter(Boolean));
    return true;
  });
  writeFileSync(join(files, "summary.md"), "");
  writeFileSync(join(files, "output.txt"), "");
  vi.stubEnv("GITHUB_STEP_SUMMARY", join(files, "summary.md"));
  vi.stubEnv("GITHUB_OUTPUT", join(files, "output.txt"));
  vi.stubEnv("GITHUB_REPOSITORY", "octo/repo");
  vi.stubEnv("GITHUB_SHA", "abc");
  vi.stubEnv("GITHUB_API_URL", "https://api.github.test");
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  process.exitCode = 0;
  rmSync(ws, { recursive: true, force: true });
});

function write(rel: string, text: string): void {
  mkdirSync(dirname(join(ws, rel)), { recursive: true });
  writeFileSync(join(ws, rel), text);
}

const broken = (i: number) => `apiVersion: playbook-bot/v1
id: b${i}
description: Broken.
steps:
  - id: first
    type: comit
    description: A typo.
`;

describe("run (in process)", () => {
  it("publishes every diagnostic through the Checks API, 50 per request", async () => {
    for (let i = 0; i < 120; i++) write(`playbooks/b${i}.yaml`, broken(i));
    vi.stubEnv("INPUT_TOKEN", "t0ken");
    vi.stubEnv("INPUT_CHECKS", "true");
    const calls: {
      url: string;
      method: string;
      body: { output: { annotations: unknown[] }; conclusion?: string };
    }[] = [];
    const fetcher = (async (url: string, init: { method: string; body: string }) => {
      calls.push({ url, method: init.method, body: JSON.parse(init.body) });
      return new Response(JSON.stringify({ id: 77 }), { status: 201 });
    }) as unknown as typeof fetch;
    const code = await run({
      workspace: ws,
      env: process.env,
      log: (l) => lines.push(l),
      fetch: fetcher,
    });
    expect(code).toBe(1);
    expect(calls.map((c) => [c.method, c.url, c.body.output.annotations.length])).toEqual([
      ["POST", "https://api.github.test/repos/octo/repo/check-runs", 50],
      ["PATCH", "https://api.github.test/repos/octo/repo/check-runs/77", 50],
      ["PATCH", "https://api.github.test/repos/octo/repo/check-runs/77", 20],
    ]);
    expect(calls[0]?.body.conclusion).toBe("failure");
    expect(lines).toContain("Published check run 77 with 120 annotations.");
    expect(lines.join("\n")).not.toContain("t0ken");
    expect(readFileSync(join(files, "output.txt"), "utf8")).toMatch(/errors<<\S+\n120\n/);
  });

  it("keeps the annotations when the check run cannot be created", async () => {
    write("playbooks/b.yaml", broken(1));
    vi.stubEnv("INPUT_TOKEN", "t");
    vi.stubEnv("INPUT_CHECKS", "true");
    const fetcher = (async () => new Response("{}", { status: 403 })) as unknown as typeof fetch;
    await run({ workspace: ws, env: process.env, log: (l) => lines.push(l), fetch: fetcher });
    expect(lines).toContain(
      "Could not publish a check run (HTTP 403); annotations above still apply.",
    );
    expect(
      stdout.some((l) => /^::error title=schema-step-type,file=playbooks\/b\.yaml,/.test(l)),
    ).toBe(true);
  });

  it("annotates everything with changed-only when the workflow runs for no pull request", async () => {
    write("playbooks/b.yaml", broken(1));
    vi.stubEnv("INPUT_CHANGED-ONLY", "true");
    await run({ workspace: ws, env: process.env, log: (l) => lines.push(l) });
    expect(lines[0]).toBe(
      "changed-only: the workflow does not run for a pull request; annotating every file.",
    );
    expect(
      stdout.some((l) => /^::error title=schema-step-type,file=playbooks\/b\.yaml,/.test(l)),
    ).toBe(true);
  });
});

describe("run: sarif-file", () => {
  it("writes every diagnostic as SARIF, paths from the workspace when git knows no root", async () => {
    write("playbooks/b.yaml", broken(1));
    write("playbooks/c.yaml", broken(2));
    vi.stubEnv("INPUT_SARIF-FILE", "out/pb.sarif");
    vi.stubEnv("GITHUB_WORKSPACE", ws);
    await run({ workspace: ws, env: process.env, log: (l) => lines.push(l) });
    const run0 = JSON.parse(readFileSync(join(ws, "out/pb.sarif"), "utf8")).runs[0];
    expect(
      run0.results.map(
        (r: { locations: { physicalLocation: { artifactLocation: unknown } }[] }) =>
          r.locations[0]?.physicalLocation.artifactLocation,
      ),
    ).toEqual([
      { uri: "playbooks/b.yaml", uriBaseId: "%SRCROOT%" },
      { uri: "playbooks/c.yaml", uriBaseId: "%SRCROOT%" },
    ]);
    expect(lines).toContain(`Wrote SARIF for 2 diagnostics to out/pb.sarif (paths from ${ws}).`);
    expect(readFileSync(join(files, "output.txt"), "utf8")).toContain(join(ws, "out/pb.sarif"));
  });
});

describe("annotationOrder", () => {
  const d = (file: string, severity: "error" | "warning", line: number): Diagnostic => ({
    rule: "unreachable",
    severity,
    file,
    path: "",
    message: "",
    line,
    column: 1,
    endLine: line,
    endColumn: 2,
  });
  it("puts errors first, then changed files, then position", () => {
    const order = annotationOrder(
      [d("a", "warning", 1), d("b", "error", 9), d("a", "error", 5), d("c", "error", 1)],
      new Set(["b"]),
    );
    expect(order.map((x) => `${x.severity}:${x.file}:${x.line}`)).toEqual([
      "error:b:9",
      "error:a:5",
      "error:c:1",
      "warning:a:1",
    ]);
  });
});
