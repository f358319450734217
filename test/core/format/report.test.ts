import { EOL } from "node:os";
import * as core from "@actions/core";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import type { RuleDiagnostic as Diagnostic } from "../../../src/core/rules/catalogue.js";
import { compareDiagnostics, describeValue } from "../../../src/core/format/diagnostics.js";
import {
  annotation,
  formatGithub,
  formatJson,
  workflowCommand,
} from "../../../src/core/format/report/machine.js";
import { formatText } from "../../../src/core/format/report/text.js";
import {
  countBySeverity,
  validateSource,
  type FileReport,
} from "../../../src/core/rules/validate.js";
import { yaml } from "./helpers.js";

const d = (over: Partial<Diagnostic> = {}): Diagnostic => ({
  rule: "goto-unresolved",
  severity: "error",
  file: "dir/a,b:c%.yaml",
  path: "steps[0].next",
  message: "100% wrong:\nsecond line, too",
  line: 3,
  column: 5,
  endLine: 3,
  endColumn: 9,
  ...over,
});

/** The line `@actions/core` writes for this diagnostic's annotation. */
function coreLine(diagnostic: Diagnostic): string {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    const { message, properties } = annotation(diagnostic);
    if (diagnostic.severity === "error") core.error(message, properties);
    else core.warning(message, properties);
  } finally {
    spy.mockRestore();
  }
  expect(written).toHaveLength(1);
  expect(written[0]?.endsWith(EOL)).toBe(true);
  return (written[0] as string).slice(0, -EOL.length);
}

describe("github workflow commands", () => {
  it("escapes %, CR and newline in data and also ':' and ',' in properties", () => {
    expect(workflowCommand(d({ hint: "fix: it, now" }))).toBe(
      "::error title=goto-unresolved,file=dir/a%2Cb%3Ac%25.yaml,line=3,endLine=3,col=5,endColumn=9::100%25 wrong:%0Asecond line, too%0Afix: it, now",
    );
    expect(workflowCommand(d({ severity: "warning", message: "a\r\nb" }))).toBe(
      "::warning title=goto-unresolved,file=dir/a%2Cb%3Ac%25.yaml,line=3,endLine=3,col=5,endColumn=9::a%0D%0Ab",
    );
  });

  it("is byte for byte the line @actions/core writes for the same annotation", () => {
    const hostile = fc.constantFrom(
      "\n::warning file=x::pwned",
      "::add-mask::secret",
      "%0A",
      "%25",
      "\r",
      "\r\n",
      ",",
      ":",
      "=",
      "##[add-mask]x",
    );
    const text = fc
      .array(fc.oneof(hostile, fc.string({ unit: "binary" })), { maxLength: 6 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(
        fc.record({
          severity: fc.constantFrom("error" as const, "warning" as const),
          file: text,
          message: text,
          hint: fc.option(text, { nil: undefined }),
          line: fc.nat({ max: 5 }),
          column: fc.nat({ max: 5 }),
          endLine: fc.nat({ max: 5 }),
          endColumn: fc.nat({ max: 5 }),
        }),
        (over) => {
          const diagnostic = d({
            ...over,
            ...(over.hint === undefined ? {} : { hint: over.hint }),
          });
          expect(workflowCommand(diagnostic)).toBe(coreLine(diagnostic));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("prints one line per diagnostic, and nothing when clean", () => {
    const reports: FileReport[] = [
      { file: "a", text: "", diagnostics: [d(), d({ line: 4 })] },
      { file: "b", text: "", diagnostics: [] },
    ];
    const out = formatGithub(reports);
    expect(out.split("\n")).toHaveLength(3);
    expect(out.endsWith("\n")).toBe(true);
    expect(formatGithub([{ file: "b", text: "", diagnostics: [] }])).toBe("");
  });
});

describe("json", () => {
  it("summarises validity per file and overall", () => {
    const good = validateSource(
      "good.yaml",
      "apiVersion: playbook-bot/v1\nid: good\nsteps: [{ id: e, type: end, name: E }]\n",
    );
    const bad = validateSource("bad.yaml", "apiVersion: playbook-bot/v1\n");
    const warn = validateSource(
      "warn.yaml",
      "apiVersion: playbook-bot/v1\nid: warn\nsteps: [{ id: e, type: end }]\n",
    );
    const json = JSON.parse(formatJson([good, bad, warn]));
    expect(json).toMatchObject({ valid: false, errors: 1, warnings: 1 });
    expect(
      json.files.map((f: { file: string; id: string | null; valid: boolean }) => [
        f.file,
        f.id,
        f.valid,
      ]),
    ).toEqual([
      ["good.yaml", "good", true],
      ["bad.yaml", null, false],
      ["warn.yaml", "warn", true],
    ]);
    expect(json.files[1].diagnostics[0]).toMatchObject({
      rule: "schema-missing-field",
      line: 1,
      column: 1,
      path: "(document)",
    });
    expect(JSON.parse(formatJson([good]))).toMatchObject({ valid: true, errors: 0, warnings: 0 });
  });
});

describe("text", () => {
  it("says all playbooks are valid when there is nothing to report", () => {
    expect(formatText([])).toBe("0 playbooks valid\n");
    expect(formatText([{ file: "a", text: "", diagnostics: [] }])).toBe("1 playbook valid\n");
  });

  it("shows the source line, an underline and the hint", () => {
    const r = validateSource(
      "pb.yaml",
      yaml`
        apiVersion: playbook-bot/v1
        id: t
        steps:
          - id: e
            type: end
      `,
    );
    expect(formatText([r])).toBe(
      [
        "pb.yaml:4:9: warning: steps[0]: step 'e' has neither name nor description [step-no-description]",
        "  |",
        "4 |   - id: e",
        "  |         ^",
        "  = hint: add a description: people read it in the status comment while the step is current",
        "0 errors and 1 warning in 1 file",
        "",
      ].join("\n"),
    );
  });

  it("underlines to the end of the line for multi-line spans and cuts long lines", () => {
    const long = "x".repeat(200);
    const report: FileReport = {
      file: "f",
      text: `${long}\nnext\n`,
      diagnostics: [
        d({
          file: "f",
          message: "m",
          line: 1,
          column: 3,
          endLine: 2,
          endColumn: 2,
          hint: undefined,
        }),
      ],
    };
    const lines = formatText([report]).split("\n");
    expect(lines[2]).toBe(`1 | ${"x".repeat(157)}...`);
    expect(lines[3]).toBe(`  |   ^${"~".repeat(80)}`);
    expect(lines.some((l) => l.includes("hint"))).toBe(false);
    expect(lines[4]).toBe("1 error and 0 warnings in 1 file (1 invalid)");
  });

  it("skips the excerpt for a blank or missing line", () => {
    const report: FileReport = {
      file: "f",
      text: "\n",
      diagnostics: [
        d({ file: "f", message: "m", line: 1, hint: "h" }),
        d({ file: "f", message: "n", line: 7 }),
      ],
    };
    expect(formatText([report])).toBe(
      "f:1:5: m [goto-unresolved]\n  = hint: h\nf:7:5: n [goto-unresolved]\n2 errors and 0 warnings in 1 file (1 invalid)\n",
    );
  });
  it("shows no excerpt of the playbook's text for a finding in another file (a paired SOP)", () => {
    const report: FileReport = {
      file: "specs/a.json",
      text: '{\n  "playbook_code": "a"\n}\n',
      diagnostics: [
        d({ file: "i18n/playbooks/en/a.md", message: "m", line: 2, severity: "warning" }),
      ],
    };
    expect(formatText([report])).toBe(
      "i18n/playbooks/en/a.md:2:5: warning: m [goto-unresolved]\n0 errors and 1 warning in 1 file\n",
    );
  });
});

describe("diagnostics helpers", () => {
  it("orders errors first, then file, line, column and rule", () => {
    const list = [
      d({ severity: "warning", file: "a" }),
      d({ file: "b", line: 1 }),
      d({ file: "a", line: 2, column: 9 }),
      d({ file: "a", line: 2, column: 1, rule: "self-loop" }),
      d({ file: "a", line: 2, column: 1, rule: "branch-empty" }),
      d({ file: "a", line: 2, column: 1, rule: "branch-empty" }),
    ];
    const sorted = [...list].sort(compareDiagnostics);
    expect(sorted.map((x) => `${x.severity}:${x.file}:${x.line}:${x.column}:${x.rule}`)).toEqual([
      "error:a:2:1:branch-empty",
      "error:a:2:1:branch-empty",
      "error:a:2:1:self-loop",
      "error:a:2:9:goto-unresolved",
      "error:b:1:5:goto-unresolved",
      "warning:a:3:5:goto-unresolved",
    ]);
  });

  it("describes values briefly", () => {
    expect(describeValue("x".repeat(70))).toBe(`'${"x".repeat(57)}...'`);
    expect(describeValue(null)).toBe("null");
    expect(describeValue([1])).toBe("a list");
    expect(describeValue({})).toBe("a mapping");
    expect(describeValue(3)).toBe("3");
    expect(describeValue(true)).toBe("true");
  });

  it("counts errors and warnings across reports", () => {
    expect(
      countBySeverity([
        { file: "a", text: "", diagnostics: [d(), d({ severity: "warning" })] },
        { file: "b", text: "", diagnostics: [d()] },
      ]),
    ).toEqual({ errors: 2, warnings: 1 });
  });
});

describe("the text format inside a workflow's log", () => {
  it("keeps a file's text on its own line: no workflow command can start", () => {
    const source =
      'apiVersion: playbook-bot/v1\nid: x\nsteps:\n  - id: a\n    type: "comit\\n::add-mask::secret\\n##[warning]pwned"\n';
    const text = formatText([validateSource("::warning file=x::a.yaml", source)]);
    for (const line of text.split("\n")) {
      expect(line).not.toMatch(/^\s*::/);
      expect(line).not.toContain("##[");
    }
    expect(text).toContain("::add-mask::secret"); // still there, as text inside a line
  });
});
