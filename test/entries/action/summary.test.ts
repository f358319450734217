import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  ANNOTATIONS_PER_KIND,
  mdCode,
  mdText,
  run,
  summaryMarkdown,
} from "../../../src/entries/action/main.js";
import { workflowCommands } from "../../helpers/workflow-commands.js";
import { plainLine } from "../../../src/core/util/log-line.js";
import type { RuleDiagnostic as Diagnostic } from "../../../src/core/rules/catalogue.js";
import { validateSet, validateSource, type FileReport } from "../../../src/core/rules/validate.js";

const VALID = (id: string) => `apiVersion: playbook-bot/v1
id: ${id}
description: Valid.
steps:
  - id: greet
    type: comment
    description: Greet.
    body: Hello
  - id: done
    type: end
    description: Finish.
`;

/** Valid, one warning on line 5 (a step without name or description). */
const WARNED = `apiVersion: playbook-bot/v1
id: warned
description: Valid with a warning.
steps:
  - id: greet
    type: comment
    body: Hello
  - id: done
    type: end
    description: Finish.
`;

/** One error spanning lines 5-7 (a comment step without its body). */
const MULTI = `apiVersion: playbook-bot/v1
id: multi
description: An error over several lines.
steps:
  - id: greet
    type: comment
    description: Greet.
  - id: done
    type: end
    description: Finish.
`;

function report(file: string, text: string): FileReport {
  return validateSource(file, text);
}

function diag(over: Partial<Diagnostic>): Diagnostic {
  return {
    rule: "step-no-description",
    severity: "warning",
    file: "playbooks/a.yaml",
    path: "steps[0]",
    message: "m",
    line: 3,
    column: 5,
    endLine: 3,
    endColumn: 9,
    ...over,
  } as Diagnostic;
}

describe("plain log lines and inert Markdown", () => {
  it("makes a plain line that the runner reads as no command", () => {
    for (const text of [
      "::add-mask::secret",
      " \t::warning file=x::pwned",
      "\u00a0::error::x",
      "ok\n::add-mask::a\r::add-mask::b\r\n::add-mask::c\u2028::add-mask::d",
      "x ##[add-mask]secret ###[set-output name=a]b",
      "\u001b[31m::add-mask::e",
    ]) {
      const line = plainLine(text);
      expect(line).not.toMatch(/(?!\t)[\p{Cc}\u2028\u2029]/u);
      expect(workflowCommands(line)).toEqual([]);
    }
    expect(plainLine("a\nb\rc\td")).toBe("a\\nb\\rc\td");
    expect(plainLine("::add-mask::x")).toBe("\\::add-mask::x");
    expect(plainLine("playbooks/a.yaml:1:2: error: m")).toBe("playbooks/a.yaml:1:2: error: m");
  });

  it("escapes Markdown text and breaks mentions and autolinks", () => {
    expect(mdText("<b>x</b> & [l](u) `c` *e* _u_ ~s~ $m$ a|b \\")).toBe(
      "\\<b\\>x\\</b\\> \\& \\[l\\](u) \\`c\\` \\*e\\* \\_u\\_ \\~s\\~ \\$m\\$ a\\|b \\\\",
    );
    expect(mdText("@octo/team mail a@b.c https://x.y www.x.y\nnext")).toBe(
      "@\u200bocto/team mail a@\u200bb.c https:\u200b//x.y www\u200b.x.y next",
    );
  });

  it("makes a code span longer than any run of backticks in the text", () => {
    expect(mdCode("a.yaml")).toBe("`a.yaml`");
    expect(mdCode("a`b``c|d")).toBe("```a`b``c\\|d```");
    expect(mdCode("`x")).toBe("`` `x ``");
    expect(mdCode("a\nb")).toBe("`a b`");
  });
});

describe("summaryMarkdown", () => {
  it("links each diagnostic to its lines at the commit when the repository and commit are known", () => {
    const r = report("playbooks/my file.yaml", MULTI);
    const md = summaryMarkdown([r], undefined, 0, {
      GITHUB_REPOSITORY: "octo/repo",
      GITHUB_SHA: "abc123",
    });
    expect(md).toContain(
      "| [playbooks/my file.yaml:5:5](https://github.com/octo/repo/blob/abc123/playbooks/my%20file.yaml#L5-L7) | ❌ `schema-missing-field` | steps\\[0\\]: a comment step needs the field 'body' — _add 'body: …'_ |",
    );
    // On GitHub Enterprise, links go to its server.
    const ghe = summaryMarkdown([r], undefined, 0, {
      GITHUB_SERVER_URL: "https://ghe.example",
      GITHUB_REPOSITORY: "octo/repo",
      GITHUB_SHA: "abc123",
    });
    expect(ghe).toContain(
      "(https://ghe.example/octo/repo/blob/abc123/playbooks/my%20file.yaml#L5-L7)",
    );
  });

  it("links a one-line diagnostic to that line only", () => {
    const md = summaryMarkdown([report("playbooks/w.yaml", WARNED)], undefined, 0, {
      GITHUB_REPOSITORY: "octo/repo",
      GITHUB_SHA: "abc",
    });
    expect(md).toContain("(https://github.com/octo/repo/blob/abc/playbooks/w.yaml#L5) | ⚠️");
  });

  it("names positions as plain code without the repository or the commit", () => {
    const r = report("playbooks/w.yaml", WARNED);
    for (const env of [{}, { GITHUB_REPOSITORY: "octo/repo" }, { GITHUB_SHA: "abc" }]) {
      const md = summaryMarkdown([r], undefined, 0, env);
      expect(md).toContain("| `playbooks/w.yaml:5:9` | ⚠️ `step-no-description` |");
      expect(md).not.toContain("](");
    }
  });

  it("heads a warnings-only set with a check mark and counts in the singular", () => {
    const md = summaryMarkdown([report("playbooks/w.yaml", WARNED)], undefined, 0, {});
    expect(md.split("\n")[0]).toBe("### ✅ Playbooks: 1 checked, 0 errors, 1 warning");
    expect(md).toContain("| warned | `playbooks/w.yaml` | 2 | ✅ valid, 1 warning |");
  });

  it("counts errors and warnings in the plural, per file and in total", () => {
    const two = report(
      "playbooks/m.yaml",
      MULTI.replace(
        "  - id: done\n",
        "  - id: again\n    type: comment\n    description: Again.\n  - id: done\n",
      ),
    );
    const md = summaryMarkdown(
      [
        two,
        report("playbooks/w.yaml", WARNED),
        report("playbooks/w2.yaml", WARNED.replace("id: warned", "id: w2")),
      ],
      undefined,
      0,
      {},
    );
    expect(md.split("\n")[0]).toBe("### ❌ Playbooks: 3 checked, 2 errors, 2 warnings");
    expect(md).toContain("| — | `playbooks/m.yaml` | — | ❌ 2 errors |");
  });

  it("shows a file with an error and a warning on one row", () => {
    const r: FileReport = {
      file: "playbooks/a.yaml",
      text: "",
      diagnostics: [
        diag({ severity: "error", rule: "schema-missing-field" }),
        diag({ line: 4 }),
        diag({ line: 5 }),
      ],
    };
    const md = summaryMarkdown([r], undefined, 0, {});
    expect(md).toContain("| — | `playbooks/a.yaml` | — | ❌ 1 error, 2 warnings |");
    // A diagnostic without a hint has no hint part.
    expect(md).toContain("| `playbooks/a.yaml:3:5` | ❌ `schema-missing-field` | m |");
  });

  it("shows a file that did not parse with dashes for id and steps, and one error", () => {
    const md = summaryMarkdown([report("playbooks/bad.yaml", "id: [\n")], undefined, 0, {});
    expect(md).toMatch(/\| — \| `playbooks\/bad\.yaml` \| — \| ❌ 1 error \|/);
    expect(md.split("\n")[0]).toBe("### ❌ Playbooks: 1 checked, 1 error, 0 warnings");
    expect(md).not.toContain("<details>");
  });

  it("has no diagnostics section for a clean set", () => {
    const md = summaryMarkdown([report("playbooks/v.yaml", VALID("v"))], undefined, 0, {});
    expect(md).not.toContain("#### Diagnostics");
    expect(md).toContain("<details><summary>Graph of <code>v</code></summary>");
  });

  it("says how many diagnostics were not annotated", () => {
    const md = summaryMarkdown([report("playbooks/w.yaml", WARNED)], undefined, 1, {});
    expect(md).toContain(
      `_1 of 1 are not shown as annotations on the diff (GitHub shows at most ${ANNOTATIONS_PER_KIND} of a kind per step); all are listed here._`,
    );
    expect(summaryMarkdown([report("w.yaml", WARNED)], undefined, 0, {})).not.toContain(
      "not shown as annotations",
    );
  });

  it("escapes table cells: pipes and newlines in messages and hints", () => {
    const r: FileReport = {
      file: "playbooks/a.yaml",
      text: "",
      diagnostics: [diag({ message: "a | b\nc", hint: "x|y" })],
    };
    const md = summaryMarkdown([r], undefined, 0, {});
    expect(md).toContain("| a \\| b c — _x\\|y_ |");
  });

  it("draws only the changed playbooks, and at most 20", () => {
    const reports = Array.from({ length: 25 }, (_, i) =>
      report(`playbooks/p${String(i).padStart(2, "0")}.yaml`, VALID(`p${i}`)),
    );
    const all = summaryMarkdown(reports, undefined, 0, {});
    expect(all.match(/<summary>Graph of/g)).toHaveLength(20);
    const changed = summaryMarkdown(reports, new Set(["playbooks/p03.yaml", "README.md"]), 0, {});
    expect(changed.match(/<summary>Graph of/g)).toHaveLength(1);
    expect(changed).toContain("Graph of <code>p3</code>");
    expect(summaryMarkdown(reports, new Set(), 0, {})).not.toContain("Graph of");
  });
});

describe("run: inputs, outputs, changed files and the Checks API", () => {
  let ws: string;
  let lines: string[];
  /** What @actions/core wrote to stdout (annotations, failures), one entry per line. */
  let stdout: string[];
  const files = mkdtempSync(join(tmpdir(), "pb-summary-files-"));
  afterAll(() => rmSync(files, { recursive: true, force: true }));

  beforeEach(() => {
    ws = mkdtempSync(join(tmpdir(), "pb-summary-run-"));
    lines = [];
    stdout = [];
    vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
      stdout.push(...String(chunk).split("\n").filter(Boolean));
      return true;
    });
    writeFileSync(join(files, "summary.md"), "");
    writeFileSync(join(files, "output.txt"), "");
    vi.stubEnv("GITHUB_STEP_SUMMARY", join(files, "summary.md"));
    vi.stubEnv("GITHUB_OUTPUT", join(files, "output.txt"));
    vi.stubEnv("GITHUB_REPOSITORY", "octo/repo");
    vi.stubEnv("GITHUB_SHA", "abc");
    vi.stubEnv("GITHUB_API_URL", "https://api.github.test");
    for (const k of [
      "INPUT_PATHS",
      "INPUT_FAIL-ON",
      "INPUT_CHANGED-ONLY",
      "INPUT_TOKEN",
      "INPUT_CHECKS",
      "GITHUB_EVENT_PATH",
    ])
      vi.stubEnv(k, "");
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    process.exitCode = 0;
    rmSync(ws, { recursive: true, force: true });
  });

  function write(rel: string, text: string): void {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), text);
  }

  const outputs = () => readFileSync(join(files, "output.txt"), "utf8");

  function recorder(status = 201) {
    const calls: { url: string; method: string; body: Record<string, unknown> }[] = [];
    const fetcher = (async (url: string, init: { method: string; body: string }) => {
      calls.push({
        url,
        method: init.method,
        body: JSON.parse(init.body) as Record<string, unknown>,
      });
      return new Response(JSON.stringify({ id: 9 }), { status });
    }) as unknown as typeof fetch;
    return { calls, fetcher };
  }

  const go = (fetcher?: typeof fetch) =>
    run({
      workspace: ws,
      env: process.env,
      log: (l) => lines.push(l),
      ...(fetcher ? { fetch: fetcher } : {}),
    });

  it("refuses an unknown fail-on", async () => {
    vi.stubEnv("INPUT_FAIL-ON", "sometimes");
    expect(await go()).toBe(1);
    expect(process.exitCode).toBe(1);
    expect(lines).toEqual([]);
  });

  it("passes with zero files, says so, and sets zero outputs", async () => {
    expect(await go()).toBe(0);
    expect(lines).toEqual([
      "No playbook files matched .github/playbooks/**, playbooks/**.",
      "0 playbook files checked: 0 errors, 0 warnings.",
    ]);
    expect(outputs()).toMatch(/files<<\S+\n0\n/);
    expect(readFileSync(join(files, "summary.md"), "utf8")).toContain(
      "### ✅ Playbooks: 0 checked, 0 errors, 0 warnings",
    );
  });

  it("names the paths it was given when none matched", async () => {
    vi.stubEnv("INPUT_PATHS", "ops/**\n\nmore/*.yml");
    write("ops/readme.md", "not a playbook");
    expect(await go()).toBe(0);
    expect(lines[0]).toBe("No playbook files matched ops/**, more/*.yml.");
  });

  it("passes on warnings only, and fails on them with fail-on: warning", async () => {
    write("playbooks/w.yaml", WARNED);
    expect(await go()).toBe(0);
    expect(lines).toContain("1 playbook file checked: 0 errors, 1 warnings.");
    expect(
      stdout.some((l) =>
        l.startsWith("::warning title=step-no-description,file=playbooks/w.yaml,line=5,"),
      ),
    ).toBe(true);
    expect(outputs()).toMatch(/warnings<<\S+\n1\n/);
    lines = [];
    stdout = [];
    vi.stubEnv("INPUT_FAIL-ON", "warning");
    expect(await go()).toBe(1);
    expect(process.exitCode).toBe(1);
    expect(lines.some((l) => l.includes("checked:"))).toBe(false);
  });

  it("does not write a summary outside a job", async () => {
    vi.stubEnv("GITHUB_STEP_SUMMARY", "");
    write("playbooks/v.yaml", VALID("v"));
    expect(await go()).toBe(0);
    expect(readFileSync(join(files, "summary.md"), "utf8")).toBe("");
  });

  it("publishes a multi-line diagnostic without columns, and a warnings-only check as a success", async () => {
    write("playbooks/m.yaml", MULTI);
    write("playbooks/w.yaml", WARNED);
    vi.stubEnv("INPUT_TOKEN", "t0ken");
    vi.stubEnv("INPUT_CHECKS", "TRUE");
    const { calls, fetcher } = recorder();
    expect(await go(fetcher)).toBe(1);
    expect(calls).toHaveLength(1);
    const body = calls[0]?.body as {
      conclusion: string;
      output: { title: string; annotations: Record<string, unknown>[] };
    };
    expect(body.conclusion).toBe("failure");
    expect(body.output.title).toBe("2 playbook diagnostics");
    expect(body.output.annotations).toEqual([
      {
        path: "playbooks/m.yaml",
        start_line: 5,
        end_line: 7,
        annotation_level: "failure",
        message: "steps[0]: a comment step needs the field 'body'\nadd 'body: …'",
        title: "schema-missing-field",
      },
      expect.objectContaining({
        path: "playbooks/w.yaml",
        start_line: 5,
        end_line: 5,
        start_column: 9,
        end_column: 14,
        annotation_level: "warning",
      }),
    ]);
    expect(lines).toContain("Published check run 9 with 2 annotations.");

    rmSync(join(ws, "playbooks/m.yaml"));
    const second = recorder();
    lines = [];
    expect(await go(second.fetcher)).toBe(0);
    expect(second.calls[0]?.body.conclusion).toBe("success");
    expect(second.calls[0]?.url).toBe("https://api.github.test/repos/octo/repo/check-runs");
  });

  it("uses the global fetch when none is given", async () => {
    write("playbooks/w.yaml", WARNED);
    vi.stubEnv("INPUT_TOKEN", "t");
    vi.stubEnv("INPUT_CHECKS", "true");
    const { calls, fetcher } = recorder();
    vi.stubGlobal("fetch", fetcher);
    try {
      expect(await go()).toBe(0);
    } finally {
      vi.unstubAllGlobals();
    }
    expect(calls.map((c) => c.method)).toEqual(["POST"]);
  });

  it("resolves template files next to the playbook in the workspace", async () => {
    const withTemplate = `apiVersion: playbook-bot/v1
id: tpl
description: Commits a template.
steps:
  - id: b
    type: branch
    description: A branch.
    name: playbook/tpl
  - id: c
    type: commit
    description: Commit.
    branch: playbook/tpl
    message: add
    files:
      - { path: out.md, template: templates/t.md }
  - id: done
    type: end
    description: Finish.
`;
    write("playbooks/tpl.yaml", withTemplate);
    expect(await go()).toBe(1);
    expect(lines.some((l) => l.includes("templates/t.md"))).toBe(true);
    write("playbooks/templates/t.md", "hello");
    lines = [];
    expect(await go()).toBe(0);
    expect(lines).toContain("1 playbook file checked: 0 errors, 0 warnings.");
  });

  it("publishes to api.github.com by default", async () => {
    vi.stubEnv("GITHUB_API_URL", undefined);
    write("playbooks/w.yaml", WARNED);
    vi.stubEnv("INPUT_TOKEN", "t");
    vi.stubEnv("INPUT_CHECKS", "true");
    const { calls, fetcher } = recorder();
    await go(fetcher);
    expect(calls[0]?.url).toBe("https://api.github.com/repos/octo/repo/check-runs");
  });

  it("publishes no check without a token, without checks: true, or without the repository", async () => {
    write("playbooks/w.yaml", WARNED);
    const { calls, fetcher } = recorder();
    vi.stubEnv("INPUT_CHECKS", "true");
    expect(await go(fetcher)).toBe(0); // no token
    vi.stubEnv("INPUT_TOKEN", "t");
    vi.stubEnv("INPUT_CHECKS", "");
    expect(await go(fetcher)).toBe(0); // checks not set
    vi.stubEnv("INPUT_TOKEN", "t");
    vi.stubEnv("INPUT_CHECKS", "false");
    expect(await go(fetcher)).toBe(0); // not asked
    vi.stubEnv("INPUT_CHECKS", "true");
    vi.stubEnv("GITHUB_SHA", "");
    expect(await go(fetcher)).toBe(0); // no commit to attach it to
    expect(calls).toEqual([]);
    expect(lines.some((l) => l.startsWith("Published"))).toBe(false);
  });

  it("with changed-only, annotates only changed files; others are only listed", async () => {
    const git = (...args: string[]) =>
      execFileSync("git", args, {
        cwd: ws,
        encoding: "utf8",
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: "t",
          GIT_AUTHOR_EMAIL: "t@t",
          GIT_COMMITTER_NAME: "t",
          GIT_COMMITTER_EMAIL: "t@t",
        },
      }).trim();
    write("playbooks/old.yaml", WARNED.replace("id: warned", "id: old"));
    git("init", "-q", "-b", "main");
    git("add", ".");
    git("commit", "-qm", "base");
    const base = git("rev-parse", "HEAD");
    write("playbooks/new.yaml", WARNED);
    git("add", ".");
    git("commit", "-qm", "head");
    const head = git("rev-parse", "HEAD");
    write(
      "event.json",
      JSON.stringify({ pull_request: { base: { sha: base }, head: { sha: head } } }),
    );
    vi.stubEnv("GITHUB_EVENT_PATH", join(ws, "event.json"));
    vi.stubEnv("INPUT_CHANGED-ONLY", "True");
    expect(await go()).toBe(0);
    const annotated = stdout.filter((l) => l.startsWith("::warning "));
    expect(annotated).toHaveLength(1);
    expect(annotated[0]).toContain("file=playbooks/new.yaml");
    expect(lines).toContain(
      "1 of 2 diagnostics are not annotated (GitHub shows at most 10 of a kind per step); the job summary lists all of them.",
    );
    // Both are still in the log and the summary; only the changed playbook is drawn.
    expect(lines.filter((l) => l.includes(": warning: "))).toHaveLength(2);
    const summary = readFileSync(join(files, "summary.md"), "utf8");
    expect(summary).toContain("Graph of <code>warned</code>");
    expect(summary).not.toContain("Graph of <code>old</code>");
  });

  it("validates the set as a whole: a file may name another's id", async () => {
    const reports = validateSet(
      [
        { file: "playbooks/a.yaml", source: VALID("same") },
        { file: "playbooks/b.yaml", source: VALID("same") },
      ],
      {},
    );
    const md = summaryMarkdown(reports, undefined, 0, {});
    expect(md.split("\n")[0]).toMatch(/^### ❌ /);
    expect(md).toContain("`set-duplicate-id`");
  });
});
