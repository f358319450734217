import { describe, expect, it } from "vitest";
import { branchNameProblem, repoPathProblem } from "../../../src/core/util/git-ref.js";
import { compileLinear, linearRegExpForAjv } from "../../../src/core/util/regex.js";
import { didYouMean, oneOf } from "../../../src/core/util/suggest.js";

describe("branchNameProblem", () => {
  it.each([
    ["feature/x", undefined],
    ["playbook/bump-lodash-4.17", undefined],
    ["", "it is empty"],
    ["a".repeat(201), "it is longer than 200 characters"],
    ["-x", "it starts with '-'"],
    ["/x", "it starts or ends with '/'"],
    ["x/", "it starts or ends with '/'"],
    ["x.", "it ends with '.'"],
    ["x.lock", "it ends with '.lock'"],
    ["@", "it is '@'"],
    ["HEAD", "it is 'HEAD'"],
    ["a..b", "it contains '..'"],
    ["a//b", "it contains '//'"],
    ["a@{b", "it contains '@{'"],
    ["a b", 'it contains " "'],
    ["a~b", 'it contains "~"'],
    ["a:b", 'it contains ":"'],
    ["a\\b", 'it contains "\\\\"'],
    ["a\u0001b", 'it contains "\\u0001"'],
    ["a/.hidden", "a part starts with '.'"],
  ])("%j → %s", (name, problem) => {
    expect(branchNameProblem(name)).toBe(problem);
  });
});

describe("repoPathProblem", () => {
  it.each([
    ["docs/notes.md", undefined],
    ["a/.github/x.yml", undefined],
    ["", "it is empty"],
    ["/etc/passwd", "it is absolute"],
    ["C:/x", "it is absolute"],
    ["\\\\server\\x", "it is absolute"],
    ["a\\b", "it uses '\\' (write paths with '/')"],
    ["a\nb", "it contains a control character"],
    ["../x", "it leaves the repository with '..'"],
    ["a/../../x", "it leaves the repository with '..'"],
    ["a//b", "it is not normalised (remove './' and '//')"],
    ["./a", "it is not normalised (remove './' and '//')"],
    ["a/", "it is not normalised (remove './' and '//')"],
    [".git/config", "it touches .git"],
    ["sub/.GIT/hooks/pre-commit", "it touches .git"],
  ])("%j → %s", (path, problem) => {
    expect(repoPathProblem(path)).toBe(problem);
  });
});

describe("compileLinear", () => {
  it("compiles a pattern once per flags, and still each long one anew", () => {
    const a = compileLinear("^svc-[0-9]+$");
    expect(compileLinear("^svc-[0-9]+$")).toBe(a);
    const i = compileLinear("^svc-[0-9]+$", { ignoreCase: true });
    expect(i).not.toBe(a);
    expect(i.ok && i.regex.test("SVC-1")).toBe(true);
    expect(a.ok && a.regex.test("SVC-1")).toBe(false);
    const long = `^(${"a".repeat(2100)})$`;
    expect(compileLinear(long)).not.toBe(compileLinear(long));
    const bad = compileLinear("(");
    expect(compileLinear("(")).toBe(bad);
    expect(bad.ok).toBe(false);
  });

  it("compiles and matches", () => {
    const r = compileLinear("^[a-z]+-[0-9]+$");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.regex.source).toBe("^[a-z]+-[0-9]+$");
    expect(r.regex.test("abc-12")).toBe(true);
    expect(r.regex.test("ABC-12")).toBe(false);
  });

  it("ignores case when asked", () => {
    const r = compileLinear("^abc$", { ignoreCase: true });
    expect(r.ok && r.regex.test("ABC")).toBe(true);
  });

  it("rejects a backreference", () => {
    const r = compileLinear("(a)\\1");
    expect(r).toEqual({ ok: false, error: "invalid escape sequence: `\\1`" });
  });

  it("rejects a lookahead", () => {
    const r = compileLinear("a(?=b)");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^invalid or unsupported Perl syntax/);
  });

  it("answers a catastrophic-backtracking pattern on the linear engine", () => {
    const r = compileLinear("(a+)+$");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.regex.test("a".repeat(50_000) + "b")).toBe(false);
    expect(r.regex.test("b" + "a".repeat(50_000))).toBe(true);
  });

  it("serves ajv with RE2 and throws for bad patterns", () => {
    expect(linearRegExpForAjv("^A", "i").test("abc")).toBe(true);
    expect(linearRegExpForAjv("^A", "").test("abc")).toBe(false);
    expect(() => linearRegExpForAjv("(?<=a)b", "")).toThrow(/^invalid pattern "\(\?<=a\)b": /);
    expect(linearRegExpForAjv.code).toBe('require("re2js").RE2JS');
  });
});

describe("didYouMean", () => {
  it("suggests a close candidate, case-insensitively, keeping its spelling", () => {
    expect(didYouMean("comit", ["commit", "comment", "close"])).toBe("commit");
    expect(didYouMean("BODY", ["body", "title"])).toBe("body");
  });

  it("allows one edit per three characters", () => {
    expect(didYouMean("descriptoin", ["description"])).toBe("description");
    expect(didYouMean("ab", ["xy"])).toBeUndefined();
    expect(didYouMean("ab", ["ac"])).toBe("ac");
    expect(didYouMean("strat", ["start"])).toBeUndefined();
  });

  it("suggests nothing without candidates", () => {
    expect(didYouMean("x", [])).toBeUndefined();
  });

  it("prefers the first of equally close candidates", () => {
    expect(didYouMean("cat", ["bat", "hat"])).toBe("bat");
  });

  it("joins values", () => {
    expect(oneOf(["a", "b", "c"])).toBe("a, b, c");
    expect(oneOf([])).toBe("");
  });
});
