import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  bundledLibraryDir,
  bundledPlaybooks,
  fileExistsNextTo,
  loadBundledReports,
  playbookFilesIn,
} from "../../../src/adapters/local/library.js";
import { validateSet } from "../../../src/core/rules/validate.js";

describe("bundled playbooks", () => {
  it("are found under playbooks/, templates excluded", async () => {
    const files = await playbookFilesIn(bundledLibraryDir());
    expect(files.map((f) => f.slice(bundledLibraryDir().length + 1))).toEqual([
      "alert-high-error-rate.yaml",
      "alert-triage.yaml",
      "dependency-bump.yaml",
      "hello-world.yaml",
      "parallel-checks.yaml",
      "recent-changes.yaml",
      "release-dag.yaml",
      "service-triage.yaml",
      "storage-investigation.yaml",
    ]);
  });

  it("validate clean as a set, with file checks", async () => {
    const files = await playbookFilesIn(bundledLibraryDir());
    const reports = validateSet(
      files.map((file) => ({ file, source: readFileSync(file, "utf8") })),
      { fileExists: (file, rel) => fileExistsNextTo(file, rel, bundledLibraryDir()) },
    );
    expect(reports.flatMap((r) => r.diagnostics)).toEqual([]);
    expect(reports.every((r) => r.playbook !== undefined)).toBe(true);
  });

  it("are loaded once and offered as known playbooks", async () => {
    const a = loadBundledReports();
    expect(loadBundledReports()).toBe(a);
    const known = await bundledPlaybooks();
    expect(known.map((k) => k.id).sort()).toEqual([
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
  });

  it("checks files next to a playbook", () => {
    const pb = join(bundledLibraryDir(), "dependency-bump.yaml");
    const root = bundledLibraryDir();
    expect(fileExistsNextTo(pb, "templates/bump.md", root)).toBe(true);
    expect(fileExistsNextTo(pb, "templates/nope.md", root)).toBe(false);
    // A file outside the root is missing to validation, as to the run that would read it.
    expect(fileExistsNextTo(pb, "../package.json", root)).toBe(false);
    expect(fileExistsNextTo(pb, "templates", root)).toBe(false);
  });

  it("resolve a repository playbook's delegate target", async () => {
    const known = await bundledPlaybooks();
    const src =
      "apiVersion: playbook-bot/v1\nid: mine\nsteps:\n  - { id: c, type: playbook, name: C, playbook: recent-changes, mode: delegate, with: { namespace: x } }\n  - { id: e, type: end, name: E }\n";
    expect(validateSet([{ file: "mine.yaml", source: src }], { known })[0]?.diagnostics).toEqual(
      [],
    );
    expect(
      validateSet([{ file: "mine.yaml", source: src }])[0]?.diagnostics.map((d) => d.rule),
    ).toEqual(["set-unresolved-playbook"]);
  });
});
