import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  filesUnder,
  readConfined,
  readConfinedText,
  sidecarRoot,
} from "../../../src/adapters/local/safe-files.js";
import { cleanup, makeDir } from "../../helpers/git-repo.js";

afterEach(cleanup);

/**
 * A folder as a fork could commit it: a regular playbook, links out of it and to a device, a
 * named pipe, a linked folder leading out, and one inside.
 */
function hostile(): { root: string; outside: string } {
  const base = makeDir("pb-safe-");
  const root = join(base, "repo");
  const outside = join(base, "outside");
  mkdirSync(join(root, "sub"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, "secret.yaml"), "token: s3cret\n");
  writeFileSync(join(root, "ok.yaml"), "id: ok\n");
  writeFileSync(join(root, "sub", "in.yaml"), "id: in\n");
  symlinkSync(join(outside, "secret.yaml"), join(root, "out.yaml"));
  symlinkSync("/dev/zero", join(root, "zero.yaml"));
  symlinkSync("ok.yaml", join(root, "alias.yaml"));
  symlinkSync(outside, join(root, "outdir"));
  symlinkSync("sub", join(root, "subdir"));
  execFileSync("mkfifo", [join(root, "pipe.yaml")]);
  return { root, outside };
}

const ruleOf = (file: string, root: string, maxBytes?: number) => {
  const read = readConfined(file, { root, ...(maxBytes !== undefined ? { maxBytes } : {}) });
  return read.ok ? "read" : read.refusal.rule;
};

describe("reading a file as data", () => {
  it("reads a regular file inside the root", () => {
    const { root } = hostile();
    expect(readConfinedText(join(root, "ok.yaml"), { root })).toBe("id: ok\n");
  });

  it("refuses a link at the file's name wherever it points, and never blocks on a pipe", () => {
    const { root } = hostile();
    const started = Date.now();
    expect(ruleOf(join(root, "out.yaml"), root)).toBe("symlink");
    expect(ruleOf(join(root, "zero.yaml"), root)).toBe("symlink");
    expect(ruleOf(join(root, "alias.yaml"), root)).toBe("symlink");
    expect(ruleOf(join(root, "pipe.yaml"), root)).toBe("not-regular");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("follows a linked folder only while the real path stays inside the root", () => {
    const { root } = hostile();
    expect(ruleOf(join(root, "outdir", "secret.yaml"), root)).toBe("outside-root");
    expect(ruleOf(join(root, "subdir", "in.yaml"), root)).toBe("read");
    expect(ruleOf(join(root, "..", "outside", "secret.yaml"), root)).toBe("outside-root");
  });

  it("measures size by what it reads: one byte over the cap is refused, the cap itself is not", () => {
    const { root } = hostile();
    writeFileSync(join(root, "big.yaml"), "x".repeat(101));
    writeFileSync(join(root, "cap.yaml"), "x".repeat(100));
    expect(ruleOf(join(root, "big.yaml"), root, 100)).toBe("too-large");
    expect(ruleOf(join(root, "cap.yaml"), root, 100)).toBe("read");
  });

  it("says a missing file is missing, and a folder is no file", () => {
    const { root } = hostile();
    expect(ruleOf(join(root, "nope.yaml"), root)).toBe("missing");
    expect(ruleOf(join(root, "sub"), root)).toBe("not-regular");
  });
});

describe("listing files under a folder", () => {
  it("lists links, pipes and regular files by name, without walking linked folders", async () => {
    const { root } = hostile();
    expect(await filesUnder(root, ["**/*.yaml"])).toEqual([
      "alias.yaml",
      "ok.yaml",
      "out.yaml",
      "pipe.yaml",
      "sub/in.yaml",
      "zero.yaml",
    ]);
  });

  it("looks only under a pattern's base, with patterns written from the folder or absolute", async () => {
    const { root } = hostile();
    expect(await filesUnder(root, ["sub/*.yaml"])).toEqual(["sub/in.yaml"]);
    expect(await filesUnder(join(root, "sub"), [join(root, "*.yaml")])).toEqual([
      "../alias.yaml",
      "../ok.yaml",
      "../out.yaml",
      "../pipe.yaml",
      "../zero.yaml",
    ]);
  });
});

describe("sidecarRoot: where a playbook's paired files are read", () => {
  it("is the file's repository, whatever the working folder", () => {
    const repo = makeDir("pb-side-");
    mkdirSync(join(repo, ".git"));
    mkdirSync(join(repo, "a", "b", "c", "d"), { recursive: true });
    const file = join(repo, "a", "b", "c", "d", "x.json");
    expect(sidecarRoot(file, join(repo, "a", "b", "c", "d"))).toBe(repo);
    expect(sidecarRoot(file, makeDir("pb-else-"))).toBe(repo);
  });

  it("outside a repository: the working folder holding the file, else two folders above it", () => {
    const base = makeDir("pb-side-");
    mkdirSync(join(base, "a", "b", "c"), { recursive: true });
    expect(sidecarRoot("a/b/c/x.json", base)).toBe(base);
    expect(sidecarRoot("x.json", join(base, "a", "b", "c"))).toBe(join(base, "a"));
    expect(sidecarRoot(join(base, "a", "b", "c", "x.json"), makeDir("pb-else-"))).toBe(
      join(base, "a"),
    );
  });
});
