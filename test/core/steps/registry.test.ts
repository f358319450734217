import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { STEP_KINDS } from "../../../src/core/format/schema.js";
import type { Step } from "../../../src/core/format/types.js";
import type { StepKindSchema } from "../../../src/core/steps/kind-schema.js";
import { STEP_KIND_FOLDERS } from "../../../src/core/steps/kinds.js";
import { STEP_KIND_SCHEMAS } from "../../../src/core/steps/schemas.js";
import { stepKindModules } from "../../../scripts/write-step-kinds.js";
import {
  actsAfterApproval,
  callsOf,
  canStopTheRun,
  findsUnforeseen,
  endsPlaybook,
  expectedFindingsOf,
  filesOfStep,
  hasSideEffects,
  outputsOfStep,
  playbooksOf,
  repoPathsOf,
  shapeProblemsOf,
  STEP_KIND_PLUGINS,
  stepKind,
  toolOfStep,
} from "../../../src/core/steps/registry.js";
import { defaultRegistry } from "../../../src/core/steps/executors.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const stepsDir = join(root, "src", "core", "steps");
// Every folder under src/core/steps/ is a kind's, but the lists written from ./kinds.ts.
const kindFolders = readdirSync(stepsDir, { withFileTypes: true })
  .filter((e) => e.isDirectory() && e.name !== "generated")
  .map((e) => e.name)
  .sort();

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : e.name.endsWith(".ts")
        ? [join(dir, e.name)]
        : [],
  );
}

const step = (s: Record<string, unknown>): Step => ({ id: "s", ...s }) as unknown as Step;

describe("the step kind registry", () => {
  it("lists each kind once in src/core/steps/kinds.ts, and every kind folder is listed", () => {
    expect([...STEP_KIND_FOLDERS].sort()).toEqual(kindFolders);
    expect(new Set(STEP_KIND_FOLDERS).size).toBe(STEP_KIND_FOLDERS.length);
  });

  it("has its generated lists as `npm run kinds:write` writes them from that one list", () => {
    for (const [path, text] of Object.entries(stepKindModules()))
      expect(readFileSync(join(stepsDir, path), "utf8"), `src/core/steps/${path}`).toBe(text);
  });

  it("makes a new kind's lines in all four lists from its folder and its one line", () => {
    const folders = [...STEP_KIND_FOLDERS, "wait_for_deploy"] as const;
    const fake: Record<string, string> = {
      "index.ts": "export const waitForDeployKind = {};",
      "executor.ts": "export const waitForDeployStep = {};",
      "schema.ts": "export const waitForDeploySchema = {};",
      "step.ts": "export interface WaitForDeployStep extends StepBase {}",
    };
    const read = (folder: string, file: string) =>
      folder === "wait_for_deploy"
        ? fake[file]!
        : readFileSync(join(stepsDir, folder, file), "utf8");
    const written = stepKindModules(read, folders);
    expect(written["generated/plugins.ts"]).toContain(
      'import { waitForDeployKind } from "../wait_for_deploy/index.js";',
    );
    expect(written["generated/plugins.ts"]).toContain("  waitForDeployKind,\n] as const;");
    expect(written["generated/executors.ts"]).toContain(
      'import { waitForDeployStep } from "../wait_for_deploy/executor.js";',
    );
    expect(written["generated/executors.ts"]).toContain("  waitForDeployStep,\n] as const;");
    expect(written["generated/schemas.ts"]).toContain("  waitForDeploySchema,\n] as const;");
    expect(written["generated/step.ts"]).toContain("  | WaitForDeployStep;");
    // A folder that does not export what the lists name is told what it lacks.
    fake["schema.ts"] = "export const schema = {};";
    expect(() => stepKindModules(read, folders)).toThrow(
      "src/core/steps/wait_for_deploy/schema.ts must export `waitForDeploySchema`",
    );
  });

  it("registers every kind folder once, under the folder's name", () => {
    const registered = STEP_KIND_PLUGINS.map((p) => p.kind);
    expect(new Set(registered).size).toBe(registered.length);
    expect([...registered].sort()).toEqual(kindFolders);
    for (const kind of kindFolders)
      expect(existsSync(join(stepsDir, kind, "index.ts")), `${kind}/index.ts`).toBe(true);
  });

  it("registers exactly the kinds the schema allows, and runs each with its own executor", () => {
    expect(STEP_KIND_PLUGINS.map((p) => p.kind).sort()).toEqual([...STEP_KINDS].sort());
    const executors = defaultRegistry();
    for (const plugin of STEP_KIND_PLUGINS)
      expect(executors.get(plugin.kind)?.kind, plugin.kind).toBe(plugin.kind);
    expect(stepKind("no_such_kind")).toBeUndefined();
  });

  it("names a kind's folder in its lists only: executors, format, and the format's Step type", () => {
    const importers = (file: string): string[] => {
      const folderImport = new RegExp(
        `["'][./]*(?:[\\w-]+/)*(${kindFolders.join("|")})/${file}\\.js["']`,
      );
      return sourceFiles(join(root, "src"))
        .filter((f) => folderImport.test(readFileSync(f, "utf8")))
        .map((f) => relative(root, f));
    };
    // Only the lists written from src/core/steps/kinds.ts name a kind's folder.
    expect(importers("index")).toEqual(["src/core/steps/generated/plugins.ts"]);
    // How a kind runs is the engine's: no rule, no part of the format and no kind's hooks import it.
    expect(
      importers("executor").filter((f) =>
        /^src\/core\/(rules|format)\/|^src\/core\/steps\/[^/]+\/(index|schema|checks)\.ts$/.test(f),
      ),
    ).toEqual([]);
    expect(importers("executor")).toContain("src/core/steps/generated/executors.ts");
    expect(importers("schema")).toEqual(["src/core/steps/generated/schemas.ts"]);
    expect(importers("step")).toEqual(["src/core/steps/generated/step.ts"]);
    for (const kind of kindFolders)
      for (const file of ["schema.ts", "step.ts"])
        expect(existsSync(join(stepsDir, kind, file)), `${kind}/${file}`).toBe(true);
  });

  it("keeps each kind's format side free of executors (the format imports it)", () => {
    const allowed = new Set([
      "../../format/schema-docs.js",
      "../../format/schema-parts.js",
      "../kind-schema.js",
    ]);
    for (const kind of kindFolders) {
      const text = readFileSync(join(stepsDir, kind, "schema.ts"), "utf8");
      const imported = [...text.matchAll(/from\s+"([^"]+)"/g)].map((m) => m[1]);
      expect(imported.length, `${kind}/schema.ts imports`).toBeGreaterThan(0);
      expect(
        imported.filter((i) => !allowed.has(i as string)),
        `${kind}/schema.ts`,
      ).toEqual([]);
    }
  });

  it("keeps each kind's fragment consistent with its name", () => {
    expect(STEP_KIND_SCHEMAS.map((f) => f.kind)).toEqual(kindFolders);
    const orders = STEP_KIND_SCHEMAS.map((f) => f.snippet.order);
    expect(new Set(orders).size).toBe(orders.length);
    for (const fragment of STEP_KIND_SCHEMAS) {
      const { kind, snippet, required, fields, graph } = fragment as StepKindSchema;
      // The snippet makes a step of this kind, and what it requires is among its fields.
      expect(snippet.body.type, `${kind} snippet`).toBe(kind);
      for (const field of required ?? []) expect(fields, `${kind}.${field}`).toHaveProperty(field);
      // What a next on a terminal step is told needs a way to know the step is terminal.
      if (graph?.terminalNext) expect(graph.terminal, `${kind}.terminal`).toBeTypeOf("function");
    }
  });

  it("keeps each kind's hooks consistent", () => {
    for (const plugin of STEP_KIND_PLUGINS) {
      const kind = plugin.kind;
      // Outputs that depend on the step need a hook to say them, or a place that knows (a child).
      if (plugin.outputs === null && kind !== "playbook")
        expect(plugin.outputsOf, `${kind}.outputsOf`).toBeTypeOf("function");
      // A step that changes something names the tool it changes it with in a run's trace.
      if (plugin.sideEffect) expect(plugin.tool, `${kind}.tool`).toBeTypeOf("function");
      // Only a step answered with an approval has approvers.
      if (plugin.approvers) expect(plugin.answeredWith, `${kind}.answeredWith`).toBe("approval");
      if (plugin.diagramNode) {
        expect(plugin.diagramNode.open.length).toBeGreaterThan(0);
        expect(plugin.diagramNode.close.length).toBeGreaterThan(0);
      }
    }
  });

  it("answers for a step from its kind's folder", () => {
    expect(outputsOfStep(step({ type: "comment", body: "x" }))).toEqual(["id", "url"]);
    expect(
      outputsOfStep(step({ type: "checkpoint", response_schema: { properties: { reason: {} } } })),
    ).toEqual(["approved_by", "note", "reason"]);
    expect(
      outputsOfStep(
        step({ type: "investigate", suggested_calls: [{ tool: "a/b", outputs: { pods: "x" } }] }),
      ),
    ).toEqual(["results", "chosen", "pods"]);
    expect(outputsOfStep(step({ type: "playbook", playbook: "child" }))).toBeNull();

    expect(hasSideEffects(step({ type: "commit" }))).toBe(true);
    expect(hasSideEffects(step({ type: "decide" }))).toBe(false);
    expect(toolOfStep(step({ type: "commit" }))).toBe("git");
    expect(toolOfStep(step({ type: "ai", tools: ["k/get", "k/get", "k/logs"] }))).toBe(
      "ai(k/get,k/logs)",
    );
    expect(toolOfStep(step({ type: "decide" }))).toBeUndefined();

    expect(
      filesOfStep(
        step({
          type: "commit",
          files: [
            { path: "a", content: "x" },
            { path: "b", template: "t.md" },
          ],
        }),
      ),
    ).toEqual([{ rel: "t.md", at: ["files", 1, "template"] }]);
    expect(filesOfStep(step({ type: "ai", prompt_file: "p.md" }))).toEqual([
      { rel: "p.md", at: ["prompt_file"] },
    ]);
    expect(repoPathsOf(step({ type: "commit", paths: ["docs/*"] }))).toEqual([
      {
        path: "docs/*",
        at: ["paths", 0],
        hint: "write globs relative to the repository root",
        glob: true,
      },
    ]);
    expect(repoPathsOf(step({ type: "label", add: ["x"] }))).toEqual([]);
    expect(expectedFindingsOf(step({ type: "investigate", expected_findings: ["f"] }))).toEqual([
      "f",
    ]);

    expect(playbooksOf(step({ type: "end", handoff: ["next"] }))).toEqual(["next"]);
    expect(callsOf(step({ type: "end", handoff: ["a", "b"] }))).toEqual([
      { target: "a", kind: "handoff", at: ["handoff", 0] },
      { target: "b", kind: "handoff", at: ["handoff", 1] },
    ]);
    expect(
      callsOf(step({ type: "playbook", playbook: "c", mode: "delegate", with: { x: "1" } })),
    ).toEqual([{ target: "c", kind: "delegate", at: ["playbook"], with: { x: "1" } }]);
    expect(callsOf(step({ type: "comment", body: "x" }))).toEqual([]);

    const calls = (run: string) => [{ tool: "k/get" }, { tool: "k/logs", run }];
    expect(findsUnforeseen(step({ type: "investigate", suggested_calls: calls("auto") }))).toBe(
      true,
    );
    expect(findsUnforeseen(step({ type: "investigate", suggested_calls: calls("suggest") }))).toBe(
      false,
    );
    expect(findsUnforeseen(step({ type: "comment", body: "x" }))).toBe(false);
    expect(endsPlaybook(step({ type: "end" }))).toBe(true);
    expect(endsPlaybook(step({ type: "playbook", playbook: "c", mode: "handoff" }))).toBe(true);
    expect(endsPlaybook(step({ type: "playbook", playbook: "c", mode: "delegate" }))).toBe(false);

    expect(canStopTheRun(step({ type: "pull_request", wait: "merged" }))).toBe(true);
    expect(canStopTheRun(step({ type: "pull_request" }))).toBe(false);
    expect(canStopTheRun(step({ type: "comment", timeout: "1h" }))).toBe(true);

    expect(stepKind("checkpoint")?.answeredWith).toBe("approval");
    expect(
      stepKind("checkpoint")?.approvers?.(step({ type: "checkpoint", approvers: { count: 2 } })),
    ).toEqual({ count: 2 });
    expect(stepKind("investigate")?.answeredWith).toBe("findings");
    expect(actsAfterApproval(step({ type: "ai", scope: "write" }))).toBe(true);
    expect(actsAfterApproval(step({ type: "ai", scope: "read-only" }))).toBe(false);
    expect(actsAfterApproval(step({ type: "commit" }))).toBe(false);
    expect(stepKind("comment")?.answeredWith).toBeUndefined();

    expect(shapeProblemsOf(step({ type: "label" }))).toEqual([
      { at: [], message: "a label step needs add: or remove:", hint: "add add: [label]" },
    ]);
    expect(shapeProblemsOf(step({ type: "label", add: ["x"] }))).toEqual([]);
  });
});

// Per-kind switches that are still outside the kinds' folders, by file: the count may only fall.
// (Some name an effect's kind or a fork's, not a step's; both read the same to this check.)
const KIND_TESTS_LEFT: Record<string, number> = {
  "src/adapters/local/playbook-tests.ts": 7,
  "src/core/dialects/catalyst/yaml.ts": 1,
  "src/core/dialects/triagent/dialect.ts": 2,
  "src/core/engine/engine.ts": 1,
  "src/core/engine/render.ts": 1,
  "src/core/systematise/draft.ts": 1,
  "src/core/systematise/from-state.ts": 1,
  "src/core/systematise/improve.ts": 3,
  "src/core/trace/build.ts": 3,
  "src/entries/cli/local-playbooks.ts": 1,
  "src/entries/cli/runner.ts": 2,
  "src/runtime/run-service/controller.ts": 2,
  "src/runtime/run-service/status-comment.ts": 1,
  "src/runtime/run-service/systematise.ts": 1,
};

describe("switches on a step's kind outside src/core/steps", () => {
  it("do not grow: a kind's new piece goes in its folder, behind a hook the registry exposes", () => {
    const test = new RegExp(
      `(?:\\btype\\s*===\\s*|\\bcase\\s+)"(?:${kindFolders.join("|")})"`,
      "g",
    );
    const grown: string[] = [];
    for (const file of sourceFiles(join(root, "src"))) {
      const rel = relative(root, file);
      if (rel.startsWith("src/core/steps/")) continue;
      const n = readFileSync(file, "utf8").match(test)?.length ?? 0;
      if (n > (KIND_TESTS_LEFT[rel] ?? 0))
        grown.push(`${rel}: ${n} (at most ${KIND_TESTS_LEFT[rel] ?? 0})`);
    }
    expect(grown).toEqual([]);
  });
});
