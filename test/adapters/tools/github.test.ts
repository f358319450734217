import nock from "nock";
import { ProbotOctokit } from "probot";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  githubTools,
  globMatcher,
  MAX_FILE_BYTES,
  reviewThreads,
  scopedSearchQuery,
} from "../../../src/adapters/tools/github.js";
import { createToolsPort } from "../../../src/runtime/tools.js";

const API = "https://api.github.com";
const octokit = new ProbotOctokit({
  auth: { token: "ghs_secret_token" },
  retry: { enabled: false },
  throttle: { enabled: false },
});
const port = createToolsPort([githubTools(octokit, { owner: "acme", repo: "shop" })], {
  secrets: ["ghs_secret_token"],
});

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  const done = nock.isDone();
  nock.cleanAll();
  expect(done).toBe(true);
});
afterAll(() => nock.enableNetConnect());

describe("built-in GitHub tools", () => {
  it("are read-only and described", async () => {
    expect(await port.describe("github/issue_get")).toMatchObject({
      readOnly: true,
      server: "github",
    });
    expect(await port.describe("github/delete_repo")).toBeUndefined();
    expect(await port.describe("github/toString")).toBeUndefined();
  });

  it("issue_get trims an issue to the useful fields", async () => {
    nock(API)
      .get("/repos/acme/shop/issues/7")
      .reply(200, {
        number: 7,
        title: "Checkout fails",
        state: "open",
        labels: [{ name: "bug" }],
        user: { login: "ann" },
        created_at: "2026-01-01T00:00:00Z",
        comments: 2,
        body: "b".repeat(10_000),
        html_url: "https://github.com/acme/shop/issues/7",
        reactions: { total_count: 3 },
        node_id: "X",
      });
    const outcome = await port.call("github/issue_get", { number: 7 });
    expect(outcome.ok).toBe(true);
    const result = outcome.ok ? (outcome.result as Record<string, unknown>) : {};
    expect(result).toMatchObject({
      number: 7,
      title: "Checkout fails",
      labels: ["bug"],
      author: "ann",
    });
    expect(result).not.toHaveProperty("node_id");
    expect(String(result.body).length).toBeLessThanOrEqual(4001);
  });

  it("issue_get refuses a number that is not one", async () => {
    expect(await port.call("github/issue_get", { number: "7; rm" })).toMatchObject({
      ok: false,
      code: "TOOL-INVALID",
    });
  });

  it("issue_find searches the run's repository only", async () => {
    nock(API)
      .get("/search/issues")
      .query((q) => q.q === "timeout is:open repo:acme/shop")
      .reply(200, {
        total_count: 1,
        items: [{ number: 3, title: "Timeouts", state: "open", labels: [], html_url: "u" }],
      });
    expect(await port.call("github/issue_find", { query: "timeout is:open" })).toMatchObject({
      ok: true,
      result: { total: 1, items: [{ number: 3, pull_request: false }] },
    });
  });

  it.each(["x repo:other/x", "x REPO:other/x", "org:evil", "x -repo:acme/shop", "(user:someone)"])(
    "issue_find refuses %j",
    async (query) => {
      expect(await port.call("github/issue_find", { query })).toMatchObject({
        ok: false,
        code: "TOOL-DENIED",
      });
    },
  );

  it("scopedSearchQuery appends the repository", () => {
    expect(scopedSearchQuery("crash", "acme", "shop")).toBe("crash repo:acme/shop");
  });

  it("pull_request_get and repo_info return their fields", async () => {
    nock(API)
      .get("/repos/acme/shop/pulls/9")
      .reply(200, {
        number: 9,
        title: "Fix",
        state: "closed",
        merged: true,
        head: { ref: "fix" },
        base: { ref: "main" },
        user: { login: "bo" },
        changed_files: 2,
        body: null,
        html_url: "u",
      })
      .get("/repos/acme/shop")
      .reply(200, {
        full_name: "acme/shop",
        default_branch: "main",
        private: true,
        archived: false,
        language: "TypeScript",
        open_issues_count: 4,
        description: "d",
      });
    expect(await port.call("github/pull_request_get", { number: 9 })).toMatchObject({
      ok: true,
      result: { merged: true, head: "fix", base: "main" },
    });
    expect(await port.call("github/repo_info", {})).toMatchObject({
      ok: true,
      result: { default_branch: "main", topics: [] },
    });
  });

  it("file_read returns a file's text", async () => {
    nock(API)
      .get("/repos/acme/shop/contents/docs%2Frun.md")
      .query({ ref: "main" })
      .reply(200, {
        type: "file",
        size: 5,
        sha: "abc",
        content: Buffer.from("hello").toString("base64"),
        encoding: "base64",
      });
    expect(await port.call("github/file_read", { path: "docs/run.md", ref: "main" })).toMatchObject(
      { ok: true, result: { content: "hello" } },
    );
  });

  it("file_read refuses a file over the cap", async () => {
    nock(API)
      .get("/repos/acme/shop/contents/big.bin")
      .reply(200, { type: "file", size: MAX_FILE_BYTES + 1, sha: "a", content: "" });
    expect(await port.call("github/file_read", { path: "big.bin" })).toMatchObject({
      ok: false,
      code: "TOOL-TOO-LARGE",
    });
  });

  it.each(["../other", "/etc/passwd", ".git/config", "a//b", "a\\b"])(
    "file_read refuses the path %j",
    async (path) => {
      expect(await port.call("github/file_read", { path })).toMatchObject({
        ok: false,
        code: "TOOL-DENIED",
      });
    },
  );

  it("reports GitHub's failures without the token", async () => {
    nock(API).get("/repos/acme/shop/issues/8").reply(404, { message: "Not Found" });
    const outcome = await port.call("github/issue_get", { number: 8 });
    expect(outcome).toMatchObject({
      ok: false,
      code: "TOOL-FAILED",
      message: expect.stringContaining("404"),
    });
    expect(JSON.stringify(outcome)).not.toContain("ghs_secret_token");
  });

  it("file_read lists a folder and names other content types", async () => {
    nock(API)
      .get("/repos/acme/shop/contents/docs")
      .reply(200, [{ name: "a.md", type: "file", path: "docs/a.md", sha: "1", size: 1 }])
      .get("/repos/acme/shop/contents/link")
      .reply(200, { type: "symlink", target: "x", size: 1, name: "link", path: "link", sha: "2" });
    expect(await port.call("github/file_read", { path: "docs" })).toMatchObject({
      ok: true,
      result: { type: "dir", entries: [{ name: "a.md", type: "file" }] },
    });
    expect(await port.call("github/file_read", { path: "link" })).toMatchObject({
      ok: true,
      result: { type: "symlink" },
    });
  });

  it.each([
    [{ path: "a.md", ref: "main..other" }, "TOOL-INVALID"],
    [{ path: "a.md", ref: 3 }, "TOOL-INVALID"],
    [{ path: 42 }, "TOOL-INVALID"],
  ])("file_read refuses the arguments %j", async (args, code) => {
    expect(await port.call("github/file_read", args)).toMatchObject({ ok: false, code });
  });

  it("file_read tries each ending in turn, parses JSON, and answers a missing file as asked", async () => {
    const file = (content: string) => ({
      type: "file",
      size: content.length,
      sha: "s",
      name: "x",
      path: "x",
      content: Buffer.from(content).toString("base64"),
    });
    nock(API)
      .get("/repos/acme/shop/contents/.xe%2Fproduct")
      .reply(404, { message: "Not Found" })
      .get("/repos/acme/shop/contents/.xe%2Fproduct.md")
      .reply(404, { message: "Not Found" })
      .get("/repos/acme/shop/contents/.xe%2Fproduct.json")
      .query({ ref: "work" })
      .reply(200, file('{"name":"shop"}'))
      .get("/repos/acme/shop/contents/.xe%2Fproduct")
      .query({ ref: "work" })
      .reply(404, { message: "Not Found" })
      .get("/repos/acme/shop/contents/.xe%2Fproduct.md")
      .query({ ref: "work" })
      .reply(404, { message: "Not Found" })
      .get("/repos/acme/shop/contents/gone.md")
      .times(2)
      .reply(404, { message: "Not Found" })
      .get("/repos/acme/shop/contents/bad.json")
      .reply(200, file("{ nope"));
    // Without ref: .md then .json are not found either: one request per ending.
    nock(API).get("/repos/acme/shop/contents/.xe%2Fproduct.json").reply(404, {});
    expect(
      await port.call("github/file_read", { path: ".xe/product", extensions: [".md", ".json"] }),
    ).toMatchObject({ ok: false, code: "TOOL-NOT-FOUND" });
    expect(
      await port.call("github/file_read", {
        path: ".xe/product",
        extensions: [".md", ".json"],
        ref: "work",
        json: true,
      }),
    ).toMatchObject({
      ok: true,
      result: { path: ".xe/product.json", exists: true, value: { name: "shop" } },
    });
    expect(
      await port.call("github/file_read", { path: "gone.md", missing_ok: true }),
    ).toMatchObject({
      ok: true,
      result: { path: "gone.md", type: "none", exists: false },
    });
    expect(await port.call("github/file_read", { path: "gone.md" })).toMatchObject({
      ok: false,
      code: "TOOL-NOT-FOUND",
    });
    expect(await port.call("github/file_read", { path: "bad.json", json: true })).toMatchObject({
      ok: false,
      code: "TOOL-INVALID",
      message: "github/file_read: bad.json is not JSON",
    });
  });

  it.each([[[".md", "md"]], [[]], [[".a", ".b", ".c", ".d", ".e"]], ["md"], [[3]]])(
    "file_read refuses the endings %j",
    async (extensions) => {
      expect(await port.call("github/file_read", { path: "a", extensions })).toMatchObject({
        ok: false,
        code: "TOOL-INVALID",
      });
    },
  );

  it("file_list names a folder's files that match the pattern, sorted", async () => {
    nock(API)
      .get("/repos/acme/shop/contents/commands")
      .reply(200, [
        { name: "run.md", type: "file" },
        { name: "plan.md", type: "file" },
        { name: "notes.txt", type: "file" },
        { name: "sub.md", type: "dir" },
      ])
      .get("/repos/acme/shop/contents/README.md")
      .reply(200, {
        type: "file",
        size: 1,
        name: "README.md",
        path: "README.md",
        sha: "1",
        content: "",
      });
    expect(
      await port.call("github/file_list", { path: "commands", pattern: "*.md" }),
    ).toMatchObject({
      ok: true,
      result: { path: "commands", names: ["plan.md", "run.md"], count: 2 },
    });
    expect(await port.call("github/file_list", { path: "README.md" })).toMatchObject({
      ok: false,
      code: "TOOL-NOT-FOUND",
    });
    expect(await port.call("github/file_list", { path: "a", pattern: "x/*.md" })).toMatchObject({
      ok: false,
      code: "TOOL-INVALID",
    });
    expect(await port.call("github/file_list", { path: "../etc" })).toMatchObject({
      ok: false,
      code: "TOOL-DENIED",
    });
  });

  it("matches * and ? without backtracking blow-up", () => {
    const m = globMatcher("*a*a*a*a*a*a*a*a*b");
    expect(m("a".repeat(5000))).toBe(false);
    expect(globMatcher("c?t.*")("cat.md")).toBe(true);
    expect(globMatcher("c?t.*")("ct.md")).toBe(false);
    expect(globMatcher(undefined)("anything")).toBe(true);
    expect(() => globMatcher(7)).toThrow("'pattern'");
  });

  it("review_threads groups a pull request's review comments into threads", async () => {
    const c = (id: number, body: string, at: string, reply?: number, login = "lee") => ({
      id,
      body,
      path: "src/cache.ts",
      line: 10,
      user: { login },
      created_at: at,
      ...(reply ? { in_reply_to_id: reply } : {}),
    });
    nock(API)
      .get("/repos/acme/shop/pulls/12/comments")
      .query(true)
      .reply(200, [
        c(2, "Rename?", "2026-01-01T00:02:00Z"),
        c(1, "Bound the cache.", "2026-01-01T00:01:00Z"),
        c(3, "⚛️ [Catalyst][Claude] Done.", "2026-01-01T00:03:00Z", 1, "bot"),
      ]);
    const r = await port.call("github/review_threads", {
      number: "12",
      marker: "[Catalyst][Claude]",
    });
    expect(r).toMatchObject({
      ok: true,
      result: {
        totalCount: 2,
        remainingCount: 1,
        threads: [
          { id: 1, commentId: 3, needs_reply: false, replies: [{ author: "bot" }] },
          { id: 2, commentId: 2, needs_reply: true, replies: [] },
        ],
      },
    });
    // Without a marker, a thread nobody answered needs a reply; a reply whose first comment is gone is left out.
    const plain = reviewThreads([c(5, "Orphan", "2026-01-01T00:00:00Z", 4)], undefined);
    expect(plain).toEqual({ threads: [], totalCount: 0, remainingCount: 0 });
    expect(reviewThreads([c(6, "Hi", "2026-01-01T00:00:00Z")], undefined)).toMatchObject({
      remainingCount: 1,
    });
  });

  it.each([{ query: "" }, { query: "x".repeat(300) }, {}])(
    "issue_find refuses %j",
    async (args) => {
      expect(await port.call("github/issue_find", args)).toMatchObject({
        ok: false,
        code: "TOOL-INVALID",
      });
    },
  );

  it("reports a request that never reached GitHub", async () => {
    nock(API).get("/repos/acme/shop").replyWithError("socket hang up");
    expect(await port.call("github/repo_info", {})).toMatchObject({
      ok: false,
      code: "TOOL-FAILED",
      message: expect.stringContaining("GitHub"),
    });
  });
});
