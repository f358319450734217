import "../../../adapters/local/yaml-library.js";
import { relative, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { bundledPlaybooks, loadBundledReports } from "../../../adapters/local/library.js";
import { runCase } from "../../../adapters/local/playbook-tests.js";
import { playbookSource, rootFor } from "../../../adapters/local/safe-files.js";
import { formatText } from "../../../core/format/report/text.js";
import {
  testResultsJson,
  testResultsJunit,
  type CaseOutcome,
  type TestResults,
} from "../../../core/format/report/test-results.js";
import { countBySeverity, validateSet, type FileReport } from "../../../core/rules/validate.js";
import type { PlaybookBundle } from "../../../core/steps/types.js";
import type { Colours } from "../colour.js";
import { coloursFor, EXIT, textStyle, type CliContext } from "../cli-io.js";
import { bundleOf } from "../local-playbooks.js";
import { onDisk, resolvePlaybookFiles } from "../playbook-files.js";
import { writeReport } from "./validate.js";

export interface TestFlags {
  format: "text" | "json" | "junit";
  outputFile?: string;
}

/** The playbooks cases may delegate to: the set's first, then the bundled library's. */
async function bundlesOf(cwd: string, reports: FileReport[]): Promise<Map<string, PlaybookBundle>> {
  const bundles = new Map<string, PlaybookBundle>();
  const local = reports.map((r) => ({ ...r, file: resolve(cwd, r.file) }));
  for (const r of [...local, ...(await loadBundledReports())]) {
    const b = bundleOf(r);
    if (b && !bundles.has(b.playbook.id)) bundles.set(b.playbook.id, b);
  }
  return bundles;
}

/** Every golden case of the set's valid playbooks, run with every effect simulated. */
async function runCases(cwd: string, reports: FileReport[], results: TestResults): Promise<void> {
  const bundles = await bundlesOf(cwd, reports);
  for (const r of reports) {
    const bundle = r.playbook && bundles.get(r.playbook.id);
    if (!bundle || bundle.playbook !== r.playbook) continue;
    if (!r.playbook?.tests?.length) {
      results.withoutTests++;
      continue;
    }
    for (const tc of r.playbook.tests) {
      const started = performance.now();
      const result = await runCase(bundle, (id) => bundles.get(id), tc);
      const seconds = (performance.now() - started) / 1000;
      results.cases.push({ ...result, file: r.file, seconds });
    }
  }
}

function caseLine(c: CaseOutcome, colour: Colours): string {
  if (c.ok) return `${colour.green("✔")} ${c.playbook}: ${c.name}\n`;
  const problems = c.problems.map((p) => `    ${p}`).join("\n");
  return `${colour.red("✖")} ${c.playbook}: ${c.name}\n${problems}\n`;
}

function resultsText(ctx: CliContext, results: TestResults, toFile: boolean): string {
  if (results.invalid.length > 0)
    return formatText(results.invalid, textStyle(ctx, toFile ? "file" : "out"));
  const colour = coloursFor(ctx, toFile ? "file" : "out");
  const failed = results.cases.filter((c) => !c.ok).length;
  const passed = results.cases.length - failed;
  const without = results.withoutTests;
  const tail = without
    ? ` (${without} ${without === 1 ? "playbook has" : "playbooks have"} no tests)`
    : "";
  return (
    results.cases.map((c) => caseLine(c, colour)).join("") +
    `${passed} ${passed === 1 ? "case" : "cases"} passed, ${failed} failed${tail}\n`
  );
}

/** `playbook-bot test`: golden cases of every playbook in the set; 0 all pass, 1 any fails. */
export async function testCommand(
  ctx: CliContext,
  paths: readonly string[],
  opts: TestFlags,
): Promise<number> {
  const { io } = ctx;
  const files = await resolvePlaybookFiles(paths, io.cwd);
  const reports = validateSet(
    files.map((file) => ({
      file: relative(io.cwd, file) || file,
      source: playbookSource(file, { root: rootFor(file, io.cwd) }),
    })),
    { ...onDisk(io.cwd), known: await bundledPlaybooks() },
  );
  const results: TestResults = { cases: [], invalid: [], withoutTests: 0 };
  if (countBySeverity(reports).errors > 0)
    results.invalid = reports.filter((r) => r.diagnostics.some((d) => d.severity === "error"));
  else await runCases(io.cwd, reports, results);
  const toFile = opts.outputFile !== undefined;
  const text =
    opts.format === "json"
      ? testResultsJson(results)
      : opts.format === "junit"
        ? testResultsJunit(results)
        : resultsText(ctx, results, toFile);
  if (opts.outputFile !== undefined) writeReport(resolve(io.cwd, opts.outputFile), text);
  else io.out(text);
  const failed = results.invalid.length > 0 || results.cases.some((c) => !c.ok);
  return failed ? EXIT.invalid : EXIT.ok;
}
