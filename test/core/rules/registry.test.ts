import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { PlaybookGraph } from "../../../src/core/format/graph.js";
import { loadSourceText } from "../../../src/core/format/source.js";
// The index first: rule modules are loaded through it (see its comment).
import { RULE_MODULES } from "../../../src/core/rules/index.js";
import {
  declaredRules,
  RULE_CODES,
  RULES,
  type RuleCode,
} from "../../../src/core/rules/catalogue.js";
import { jsonSchema } from "../../../src/core/rules/schema/json-schema.js";
import { yamlSource } from "../../../src/core/rules/syntax/yaml-source.js";
import { runFileRules, validateSource } from "../../../src/core/rules/validate.js";
import type { SetMember } from "../../../src/core/rules/analysis/set.js";

const ROOT = join(import.meta.dirname, "../../..");
const LAYER_FOLDERS = ["syntax", "schema", "graph", "templates", "set", "style"];
/** Folders that group one feature's rules, whatever their layers (single-file ones). */
const FEATURE_FOLDERS = ["dag"];

type RuleModule = (typeof RULE_MODULES)[number];

function filesUnder(dir: string, keep: (file: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path, keep);
    return keep(path) ? [path] : [];
  });
}

/**
 * Where rule modules live: src/core/rules/<layer>/*.ts, src/core/rules/<feature>/*.ts and
 * src/core/steps/<kind>/checks.ts.
 */
function ruleModuleFiles(): string[] {
  const rules = join(ROOT, "src/core/rules");
  return [
    ...[...LAYER_FOLDERS, ...FEATURE_FOLDERS].flatMap((folder) =>
      filesUnder(join(rules, folder), (f) => f.endsWith(".ts")),
    ),
    ...filesUnder(join(ROOT, "src/core/steps"), (f) => basename(f) === "checks.ts"),
  ];
}

function isRuleModule(value: unknown): value is RuleModule {
  if (!value || typeof value !== "object") return false;
  const v = value as Record<string, unknown>;
  return typeof v.check === "function" && (typeof v.code === "string" || Array.isArray(v.rules));
}

/** Every rule object each module file exports, by file (relative to the repository). */
async function exportedRules(): Promise<Map<string, RuleModule[]>> {
  const out = new Map<string, RuleModule[]>();
  for (const file of ruleModuleFiles()) {
    const exports = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
    out.set(relative(ROOT, file), Object.values(exports).filter(isRuleModule));
  }
  return out;
}

/** Playbooks to run the rules over: the broken fixtures, the bundled library, the examples, and the documents the tests write inline. */
function corpus(): { file: string; text: string }[] {
  const yamlFiles = ["test/fixtures/playbooks", "playbooks", "examples"].flatMap((dir) =>
    filesUnder(join(ROOT, dir), (f) => /\.ya?ml$/.test(f)),
  );
  const out = yamlFiles.map((f) => ({ file: relative(ROOT, f), text: readFileSync(f, "utf8") }));
  for (const f of filesUnder(join(ROOT, "test/core"), (p) => p.endsWith(".test.ts"))) {
    const source = readFileSync(f, "utf8");
    let n = 0;
    for (const m of source.matchAll(/yaml`([^`$]*)`/g))
      out.push({ file: `${relative(ROOT, f)}#${n++}`, text: dedent(m[1] as string) });
  }
  return out;
}

/** The tests' `yaml` tag: drop the first newline and the common indentation. */
function dedent(raw: string): string {
  const lines = raw
    .replace(/^\n/, "")
    .replace(/\n[ ]*$/, "\n")
    .split("\n");
  const cut = Math.min(
    ...lines.filter((l) => l.trim() !== "").map((l) => /^ */.exec(l)?.[0].length ?? 0),
  );
  return lines.map((l) => l.slice(cut)).join("\n");
}

describe("the rule registry", () => {
  it("declares every catalogue code in exactly one registered module", () => {
    const declared = RULE_MODULES.flatMap((m) => declaredRules(m).map((r) => r.code));
    expect([...declared].sort()).toEqual([...RULE_CODES].sort());
    expect(new Set(declared).size).toBe(declared.length);
  });

  it("builds the catalogue from the modules, in registration order", () => {
    const declared = RULE_MODULES.flatMap((m) => declaredRules(m));
    expect(RULE_CODES).toEqual(declared.map((r) => r.code));
    for (const r of declared) {
      expect(RULES[r.code]).toEqual({
        layer: r.layer,
        severity: r.severity,
        summary: r.summary,
        ...(r.guidance === undefined ? {} : { guidance: r.guidance }),
      });
    }
    // Only what the listing, configs and reports read: no checks in the catalogue.
    expect(Object.values(RULES).every((info) => !("check" in info))).toBe(true);
  });

  it("registers every rule module, and each registered rule lives in a module file", async () => {
    const byFile = await exportedRules();
    const exported = [...byFile.values()].flat();
    for (const [file, rules] of byFile) {
      expect(rules.length, `${file} exports no rule`).toBeGreaterThan(0);
      for (const rule of rules)
        expect(RULE_MODULES as readonly unknown[], `${file} is not in the index`).toContain(rule);
    }
    for (const module of RULE_MODULES) expect(exported).toContain(module);
  });

  it("loads no rule module through the catalogue (the catalogue loads them)", () => {
    const rules = join(ROOT, "src/core/rules");
    const drivers = ["catalogue.ts", "index.ts", "validate.ts"].map((f) => join(rules, f));
    const modules = [
      ...filesUnder(rules, (f) => f.endsWith(".ts") && !drivers.includes(f)),
      ...ruleModuleFiles().filter((f) => !f.startsWith(rules)),
    ];
    for (const file of modules) {
      const source = readFileSync(file, "utf8");
      const runtime = [...source.matchAll(/^import (?!type )[^;]*? from "([^"]+)";/gms)].map(
        (m) => m[1] as string,
      );
      const back = runtime.filter((spec) =>
        /(format\/diagnostics|rules\/catalogue|\.\/catalogue|rules\/index|\.\/index|validate)\.js$/.test(
          spec,
        ),
      );
      expect(back, relative(ROOT, file)).toEqual([]);
    }
  });

  it("keeps one rule per module, named by its code and filed under its layer", async () => {
    for (const [file, rules] of await exportedRules()) {
      if (basename(file) === "checks.ts") {
        // A step kind's own checks: src/core/steps/<kind>/checks.ts, single-code rules.
        for (const rule of rules) expect("code" in rule, file).toBe(true);
        continue;
      }
      expect(rules, file).toHaveLength(1);
      const rule = rules[0] as RuleModule;
      const layers = declaredRules(rule).map((r) => r.layer);
      expect(new Set(layers).size, file).toBe(1);
      if (FEATURE_FOLDERS.includes(basename(dirname(file))))
        expect(["graph", "templates", "style"], file).toContain(layers[0]);
      else expect(basename(dirname(file)), file).toBe(layers[0]);
      if ("code" in rule) expect(basename(file, ".ts")).toBe(rule.code);
    }
  });

  it("lets every module emit only the codes it declares (over the fixtures, the library and the tests' documents)", () => {
    const emitted = new Map<RuleCode, number>();
    const check = (
      module: { code: string } | { rules: readonly { code: string }[] },
      codes: readonly string[],
      where: string,
    ): void => {
      const declared = "rules" in module ? module.rules.map((r) => r.code) : [module.code];
      for (const code of codes) {
        expect(declared, `${where}: ${code}`).toContain(code);
        emitted.set(code as RuleCode, (emitted.get(code as RuleCode) ?? 0) + 1);
      }
    };
    const members: SetMember[] = [];
    for (const { file, text } of corpus()) {
      const loaded = loadSourceText(file, text);
      if (!loaded.ok) {
        check(
          yamlSource,
          yamlSource.check(loaded.problems).map((d) => d.rule),
          file,
        );
        continue;
      }
      const schema = jsonSchema.check(loaded.document);
      check(
        jsonSchema,
        schema.map((d) => d.rule),
        file,
      );
      if (schema.length > 0) continue;
      const doc = loaded.document;
      const playbook = doc.value as SetMember["playbook"];
      members.push({ doc, playbook });
      const graph = new PlaybookGraph(playbook);
      for (const { rule, found } of runFileRules({ doc, playbook, graph, fileExists: () => false }))
        check(
          rule,
          found.map((d) => d.rule),
          file,
        );
    }
    for (const module of RULE_MODULES)
      if ("code" in module && module.layer === "set")
        check(
          module,
          module.check({ members, known: [] }).map((f) => f.d.rule),
          "the corpus as one set",
        );
    // The corpus exercises the rules: most codes fire somewhere in it.
    expect(emitted.size).toBeGreaterThan(RULE_CODES.length * 0.75);
  });
});

describe("running the rules", () => {
  it("runs each single-file rule once, in registration order", () => {
    const report = validateSource(
      "pb.yaml",
      "apiVersion: playbook-bot/v1\nid: t\nsteps:\n  - { id: a, type: end, name: A }\n",
    );
    const { doc, playbook } = report;
    if (!doc || !playbook) throw new Error("expected a valid playbook");
    const ran = runFileRules({ doc, playbook, graph: new PlaybookGraph(playbook) });
    const fileRules = RULE_MODULES.filter((m) => "code" in m && m.layer !== "set");
    expect(ran.map((r) => r.rule)).toEqual(fileRules);
    expect(ran.flatMap((r) => r.found)).toEqual([]);
  });

  it("checks references in the same run as the graph, but order over a sound graph only", () => {
    const text = [
      "apiVersion: playbook-bot/v1",
      "id: t",
      "steps:",
      "  - { id: a, type: comment, name: A, body: '{{ inputs.nope }}', next: gone }",
      "  - { id: b, type: end, name: B }",
    ].join("\n");
    const rules = (t: string): string[] =>
      validateSource("pb.yaml", t).diagnostics.map((d) => d.rule);
    // One run names both; b is not called unreachable while a's next, which may have meant b, is gone.
    expect(rules(text).sort()).toEqual(["goto-unresolved", "template-unresolved"]);
    expect(rules(text.replace("next: gone", "next: b"))).toEqual(["template-unresolved"]);
    // What depends on the order of steps waits for a sound graph.
    const order = text
      .replace("'{{ inputs.nope }}'", "'{{ steps.b.outputs.x }}'")
      .replace("next: gone", "next: b");
    expect(rules(order)).toContain("template-unresolved");
  });

  it("reports every layer of a file in one run, each finding once, no consequence as a cause", () => {
    const text = [
      "apiVersion: playbook-bot/v1",
      "id: t",
      "description: errors in every layer",
      "steps:",
      "  - { id: a, type: comment, name: A, body: '{{ inputs.nope }}', next: missing }",
      "  - { id: b, type: checkpoint, name: B, bogus: 1, timeout: soon }",
      "  - { id: b, type: decide, name: B2, rules: 5 }",
      "  - { id: c, type: end, name: C, next: a }",
    ].join("\n");
    const found = validateSource("pb.yaml", text).diagnostics.map((d) => `${d.path} ${d.rule}`);
    expect(found.sort()).toEqual(
      [
        "steps[0].body template-unresolved",
        "steps[0].next goto-unresolved",
        "steps[1] schema-missing-field",
        "steps[1].bogus schema-unknown-field",
        "steps[1].timeout schema-format",
        "steps[2].id step-duplicate-id",
        "steps[2].rules schema-type",
        "steps[3].next handoff-not-terminal",
      ].sort(),
    );
  });

  it("judges cycles and reachability only over the whole graph: not past a repeated id", () => {
    const text = [
      "apiVersion: playbook-bot/v1",
      "id: t",
      "steps:",
      "  - { id: a, type: comment, name: A, body: x, next: b }",
      "  - { id: b, type: comment, name: B, body: y, next: a }",
      "  - { id: b, type: end, name: End }",
    ].join("\n");
    const rules = validateSource("pb.yaml", text).diagnostics.map((d) => d.rule);
    expect(rules).toEqual(["step-duplicate-id"]);
  });

  it("skips the graph rules when the playbook has both steps and nodes, and says only that", () => {
    const text = [
      "apiVersion: playbook-bot/v1",
      "id: t",
      "steps:",
      "  - { id: a, type: comment, body: x, next: nowhere }",
      "nodes:",
      "  b: { type: comment, body: y, next: elsewhere }",
    ].join("\n");
    const graphCodes = validateSource("pb.yaml", text)
      .diagnostics.filter((d) => RULES[d.rule].layer === "graph")
      .map((d) => d.rule);
    expect(graphCodes).toEqual(["steps-and-nodes"]);
  });
});
