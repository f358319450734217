import type { FileReport } from "../../rules/validate.js";

/** One golden case's outcome, as `playbook-bot test` reports it. */
export interface CaseOutcome {
  playbook: string;
  /** The playbook's file, as the command names it. */
  file: string;
  name: string;
  ok: boolean;
  problems: string[];
  /** The steps the case went through. */
  path: string[];
  status: string;
  seconds: number;
}

/** What a `test` command found: the cases run, and the files too invalid to run any. */
export interface TestResults {
  cases: CaseOutcome[];
  invalid: FileReport[];
  /** Playbooks that have no `tests:`. */
  withoutTests: number;
}

/** The results as JSON: every case, its problems, and the invalid files' errors. */
export function testResultsJson(results: TestResults): string {
  const failed = results.cases.filter((c) => !c.ok).length;
  const body = {
    passed: results.cases.length - failed,
    failed,
    invalid: results.invalid.length,
    withoutTests: results.withoutTests,
    cases: results.cases,
    invalidFiles: results.invalid.map((r) => ({
      file: r.file,
      errors: r.diagnostics.filter((d) => d.severity === "error"),
    })),
  };
  return JSON.stringify(body, null, 2) + "\n";
}

/** Text as an XML attribute or element holds it: markup escaped, characters XML forbids dropped. */
function xml(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- the control characters XML 1.0 cannot hold
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "")
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&apos;")
  );
}

function caseElement(c: CaseOutcome): string {
  const head = `    <testcase name="${xml(c.name)}" classname="${xml(c.playbook)}" file="${xml(c.file)}" time="${c.seconds.toFixed(3)}"`;
  if (c.ok) return `${head}/>`;
  const message = c.problems[0] ?? "the case failed";
  return `${head}>\n      <failure message="${xml(message)}" type="case">${xml(c.problems.join("\n"))}</failure>\n    </testcase>`;
}

/** An invalid file as a suite whose one case, "validates", fails with each error and its line. */
function invalidSuite(report: FileReport): string {
  const errors = report.diagnostics.filter((d) => d.severity === "error");
  const lines = errors.map((d) => `${report.file}:${d.line}:${d.column} ${d.rule}: ${d.message}`);
  return [
    `  <testsuite name="${xml(report.file)}" tests="1" failures="1" errors="0" skipped="0" time="0.000">`,
    `    <testcase name="validates" classname="${xml(report.file)}" file="${xml(report.file)}" time="0.000">`,
    `      <failure message="${xml(lines[0] ?? "invalid")}" type="invalid">${xml(lines.join("\n"))}</failure>`,
    `    </testcase>`,
    `  </testsuite>`,
  ].join("\n");
}

/** The results as JUnit XML, one suite per playbook: what CI systems read test reports from. */
export function testResultsJunit(results: TestResults): string {
  const byPlaybook = new Map<string, CaseOutcome[]>();
  for (const c of results.cases)
    byPlaybook.set(c.playbook, [...(byPlaybook.get(c.playbook) ?? []), c]);
  const suites = [...byPlaybook].map(([id, cases]) => {
    const failures = cases.filter((c) => !c.ok).length;
    const time = cases.reduce((s, c) => s + c.seconds, 0).toFixed(3);
    return [
      `  <testsuite name="${xml(id)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0" time="${time}" file="${xml(cases[0]?.file ?? "")}">`,
      ...cases.map(caseElement),
      `  </testsuite>`,
    ].join("\n");
  });
  const tests = results.cases.length + results.invalid.length;
  const failures = results.cases.filter((c) => !c.ok).length + results.invalid.length;
  const time = results.cases.reduce((s, c) => s + c.seconds, 0).toFixed(3);
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="playbook-bot test" tests="${tests}" failures="${failures}" errors="0" time="${time}">`,
    ...results.invalid.map(invalidSuite),
    ...suites,
    `</testsuites>`,
    "",
  ].join("\n");
}
