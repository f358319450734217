import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { rulesMarkdown } from "../../../src/core/format/report/rule-help.js";
import { RULE_DOCS } from "../../../src/core/rules/docs.js";
import { cleanup, makeDir, makeRepo } from "../../helpers/git-repo.js";
import { runCli } from "../../helpers/cli.js";

afterEach(() => {
  cleanup();
  vi.unstubAllEnvs();
});

const BROKEN = `apiVersion: playbook-bot/v1
id: broken
steps:
  - id: first
    type: comit
`;

function write(dir: string, rel: string, text: string): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

interface Location {
  physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string } };
}

async function sarifFrom(cwd: string, args: string[] = []) {
  const r = await runCli(["validate", ...args, "--format", "sarif"], cwd);
  expect(r.code).toBe(1);
  const run = JSON.parse(r.out).runs[0] as {
    originalUriBaseIds: Record<string, { uri: string }>;
    results: { ruleId: string; locations: Location[] }[];
  };
  return { run, uris: run.results.map((x) => x.locations[0]?.physicalLocation.artifactLocation) };
}

describe("validate --format sarif", () => {
  it("gives paths from the repository root, run from a subdirectory of it", async () => {
    const repo = makeRepo("pb-sarif-");
    write(repo, "ops/playbooks/bad.yaml", BROKEN);
    const { run, uris } = await sarifFrom(join(repo, "ops"), ["playbooks"]);
    expect(uris).toEqual([{ uri: "ops/playbooks/bad.yaml", uriBaseId: "%SRCROOT%" }]);
    expect(run.originalUriBaseIds["%SRCROOT%"]?.uri).toBe(
      `${pathToFileURL(realpathSync(repo)).href}/`,
    );
  });

  it("outside git, takes GITHUB_WORKSPACE as the root, else the working directory", async () => {
    const ws = makeDir("pb-sarif-ws-");
    write(ws, "team/playbooks/bad.yaml", BROKEN);
    vi.stubEnv("GITHUB_WORKSPACE", ws);
    expect((await sarifFrom(join(ws, "team"), ["playbooks"])).uris).toEqual([
      { uri: "team/playbooks/bad.yaml", uriBaseId: "%SRCROOT%" },
    ]);
    vi.stubEnv("GITHUB_WORKSPACE", "");
    expect((await sarifFrom(join(ws, "team"), ["playbooks"])).uris).toEqual([
      { uri: "playbooks/bad.yaml", uriBaseId: "%SRCROOT%" },
    ]);
  });

  it("names a file outside the repository by its absolute URL", async () => {
    const repo = makeRepo("pb-sarif-in-");
    const other = makeDir("pb-sarif-out-");
    write(other, "bad.yaml", BROKEN);
    const { uris } = await sarifFrom(repo, [join(other, "bad.yaml")]);
    expect(uris).toEqual([{ uri: pathToFileURL(realpathSync(join(other, "bad.yaml"))).href }]);
  });
});

describe("rules", () => {
  it("explains one rule: what, why, how to fix, an example and its page", async () => {
    const r = await runCli(["rules", "goto-unresolved"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("goto-unresolved (error, graph layer)\n\nA goto names no step.\n");
    expect(r.out).toContain(`Why: ${RULE_DOCS["goto-unresolved"].why}`);
    expect(r.out).toContain("How to fix: Name an existing step");
    expect(r.out).toContain("next: finsh");
    expect(r.out).toContain(
      "More: https://github.com/playbook-bot/playbook-bot/blob/main/docs/rules.md#goto-unresolved",
    );
  });

  it("says which rule was meant when the code is misspelt", async () => {
    const r = await runCli(["rules", "goto-unresolve"]);
    expect(r).toEqual({
      code: 2,
      out: "",
      err: "playbook-bot: no rule 'goto-unresolve' — did you mean 'goto-unresolved'? (playbook-bot rules lists them)\n",
    });
    const far = await runCli(["rules", "nothing-like-it"]);
    expect(far.err).toBe(
      "playbook-bot: no rule 'nothing-like-it' (playbook-bot rules lists them)\n",
    );
  });

  it("prints the rules page with --markdown", async () => {
    const r = await runCli(["rules", "--markdown"]);
    expect(r).toEqual({ code: 0, out: rulesMarkdown(), err: "" });
  });
});
