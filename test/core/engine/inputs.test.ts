import { describe, expect, it } from "vitest";
import {
  applyTransform,
  collectInputs,
  parseArgs,
  parseIssueForm,
  resolveInputs,
  splitArgs,
} from "../../../src/core/engine/inputs.js";
import type { InputSpec } from "../../../src/core/format/types.js";

function problems(
  specs: Record<string, InputSpec>,
  raw: Record<string, string | number | boolean | null>,
) {
  const r = resolveInputs(specs, raw);
  if (r.ok) throw new Error(`expected problems, got ${JSON.stringify(r.values)}`);
  return r.problems;
}
function values(
  specs: Record<string, InputSpec>,
  raw: Record<string, string | number | boolean | null>,
) {
  const r = resolveInputs(specs, raw);
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join("; "));
  return r.values;
}

describe("resolveInputs", () => {
  it("converts numbers, booleans, enums and strings", () => {
    expect(
      values(
        {
          n: { type: "number" },
          m: { type: "number" },
          b: { type: "boolean" },
          c: { type: "boolean" },
          d: { type: "boolean" },
          e: { type: "enum", values: ["x", "y"] },
          s: { type: "string" },
        },
        { n: "-1.5", m: 4, b: "YES", c: "off", d: true, e: "y", s: "hello" },
      ),
    ).toEqual({ n: -1.5, m: 4, b: true, c: false, d: true, e: "y", s: "hello" });
  });

  it("reports bad numbers, booleans and enums with a did-you-mean", () => {
    const p = problems(
      {
        n: { type: "number" },
        b: { type: "boolean" },
        e: { type: "enum", values: ["staging", "prod"] },
      },
      { n: "12abc", b: "maybe", e: "prd" },
    );
    expect(p).toEqual([
      { input: "n", message: "'n' must be a number, not '12abc'" },
      { input: "b", message: "'b' must be true or false, not 'maybe'" },
      { input: "e", message: "'e' must be one of staging, prod, not 'prd' — did you mean 'prod'?" },
    ]);
  });

  it("checks required inputs, with their description", () => {
    expect(
      problems({ a: { type: "string", required: true, description: "the service" } }, { a: "" }),
    ).toEqual([{ input: "a", message: "'a' is required (the service)" }]);
    expect(problems({ a: { type: "string", required: true } }, {})[0]?.message).toBe(
      "'a' is required",
    );
    expect(values({ a: { type: "string" } }, { a: null })).toEqual({});
  });

  it("applies defaults, including defaults that name other inputs, in dependency order", () => {
    expect(
      values(
        {
          slug: {
            type: "string",
            default: "{{ inputs.pkg }}-v{{ inputs.major }}",
            transform: "kebab-case",
          },
          pkg: { type: "string", default: "@Octokit/Rest" },
          major: { type: "number", default: 2 },
          on: { type: "boolean", default: true },
        },
        {},
      ),
    ).toEqual({ pkg: "@Octokit/Rest", major: 2, on: true, slug: "octokit-rest-v2" });
    expect(values({ a: { type: "string", default: "x" } }, { a: "given" })).toEqual({ a: "given" });
  });

  it("reports a default that does not fit, and defaults that depend on each other", () => {
    expect(problems({ n: { type: "number", default: "abc" as unknown as number } }, {})).toEqual([
      { input: "n", message: "default of 'n' must be a number, not 'abc'" },
    ]);
    const cyc = problems(
      {
        a: { type: "string", default: "{{ inputs.b }}" },
        b: { type: "string", default: "{{ inputs.a }}" },
      },
      {},
    );
    expect(cyc.map((p) => p.message)).toEqual([
      "the default of 'a' depends on itself",
      "the default of 'b' depends on itself",
    ]);
  });

  it("checks patterns on RE2 after the transform, and min/max for numbers and strings", () => {
    const specs: Record<string, InputSpec> = {
      name: { type: "string", pattern: "^[a-z-]+$", transform: "kebab-case", min: 3, max: 11 },
      n: { type: "number", min: 1, max: 10 },
    };
    expect(values(specs, { name: "Hello World", n: 10 })).toEqual({ name: "hello-world", n: 10 });
    expect(problems(specs, { name: "a1", n: 0 }).map((p) => p.message)).toEqual([
      "'name' must match ^[a-z-]+$, not 'a1'",
      "'n' must be at least 1, not 0",
    ]);
    expect(problems(specs, { name: "ab", n: 11 }).map((p) => p.message)).toEqual([
      "'name' must have at least 3 characters",
      "'n' must be at most 10, not 11",
    ]);
    expect(problems(specs, { name: "abcdefghijkl" })[0]?.message).toBe(
      "'name' must have at most 11 characters",
    );
    // a pattern RE2 cannot compile never matches
    expect(
      problems({ x: { type: "string", pattern: "(?<=a)b" } }, { x: "ab" })[0]?.message,
    ).toContain("must match");
    expect(problems({ x: { type: "string" } }, { x: "y".repeat(1025) })[0]?.message).toBe(
      "'x' is longer than 1024 characters",
    );
  });

  it("reports unknown inputs with a guess, and all problems at once", () => {
    const p = problems(
      { package: { type: "string", required: true }, level: { type: "enum", values: ["minor"] } },
      { pakage: "x", level: "huge" },
    );
    expect(p.map((x) => x.message)).toEqual([
      "unknown input 'pakage' — did you mean 'package'? (inputs: package, level)",
      "'package' is required",
      "'level' must be one of minor, not 'huge'",
    ]);
    expect(problems({}, { zzz: "1" })[0]?.message).toBe("unknown input 'zzz' (inputs: none)");
    expect(resolveInputs(undefined, {})).toEqual({ ok: true, values: {} });
  });

  it("transforms to kebab-case, snake-case and camel-case", () => {
    expect(applyTransform("Fix the HTTPServer bug!", "kebab-case")).toBe("fix-the-httpserver-bug");
    expect(applyTransform("myValue here", "snake-case")).toBe("my_value_here");
    expect(applyTransform("my-value_here now", "camel-case")).toBe("myValueHereNow");
  });
});

describe("parseArgs", () => {
  it("splits positional words and k=v values, honouring quotes", () => {
    expect(parseArgs(`bump package=lodash note="two words" 'single q' x=`)).toEqual({
      positional: ["bump", "single q"],
      values: { package: "lodash", note: "two words", x: "" },
      text: `bump package=lodash note="two words" 'single q' x=`,
    });
    expect(parseArgs("=v a.b=c").positional).toEqual(["=v", "a.b=c"]);
    expect(splitArgs(`a "" b`)).toEqual(["a", "", "b"]);
    expect(parseArgs("  ")).toEqual({ positional: [], values: {}, text: "" });
  });
});

describe("parseIssueForm", () => {
  it("reads ### sections, normalises headings and skips _No response_", () => {
    const body = [
      "intro text",
      "### Package name",
      "",
      "lodash",
      "",
      "### Bump level (optional)",
      "",
      "_No response_",
      "",
      "### Notes",
      "line one",
      "line two",
      "### Empty",
    ].join("\n");
    expect(parseIssueForm(body)).toEqual({ "package name": "lodash", notes: "line one\nline two" });
    expect(parseIssueForm("no sections")).toEqual({});
  });
});

describe("collectInputs", () => {
  const specs: Record<string, InputSpec> = {
    service: { type: "string", from: "labels.service" },
    summary: { type: "string", from: "annotations.summary" },
    pkg: { type: "string", from: "issue.form.Package name" },
    title: { type: "string", from: "issue.title" },
    body: { type: "string", from: "issue.body" },
    number: { type: "number", from: "issue.number" },
    author: { type: "string", from: "issue.author" },
    notes: { type: "string" },
  };
  it("reads each input from its source; the form fills by name; explicit args win", () => {
    expect(
      collectInputs(specs, {
        alert: { labels: { service: "api" }, annotations: { summary: "5xx" } },
        form: { "package name": "lodash", notes: "from form" },
        issue: { title: "T", body: "B", number: 4, author: "alice" },
        args: { service: "web", extra: "1" },
      }),
    ).toEqual({
      service: "web",
      summary: "5xx",
      pkg: "lodash",
      title: "T",
      body: "B",
      number: 4,
      author: "alice",
      notes: "from form",
      extra: "1",
    });
  });

  it("leaves out what no source has", () => {
    expect(collectInputs(specs, {})).toEqual({});
    expect(collectInputs(undefined, { args: { a: "1" } })).toEqual({ a: "1" });
  });
});
