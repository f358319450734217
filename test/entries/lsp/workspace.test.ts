import { cpSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Diagnostic } from "../../../src/core/format/diagnostics.js";
import {
  isPlaybookText,
  libraryPlaybooks,
  servesFeatures,
  Workspace,
} from "../../../src/entries/lsp/workspace.js";
import { summaryOf } from "../../../src/core/editor/summary.js";
import { runCli } from "../../helpers/cli.js";
import { cleanup, makeDir, ROOT, write } from "../../helpers/git-repo.js";
import { CHILD, MAIN, repository } from "./fixtures.js";

afterEach(cleanup);

interface CliFile {
  file: string;
  diagnostics: Diagnostic[];
}

/**
 * What `playbook-bot validate -f json [args]` reports from `cwd`, by the absolute file each
 * diagnostic is in (a sidecar's are in the sidecar), every file validated listed.
 */
async function cliDiagnostics(cwd: string, args: string[] = []): Promise<Map<string, unknown[]>> {
  const r = await runCli(["validate", "-f", "json", ...args], cwd);
  const files = (JSON.parse(r.out) as { files: CliFile[] }).files;
  const out = new Map<string, unknown[]>(files.map((f) => [join(cwd, f.file), []]));
  for (const f of files)
    for (const d of f.diagnostics) {
      const file = join(cwd, d.file);
      out.set(file, [...(out.get(file) ?? []), d]);
    }
  return out;
}

function byFile(result: { diagnostics: Map<string, Diagnostic[]>; files: string[] }) {
  const out = new Map<string, Diagnostic[]>(result.files.map((f) => [f, []]));
  for (const [file, list] of result.diagnostics) out.set(file, list);
  return out;
}

const none = (): undefined => undefined;

describe("the workspace's playbook sets", () => {
  it("validates a repository's playbook folders as `playbook-bot validate` does", async () => {
    const dir = repository();
    write(dir, "playbooks/extra.yaml", CHILD.replace("id: child", "id: child"));
    const ws = new Workspace([dir], none);
    const set = ws.setOf(join(dir, ".github/playbooks/main.yaml"));
    expect(set).toMatchObject({ kind: "repository", root: dir });
    expect(ws.setOf(join(dir, "playbooks/extra.yaml"))?.key).toBe(set?.key);
    const result = await ws.validate(set!);
    expect(result.files.map((f) => relative(dir, f))).toEqual([
      ".github/playbooks/child.yaml",
      ".github/playbooks/main.yaml",
      "playbooks/extra.yaml",
    ]);
    // Same diagnostics, field for field, including the cross-file ones (a duplicate id here).
    expect(byFile(result)).toEqual(await cliDiagnostics(dir));
    expect(result.diagnostics.get(join(dir, "playbooks/extra.yaml"))?.map((d) => d.rule)).toEqual([
      "set-duplicate-id",
    ]);
    expect(result.playbooks.map((p) => p.id)).toEqual(["child", "main", "child"]);
    expect(result.playbooks[1]).toMatchObject({
      file: join(dir, ".github/playbooks/main.yaml"),
      inputs: ["package"],
      outputs: [],
      description: "Delegates to the child.",
      idSpan: { line: 2, column: 5 },
    });
    expect(result.ms).toBeGreaterThan(0);
  });

  it("validates an editor's text in place of the file's", async () => {
    const dir = repository();
    const child = join(dir, ".github/playbooks/child.yaml");
    const renamed = CHILD.replace("id: child", "id: kid");
    const ws = new Workspace([dir], (f) => (f === child ? renamed : undefined));
    const result = await ws.validate(ws.setOf(child)!);
    // The delegate in main now names a playbook the set does not have.
    const main = result.diagnostics.get(join(dir, ".github/playbooks/main.yaml")) ?? [];
    expect(main.map((d) => d.rule)).toContain("set-unresolved-playbook");
    write(dir, ".github/playbooks/child.yaml", renamed);
    expect(byFile(result)).toEqual(await cliDiagnostics(dir));
  });

  it("applies the root's config file, and says why when it cannot", async () => {
    const dir = repository();
    write(dir, ".playbook-bot.yml", "rules:\n  input-unused: error\n  step-no-description: off\n");
    const ws = new Workspace([dir], none);
    const set = ws.setOf(join(dir, ".github/playbooks/main.yaml"))!;
    const result = await ws.validate(set);
    expect(byFile(result)).toEqual(await cliDiagnostics(dir));
    const main = result.diagnostics.get(join(dir, ".github/playbooks/main.yaml")) ?? [];
    expect(main.find((d) => d.rule === "input-unused")?.severity).toBe("error");
    expect(main.some((d) => d.rule === "step-no-description")).toBe(false);
    expect(ws.affects(set, join(dir, ".playbook-bot.yml"))).toBe(true);

    write(dir, ".playbook-bot.yml", "rules:\n  no-such-rule: off\n");
    const broken = await ws.validate(set);
    expect(broken.configError).toMatch(/unknown rule 'no-such-rule'/);
    expect(
      broken.diagnostics.get(join(dir, ".github/playbooks/main.yaml"))?.map((d) => d.rule),
    ).toContain("step-no-description");
  });

  it("takes a playbook elsewhere with the playbooks of its folder, and nothing else", async () => {
    const dir = makeDir("pb-lsp-");
    const a = write(dir, "docs/flows/a.yaml", MAIN);
    write(dir, "docs/flows/sub/b.yaml", CHILD);
    write(dir, "docs/flows/compose.yaml", "services:\n  web:\n    image: nginx\n");
    const ws = new Workspace([dir], none);
    const set = ws.setOf(a)!;
    expect(set).toMatchObject({ kind: "folder", root: dir, dirs: [join(dir, "docs/flows")] });
    expect(ws.setOf(join(dir, "docs/flows/compose.yaml"))).toBeUndefined();
    expect(ws.setOf(join(dir, "docs/flows/missing.yaml"))).toBeUndefined();
    const result = await ws.validate(set);
    expect(result.files.map((f) => relative(dir, f))).toEqual([
      "docs/flows/a.yaml",
      "docs/flows/sub/b.yaml",
    ]);
    expect(byFile(result)).toEqual(
      await cliDiagnostics(dir, ["docs/flows/a.yaml", "docs/flows/sub/b.yaml"]),
    );
    // Outside every workspace root, the folder is the root.
    const outside = new Workspace([], none).setOf(a);
    expect(outside).toMatchObject({ root: join(dir, "docs/flows") });
    expect(ws.affects(set, join(dir, "docs/flows/sub/new.yaml"))).toBe(true);
    expect(ws.affects(set, join(dir, "docs/other.yaml"))).toBe(false);
  });

  it("validates an unsaved buffer alone", async () => {
    expect(Workspace.alone("untitled:1", "name: x\n")).toBeUndefined();
    const set = Workspace.alone("untitled:1", MAIN)!;
    const ws = new Workspace([], (f) => (f === "untitled:1" ? MAIN : undefined));
    const result = await ws.validate(set);
    expect(result.files).toEqual(["untitled:1"]);
    expect(result.diagnostics.get("untitled:1")?.map((d) => d.rule)).toEqual([
      "template-unresolved",
      "set-unresolved-playbook",
      "input-unused",
      "step-no-description",
    ]);
    expect(ws.affects(set, "untitled:1")).toBe(true);
    expect(ws.affects(set, "/elsewhere.yaml")).toBe(false);
  });

  it("reads another system's playbook with its sidecars, an editor's copy first", async () => {
    const dir = makeDir("pb-lsp-");
    const runbooks = join(ROOT, "test/fixtures/dialects/runbook/runbooks");
    const target = join(dir, ".github/playbooks");
    for (const f of ["yaml", "selector.json", "execution.json", "decision.json"])
      cpSync(join(runbooks, `state_abnormal.${f}`), join(target, `state_abnormal.${f}`));
    const selector = join(target, "state_abnormal.selector.json");
    const broken = readFileSync(selector, "utf8").replace('"weight": 2.5', '"weight": "x"');
    const ws = new Workspace([dir], (f) => (f === selector ? broken : undefined));
    expect(ws.setOf(selector)?.kind).toBe("repository");
    const result = await ws.validate(ws.setOf(join(target, "state_abnormal.yaml"))!);
    expect(result.diagnostics.get(selector)?.[0]).toMatchObject({
      rule: "dialect-invalid",
      line: 6,
    });
    write(dir, ".github/playbooks/state_abnormal.selector.json", broken);
    expect(byFile(result)).toEqual(await cliDiagnostics(dir));
  });

  it("knows the bundled library's playbooks, and which files editing features serve", async () => {
    const library = await libraryPlaybooks();
    const triage = library.find((p) => p.id === "alert-triage");
    expect(triage?.file).toBe(join(ROOT, "playbooks/alert-triage.yaml"));
    expect(triage?.idSpan?.line).toBeGreaterThan(0);
    expect(servesFeatures("/r/x.yaml", "id: x\n", true)).toBe(true);
    expect(servesFeatures("/r/x.yaml", "id: x\n", false)).toBe(false);
    expect(servesFeatures("/r/x.yml", MAIN, false)).toBe(true);
    expect(servesFeatures("/r/x.json", MAIN, true)).toBe(false);
    const triagent = "entrypoint: a\nnodes:\n  a: {}\nsymptom: slow\n";
    expect(servesFeatures("/r/x.yaml", triagent, true)).toBe(false);
    expect(isPlaybookText("/r/x.yaml", triagent)).toBe(true);
    expect(isPlaybookText("/r/x.txt", MAIN)).toBe(false);
    expect(summaryOf({ file: "x", text: "", diagnostics: [] }, "/x")).toBeUndefined();
  });
});
