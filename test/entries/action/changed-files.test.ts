import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  changedFiles,
  FILES_PER_PAGE,
  MAX_LISTED_FILES,
} from "../../../src/entries/action/changed-files.js";
import { redirectingPair } from "../../helpers/redirect-servers.js";

let dir: string;
let warnings: string[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "pb-changed-files-"));
  warnings = [];
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const SHA = { base: "1".repeat(40), head: "2".repeat(40) };

function eventFile(payload: unknown): string {
  const path = join(dir, "event.json");
  writeFileSync(path, typeof payload === "string" ? payload : JSON.stringify(payload));
  return path;
}

const pullRequest = (extra: Record<string, unknown> = {}) => ({
  pull_request: { number: 7, base: { sha: SHA.base }, head: { sha: SHA.head }, ...extra },
  repository: { full_name: "octo/repo" },
});

/** A fetch that answers each page from `pages` (page n is pages[n-1]) and records the URLs. */
function pagesOf(pages: unknown[], status = 200) {
  const urls: string[] = [];
  const fetcher = (async (url: string) => {
    urls.push(url);
    const page = Number(new URL(url).searchParams.get("page"));
    return new Response(JSON.stringify(pages[page - 1] ?? []), { status });
  }) as unknown as typeof fetch;
  return { urls, fetcher };
}

const files = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ filename: `f${from + i}`, status: "modified" }));

async function changed(payload: unknown, fetcher: typeof fetch, token = "t") {
  return changedFiles({
    env: { GITHUB_EVENT_PATH: eventFile(payload), GITHUB_API_URL: "https://api.test/" },
    workspace: dir,
    token,
    fetch: fetcher,
    warn: (m) => warnings.push(m),
  });
}

describe("changedFiles", () => {
  it("is no pull request without an event, with an unreadable one, or for another event", async () => {
    const { fetcher, urls } = pagesOf([]);
    const o = { workspace: dir, token: "t", fetch: fetcher, warn: (m: string) => warnings.push(m) };
    expect(await changedFiles({ ...o, env: {} })).toEqual({ pullRequest: false });
    expect(await changedFiles({ ...o, env: { GITHUB_EVENT_PATH: join(dir, "none") } })).toEqual({
      pullRequest: false,
    });
    expect(await changed("{not json", fetcher)).toEqual({ pullRequest: false });
    expect(await changed({ push: {} }, fetcher)).toEqual({ pullRequest: false });
    expect(urls).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it("skips removed files, names renamed ones by their new name, and ignores malformed entries", async () => {
    const { fetcher, urls } = pagesOf([
      [
        { filename: "a.yaml", status: "added" },
        { filename: "b.yaml", status: "renamed", previous_filename: "old-b.yaml" },
        { filename: "c.yaml", status: "removed" },
        { status: "modified" },
        null,
      ],
    ]);
    expect(await changed(pullRequest(), fetcher)).toEqual({
      pullRequest: true,
      files: new Set(["a.yaml", "b.yaml"]),
    });
    expect(urls).toEqual(["https://api.test/repos/octo/repo/pulls/7/files?per_page=100&page=1"]);
  });

  it("takes the number from the event and the repository from GITHUB_REPOSITORY when the payload lacks them", async () => {
    const { fetcher, urls } = pagesOf([[{ filename: "a.yaml", status: "modified" }]]);
    const path = eventFile({ number: 9, pull_request: {} });
    const r = await changedFiles({
      env: { GITHUB_EVENT_PATH: path, GITHUB_REPOSITORY: "o/r" },
      workspace: dir,
      token: "t",
      fetch: fetcher,
      warn: (m) => warnings.push(m),
    });
    expect(r.files).toEqual(new Set(["a.yaml"]));
    expect(urls).toEqual(["https://api.github.com/repos/o/r/pulls/9/files?per_page=100&page=1"]);
  });

  it("stops at the API's 3000 files, and trusts them only when the pull request has no more", async () => {
    const pages = Array.from({ length: MAX_LISTED_FILES / FILES_PER_PAGE }, (_, p) =>
      files(FILES_PER_PAGE, p * FILES_PER_PAGE),
    );
    const all = pagesOf(pages);
    const r = await changed(pullRequest({ changed_files: 3000 }), all.fetcher);
    expect(r.files?.size).toBe(3000);
    expect(all.urls).toHaveLength(30);
    expect(warnings).toEqual([]);
    // More than 3000: the list is cut short, and git (which has no such commits here) cannot help.
    const more = await changed(pullRequest({ changed_files: 3001 }), pagesOf(pages).fetcher);
    expect(more).toEqual({ pullRequest: true });
    expect(warnings[0]).toMatch(
      /^changed-only: the GitHub API did not list the pull request's files \(it lists at most 3000 files\); git cannot compare/,
    );
    const unknown = await changed(pullRequest(), pagesOf(pages).fetcher);
    expect(unknown).toEqual({ pullRequest: true });
  });

  it("falls back, with a warning, when the API cannot be reached or answers nonsense", async () => {
    const down = (async () => {
      throw new Error("connect ECONNREFUSED");
    }) as unknown as typeof fetch;
    expect(await changed(pullRequest(), down)).toEqual({ pullRequest: true });
    const thrown = (async () => {
      throw "reset";
    }) as unknown as typeof fetch;
    await changed(pullRequest(), thrown);
    await changed(pullRequest(), pagesOf([{ message: "not a list" }]).fetcher);
    const notJson = (async () =>
      new Response("<html>", { status: 200 })) as unknown as typeof fetch;
    await changed(pullRequest(), notJson);
    await changed({ pull_request: { number: "x" }, repository: { full_name: "octo/repo" } }, down);
    await changed({ pull_request: { number: 1 }, repository: { full_name: "../../x" } }, down);
    expect(warnings.map((w) => /\((.*?)\); git/.exec(w)?.[1])).toEqual([
      "connect ECONNREFUSED",
      "reset",
      "the answer is not a list of files",
      "the answer is not a list of files",
      "the event does not name the pull request and its repository",
      "the event does not name the pull request and its repository",
    ]);
  });

  it("does not hand git what is not a commit id", async () => {
    const { fetcher } = pagesOf([], 404);
    const r = await changed(
      {
        pull_request: { number: 1, base: { sha: "--output=/tmp/x" }, head: { sha: SHA.head } },
        repository: { full_name: "o/r" },
      },
      fetcher,
    );
    expect(r).toEqual({ pullRequest: true });
    expect(warnings[0]).toContain("(HTTP 404)");
  });

  it("refuses a redirect to another origin: the token's request never reaches it, and it falls back", async () => {
    const pair = await redirectingPair(302);
    try {
      const r = await changedFiles({
        env: {
          GITHUB_EVENT_PATH: eventFile(pullRequest()),
          GITHUB_API_URL: `${pair.endpoint.url}/away`,
        },
        workspace: dir,
        token: "ghs_redirected0123456789",
        fetch,
        warn: (m) => warnings.push(m),
      });
      expect(r).toEqual({ pullRequest: true });
      expect(pair.endpoint.seen[0]?.headers.authorization).toBe("Bearer ghs_redirected0123456789");
      expect(pair.elsewhere.seen).toEqual([]);
      expect(warnings[0]).toContain("refused a redirect");
      expect(warnings[0]).not.toContain("ghs_redirected0123456789");
    } finally {
      await pair.close();
    }
  });
});
