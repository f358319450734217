import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import {
  findRepositoryRoot,
  repositoryUrlOf,
  sarifRoot,
  toolInfo,
} from "../../../src/adapters/local/sarif-context.js";
import { cleanup, makeDir, makeRepo, ROOT } from "../../helpers/git-repo.js";

afterEach(cleanup);

describe("findRepositoryRoot", () => {
  it("asks git first, then GITHUB_WORKSPACE, then takes the working directory", () => {
    const repo = makeRepo("pb-root-");
    mkdirSync(join(repo, "a", "b"), { recursive: true });
    expect(findRepositoryRoot(join(repo, "a", "b"), { GITHUB_WORKSPACE: "/elsewhere" })).toEqual({
      dir: realpathSync(repo),
      source: "git",
    });
    const plain = makeDir("pb-root-plain-");
    expect(findRepositoryRoot(plain, { GITHUB_WORKSPACE: "/github/workspace" })).toEqual({
      dir: "/github/workspace",
      source: "GITHUB_WORKSPACE",
    });
    expect(findRepositoryRoot(plain, {})).toEqual({ dir: plain, source: "working directory" });
  });
});

describe("sarifRoot", () => {
  it("locates files from the root's real path, through symlinks, and outside files by URL", () => {
    const real = makeDir("pb-root-real-");
    mkdirSync(join(real, "playbooks"));
    writeFileSync(join(real, "playbooks", "a.yaml"), "");
    const link = join(makeDir("pb-root-link-"), "repo");
    symlinkSync(real, link);
    const outside = makeDir("pb-root-out-");
    writeFileSync(join(outside, "x.yaml"), "");
    const root = sarifRoot(link, join(link, "playbooks"));
    expect(root.uri).toBe(`${pathToFileURL(realpathSync(real)).href}/`);
    expect(root.locate("a.yaml")).toBe("playbooks/a.yaml");
    expect(root.locate(join(outside, "x.yaml"))).toBe(
      pathToFileURL(realpathSync(join(outside, "x.yaml"))).href,
    );
    // A file that does not exist is placed where it would be.
    expect(root.locate("missing/b.yaml")).toBe("playbooks/missing/b.yaml");
    // Lexically from the working directory: the folder that holds the link.
    expect(root.locate("../..")).toBe(pathToFileURL(realpathSync(join(link, ".."))).href);
  });
});

describe("repositoryUrlOf", () => {
  it("reads package.json's forms of a GitHub repository", () => {
    expect(repositoryUrlOf({ type: "git", url: "git+https://github.com/o/r.git" })).toBe(
      "https://github.com/o/r",
    );
    expect(repositoryUrlOf("github:o/r")).toBe("https://github.com/o/r");
    expect(repositoryUrlOf("o/r")).toBe("https://github.com/o/r");
    expect(repositoryUrlOf("git://github.example.com/o/r.git")).toBe(
      "https://github.example.com/o/r",
    );
    expect(repositoryUrlOf("ssh://git@github.com/o/r.git")).toBe("https://github.com/o/r");
    expect(repositoryUrlOf(undefined)).toBeUndefined();
    expect(repositoryUrlOf({ type: "git" })).toBeUndefined();
    expect(repositoryUrlOf("not a url")).toBeUndefined();
  });
});

describe("toolInfo", () => {
  it("is this package's version, home page and repository", async () => {
    const pkg = (await import(pathToFileURL(join(ROOT, "package.json")).href, {
      with: { type: "json" },
    })) as { default: { version: string; homepage: string } };
    expect(toolInfo()).toEqual({
      version: pkg.default.version,
      homepage: pkg.default.homepage,
      repositoryUrl: "https://github.com/playbook-bot/playbook-bot",
    });
  });
});
