import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import "../../../src/adapters/local/yaml-library.js";
import {
  cachedLibrary,
  libraryCacheFile,
  writeLibraryCache,
} from "../../../src/adapters/local/library-cache.js";
import { bundledLibraryDir, validatedLibrary } from "../../../src/adapters/local/library.js";
import type { KnownPlaybook } from "../../../src/core/rules/validate.js";

let root: string;
let library: string;
const KNOWN = [{ id: "one", playbook: { id: "one" }, locked: false }] as unknown as KnownPlaybook[];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "pb-library-cache-"));
  library = join(root, "playbooks");
  mkdirSync(join(library, "templates"), { recursive: true });
  mkdirSync(join(root, "dist"));
  writeFileSync(join(library, "one.yaml"), "id: one\n");
  writeFileSync(join(library, "templates", "t.md"), "hello\n");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("the bundled library's cache", () => {
  it("is used while the library's files are exactly those it was written for", () => {
    expect(cachedLibrary(library)).toBeUndefined();
    expect(writeLibraryCache(library, KNOWN)).toBe(libraryCacheFile(library));
    expect(cachedLibrary(library)).toEqual(KNOWN);
  });

  it("is not used once a playbook, a template or the set of files changed", () => {
    for (const change of [
      () => writeFileSync(join(library, "one.yaml"), "id: one\nname: edited\n"),
      () => writeFileSync(join(library, "templates", "t.md"), "hello!\n"),
      () => writeFileSync(join(library, "two.yaml"), "id: two\n"),
    ]) {
      writeLibraryCache(library, KNOWN);
      change();
      expect(cachedLibrary(library)).toBeUndefined();
    }
  });

  it("is not used when it cannot be read", () => {
    writeFileSync(libraryCacheFile(library), "{ not json");
    expect(cachedLibrary(library)).toBeUndefined();
  });

  it("holds, for the package's library as built, what validating it gives", async () => {
    const cached = cachedLibrary(bundledLibraryDir());
    expect(cached, "npm run build writes dist/library-cache.json").toBeDefined();
    expect(cached).toEqual(await validatedLibrary());
  });
});
