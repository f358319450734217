import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localGitHub, parseGitHubRemote } from "../../../src/entries/cli/github-remote.js";

describe("parseGitHubRemote", () => {
  it("reads owner and repository from https and ssh remotes", () => {
    expect(parseGitHubRemote("https://github.com/acme/shop.git\n")).toEqual({
      owner: "acme",
      repo: "shop",
    });
    expect(parseGitHubRemote("git@github.com:acme/shop.git")).toEqual({
      owner: "acme",
      repo: "shop",
    });
    expect(parseGitHubRemote("https://github.com/acme/my.repo")).toEqual({
      owner: "acme",
      repo: "my.repo",
    });
    expect(parseGitHubRemote("https://gitlab.com/acme/shop.git")).toBeUndefined();
  });
});

describe("localGitHub", () => {
  let dir: string;
  beforeAll(() => {
    nock.disableNetConnect();
    dir = mkdtempSync(join(tmpdir(), "pb-remote-"));
    execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir });
  });
  afterAll(() => {
    nock.cleanAll();
    nock.enableNetConnect();
    rmSync(dir, { recursive: true, force: true });
  });

  it("needs a token and a GitHub origin", async () => {
    expect(await localGitHub(dir, {})).toBeUndefined();
    expect(await localGitHub(dir, { GITHUB_TOKEN: "t" })).toBeUndefined(); // no origin yet
    execFileSync("git", ["remote", "add", "origin", "https://example.com/x/y.git"], { cwd: dir });
    expect(await localGitHub(dir, { GITHUB_TOKEN: "t" })).toBeUndefined();
  });

  it("gives the app's GitHub port for a GitHub origin, which answers where a pull request stands", async () => {
    execFileSync("git", ["remote", "set-url", "origin", "git@github.com:acme/shop.git"], {
      cwd: dir,
    });
    const scope = nock("https://api.github.com")
      .get("/repos/acme/shop")
      .matchHeader("authorization", "token t0k")
      .reply(200, { default_branch: "trunk" })
      .get("/repos/acme/shop/pulls/7")
      .reply(200, {
        state: "closed",
        merged: true,
        html_url: "https://github.com/acme/shop/pull/7",
      });
    const port = await localGitHub(dir, { GITHUB_TOKEN: "t0k" });
    expect(port).toBeDefined();
    expect(await port?.pullRequestState(7)).toEqual({
      state: "closed",
      merged: true,
      url: "https://github.com/acme/shop/pull/7",
    });
    expect(scope.isDone()).toBe(true);
  });
});
