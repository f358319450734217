import { describe, expect, it } from "vitest";
import {
  bundleHash,
  bundleOf,
  joinRelative,
  resolveTiers,
  stepFileRefs,
  type Tier,
} from "../../../src/runtime/tiers.js";
import { validateSource } from "../../../src/core/rules/validate.js";

const pb = (id: string, extra = "", steps = "") => `apiVersion: playbook-bot/v1
id: ${id}
description: Playbook ${id}.
${extra}steps:
${steps}  - id: done
    type: end
    description: Finish.
`;

const WITH_FILES = pb(
  "writer",
  "",
  `  - id: b
    type: branch
    description: Branch.
    name: playbook/w
  - id: c
    type: commit
    description: Commit.
    branch: playbook/w
    message: m
    files:
      - { path: a.md, template: templates/a.md }
      - { path: b.md, content: inline }
  - id: think
    type: ai
    description: Think.
    prompt_file: prompts/think.md
`,
);

/** A tier from a map of file → text; `read` finds files relative to the playbook. */
function tier(files: Record<string, string>, commit?: string): Tier & { reads: string[] } {
  const reads: string[] = [];
  const t: Tier & { reads: string[] } = {
    files: Object.entries(files)
      .filter(([f]) => f.endsWith(".yaml"))
      .map(([file, source]) => ({ file, source })),
    read: (file, rel) => {
      const path = joinRelative(file, rel);
      reads.push(path);
      return files[path];
    },
    reads,
  };
  if (commit !== undefined) t.commit = commit;
  return t;
}

describe("joinRelative", () => {
  it("resolves a path next to the playbook, normalised, with '/' separators", () => {
    expect(joinRelative(".github/playbooks/a.yaml", "templates/x.md")).toBe(
      ".github/playbooks/templates/x.md",
    );
    expect(joinRelative(".github/playbooks/a.yaml", "./x/../y.md")).toBe(".github/playbooks/y.md");
    expect(joinRelative(".github/playbooks/a.yaml", "../shared/t.md")).toBe(".github/shared/t.md");
    expect(joinRelative("a.yaml", "t.md")).toBe("t.md");
  });
});

describe("stepFileRefs", () => {
  it("lists commit templates and AI prompt files, not inline content", () => {
    const r = validateSource("w.yaml", WITH_FILES, { fileExists: () => true });
    expect(r.playbook).toBeDefined();
    expect(stepFileRefs(r.playbook as NonNullable<typeof r.playbook>)).toEqual([
      "templates/a.md",
      "prompts/think.md",
    ]);
  });

  it("lists nothing for a commit of local paths", () => {
    const text = pb(
      "local",
      "",
      `  - id: c
    type: commit
    description: Commit the working tree.
    branch: main
    message: m
    paths: ["docs/**"]
`,
    );
    const r = validateSource("l.yaml", text);
    expect(r.playbook).toBeDefined();
    expect(stepFileRefs(r.playbook as NonNullable<typeof r.playbook>)).toEqual([]);
  });
});

describe("bundleOf", () => {
  it("bundles a valid playbook with the files its steps read, hashed with its source", () => {
    const files = { "templates/a.md": "A", "prompts/think.md": "P" };
    const r = validateSource("w.yaml", WITH_FILES, { fileExists: () => true });
    const b = bundleOf(r, (_file, rel) => files[rel as keyof typeof files]);
    expect(b?.files).toEqual(files);
    expect(b?.hash).toBe(bundleHash(WITH_FILES, files));
    expect(b?.file).toBe("w.yaml");
    expect(b?.source).toBe(WITH_FILES);
    expect(b && "commit" in b).toBe(false);
    expect(bundleOf(r, () => "x", "c0ffee")?.commit).toBe("c0ffee");
  });

  it("leaves out a file the reader cannot find, which changes the hash", () => {
    const r = validateSource("w.yaml", WITH_FILES, { fileExists: () => true });
    const b = bundleOf(r, (_f, rel) => (rel === "templates/a.md" ? "A" : undefined));
    expect(b?.files).toEqual({ "templates/a.md": "A" });
    expect(b?.hash).not.toBe(
      bundleHash(WITH_FILES, { "templates/a.md": "A", "prompts/think.md": "" }),
    );
  });

  it("bundles nothing for a playbook with errors, or one that did not parse", () => {
    const broken = validateSource("b.yaml", pb("b").replace("type: end", "type: ending"));
    expect(broken.diagnostics.some((d) => d.severity === "error")).toBe(true);
    expect(bundleOf(broken, () => "")).toBeUndefined();
    expect(bundleOf(validateSource("x.yaml", "id: [\n"), () => "")).toBeUndefined();
  });

  it("bundles a playbook that has only warnings", () => {
    const warned = validateSource("w.yaml", pb("w").replace("    description: Finish.\n", ""));
    expect(warned.diagnostics.map((d) => d.severity)).toEqual(["warning"]);
    expect(bundleOf(warned, () => undefined)?.playbook.id).toBe("w");
  });
});

describe("bundleHash", () => {
  it("changes with the source and with any file, and is stable", () => {
    const h = bundleHash("s", { a: "1" });
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(bundleHash("s", { a: "1" })).toBe(h);
    expect(bundleHash("s2", { a: "1" })).not.toBe(h);
    expect(bundleHash("s", { a: "2" })).not.toBe(h);
    expect(bundleHash("s", {})).not.toBe(h);
  });
});

describe("resolveTiers", () => {
  it("takes an id from the nearest tier that defines it", () => {
    const repo = tier({ ".github/playbooks/x.yaml": pb("x", "name: Repo X\n") }, "repo-sha");
    const org = tier(
      { ".github/playbooks/x.yaml": pb("x", "name: Org X\n"), ".github/playbooks/y.yaml": pb("y") },
      "org-sha",
    );
    const { bundles, reports } = resolveTiers([repo, org]);
    expect(bundles.get("x")?.playbook.name).toBe("Repo X");
    expect(bundles.get("x")?.commit).toBe("repo-sha");
    expect(bundles.get("y")?.commit).toBe("org-sha");
    expect([...bundles.keys()].sort()).toEqual(["x", "y"]);
    // Every file is reported, nearest tier first.
    expect(reports.map((r) => r.file)).toEqual([
      ".github/playbooks/x.yaml",
      ".github/playbooks/x.yaml",
      ".github/playbooks/y.yaml",
    ]);
    expect(reports[0]?.playbook?.name).toBe("Repo X");
  });

  it("lets a nearer tier disable a farther tier's playbook with active: false", () => {
    const repo = tier({ "r/x.yaml": pb("x", "active: false\n") });
    const bundled = tier({ "b/x.yaml": pb("x"), "b/z.yaml": pb("z") });
    const { bundles } = resolveTiers([repo, bundled]);
    expect(bundles.has("x")).toBe(false);
    expect(bundles.has("z")).toBe(true);
  });

  it("keeps a system playbook: a nearer tier that redefines or disables it is reported, not used", () => {
    const system = tier({ "b/alert-triage.yaml": pb("alert-triage", "name: System\n") });
    system.locked = new Set(["alert-triage"]);
    for (const extra of ["name: Mine\n", "active: false\n"]) {
      const repo = tier({ "r/mine.yaml": pb("alert-triage", extra) });
      const { bundles, reports } = resolveTiers([repo, system]);
      expect(bundles.get("alert-triage")?.playbook.name).toBe("System");
      const mine = reports.find((r) => r.file === "r/mine.yaml");
      expect(mine?.diagnostics.map((d) => [d.rule, d.line])).toEqual([["set-locked-id", 2]]);
    }
  });

  it("does not let a farther tier's playbook run in place of a nearer file with errors", () => {
    // Meant to disable x, but a typo makes the file invalid: x must not run silently instead.
    const repo = tier({ "r/x.yaml": pb("x", "active: false\nnmae: typo\n") });
    const bundled = tier({ "b/x.yaml": pb("x"), "b/z.yaml": pb("z") });
    const { bundles, reports } = resolveTiers([repo, bundled]);
    expect(bundles.has("x")).toBe(false);
    expect(bundles.has("z")).toBe(true);
    expect(reports[0]?.diagnostics.map((d) => d.rule)).toContain("schema-unknown-field");
  });

  it("loads a dialect file with its sidecars from the same tier", () => {
    const triagent = `id: db-slow
symptom: queries are slow
description: Look at the database.
entrypoint: check
nodes:
  check:
    description: Check the pool.
    terminal_advice: Raise the pool size.
`;
    const t = tier({});
    t.files.push({ file: "r/db-slow.yaml", source: triagent });
    const { bundles, reports } = resolveTiers([t]);
    expect(reports[0]?.dialect).toBe("triagent");
    expect(bundles.get("db-slow")?.playbook.apiVersion).toBe("playbook-bot/v1");
  });

  it("lets a nearer playbook delegate to a farther one; not the other way round", () => {
    const delegating = (id: string, target: string) =>
      pb(
        id,
        "",
        `  - id: sub
    type: playbook
    description: Delegate.
    playbook: ${target}
    mode: delegate
`,
      );
    const repo = tier({ "r/parent.yaml": delegating("parent", "child") });
    const lib = tier({ "b/child.yaml": pb("child") });
    const ok = resolveTiers([repo, lib]);
    expect(ok.bundles.has("parent")).toBe(true);
    expect(ok.reports[0]?.diagnostics.filter((d) => d.severity === "error")).toEqual([]);

    const up = resolveTiers([
      tier({ "r/child.yaml": pb("child") }),
      tier({ "b/parent.yaml": delegating("parent", "child") }),
    ]);
    expect(up.bundles.has("parent")).toBe(false);
    const parentReport = up.reports.find((r) => r.file === "b/parent.yaml");
    expect(parentReport?.diagnostics.map((d) => d.rule)).toContain("set-unresolved-playbook");
  });

  it("reads step files through the tier, relative to the playbook", () => {
    const repo = tier({
      ".github/playbooks/w.yaml": WITH_FILES,
      ".github/playbooks/templates/a.md": "A",
      ".github/playbooks/prompts/think.md": "P",
    });
    const { bundles } = resolveTiers([repo]);
    expect(bundles.get("writer")?.files).toEqual({
      "templates/a.md": "A",
      "prompts/think.md": "P",
    });
    expect(repo.reads).toContain(".github/playbooks/templates/a.md");
  });

  it("reports a step file missing from the tier as an error, and bundles nothing", () => {
    const repo = tier({
      ".github/playbooks/w.yaml": WITH_FILES,
      ".github/playbooks/templates/a.md": "A",
    });
    const { bundles, reports } = resolveTiers([repo]);
    expect(bundles.size).toBe(0);
    expect(
      reports[0]?.diagnostics.some(
        (d) => d.severity === "error" && d.message.includes("prompts/think.md"),
      ),
    ).toBe(true);
  });

  it("serves the first of two files with one id in a tier and reports the second", () => {
    const repo = tier({ "r/a.yaml": pb("same"), "r/b.yaml": pb("same") });
    const { bundles, reports } = resolveTiers([repo]);
    expect(reports.map((r) => [r.file, r.diagnostics.map((d) => d.rule)])).toEqual([
      ["r/a.yaml", []],
      ["r/b.yaml", ["set-duplicate-id"]],
    ]);
    expect(bundles.get("same")?.file).toBe("r/a.yaml");
  });

  it("reports a file that does not parse and still serves the rest of its tier", () => {
    const lib = tier({ "b/bad.yaml": "id: [\n", "b/ok.yaml": pb("ok") });
    const { bundles, reports } = resolveTiers([tier({ "r/mine.yaml": pb("mine") }), lib]);
    expect([...bundles.keys()].sort()).toEqual(["mine", "ok"]);
    const bad = reports.find((r) => r.file === "b/bad.yaml");
    expect(bad?.playbook).toBeUndefined();
    expect(bad?.diagnostics.map((d) => d.rule)).toEqual(["yaml-syntax"]);
  });

  it("resolves no tiers to an empty catalogue", () => {
    expect(resolveTiers([])).toEqual({ bundles: new Map(), reports: [] });
  });
});
