/**
 * Files beside a bundled playbook are read only inside the bundled library, its real path: a
 * symbolic link in the library pointing out of it reads nothing. The library is a folder made
 * here (a link is not a file the package could ship).
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";

const root = mkdtempSync(join(tmpdir(), "pb-bundled-"));
const library = join(root, "library");
mkdirSync(join(library, "templates"), { recursive: true });
writeFileSync(join(library, "templates", "inside.md"), "inside the library\n");
writeFileSync(join(root, "secret.txt"), "outside the library\n");
symlinkSync(join(root, "secret.txt"), join(library, "templates", "link-out.md"));
symlinkSync(root, join(library, "templates", "dir-out"));

vi.mock("../../../src/adapters/local/library.js", async (original) => ({
  ...(await original<typeof import("../../../src/adapters/local/library.js")>()),
  bundledLibraryDir: () => library,
}));
const { readBundledBeside } = await import("../../../src/entries/playground/workbench.js");

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("files beside a bundled playbook", () => {
  it("are read inside the library, never through a link or a .. out of it", () => {
    expect(readBundledBeside("bundled/p.yaml", "templates/inside.md")).toBe("inside the library\n");
    expect(readBundledBeside("bundled/p.yaml", "templates/link-out.md")).toBeUndefined();
    expect(readBundledBeside("bundled/p.yaml", "templates/dir-out/secret.txt")).toBeUndefined();
    expect(readBundledBeside("bundled/p.yaml", "../secret.txt")).toBeUndefined();
    expect(readBundledBeside("bundled/p.yaml", join(root, "secret.txt"))).toBeUndefined();
    expect(readBundledBeside("bundled/../p.yaml", "secret.txt")).toBeUndefined();
    // A folder is no file.
    expect(readBundledBeside("bundled/p.yaml", "templates")).toBeUndefined();
  });
});
