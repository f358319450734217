import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { readConfined, rootFor } from "../../adapters/local/safe-files.js";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { capAlertData, shortened } from "../../core/alerts/caps.js";
import { normaliseSeverity } from "../../core/alerts/types.js";
import type { InputSources } from "../../core/engine/inputs.js";
import { runResolver } from "../../core/engine/render.js";
import type { RunContext, RunState } from "../../core/engine/state.js";
import { makeDiagnostic } from "../../core/rules/catalogue.js";
import { PlaybookGraph } from "../../core/format/graph.js";
import { PLAYBOOK_SCHEMA } from "../../core/format/schema.js";
import { formatPath, loadSourceText, parsePointer } from "../../core/format/source.js";
import type { TestCase } from "../../core/format/types.js";
import { LOCAL_CONTEXT } from "../../core/format/vocabulary.js";
import {
  contextReferences,
  textContextReferences,
  type ContextReference,
} from "../../core/rules/analysis/references.js";
import { unprovidedContext } from "../../core/rules/templates/template-unresolved.js";
import { validateSource, type FileReport } from "../../core/rules/validate.js";
import type { SourcedBundle } from "../../runtime/tiers.js";
import { parseGitHubRemote } from "./github-remote.js";

/** An alert for a local run: the fields a golden case writes under `alert:`. */
export type LocalAlert = NonNullable<TestCase["alert"]>;

/** A bad `--alert` file: the message says where (file:line:column) and what. */
export class LocalContextError extends Error {}

const validateAlert = new Ajv2020({ allErrors: true, strict: false }).compile(
  PLAYBOOK_SCHEMA.definitions.test_case.properties.alert,
);

/** Read `--alert <file>` (YAML or JSON, as a golden case's `alert:`). */
export function parseAlertFile(file: string, text: string): LocalAlert {
  const loaded = loadSourceText(file, text);
  if (!loaded.ok) {
    const p = loaded.problems[0];
    throw new LocalContextError(`${file}:${p?.span.line}:${p?.span.column}: ${p?.message}`);
  }
  if (!validateAlert(loaded.document.value)) {
    const e = validateAlert.errors?.[0];
    const path = parsePointer(e?.instancePath ?? "");
    const s = loaded.document.span(path);
    const extra =
      e?.keyword === "additionalProperties"
        ? ` ('${String((e.params as { additionalProperty?: string }).additionalProperty)}')`
        : "";
    throw new LocalContextError(
      `${file}:${s.line}:${s.column}: ${formatPath(path)}: ${e?.message ?? "invalid"}${extra}` +
        " (an alert has title, summary, severity, status, source, labels and annotations)",
    );
  }
  return loaded.document.value as LocalAlert;
}

/** `--alert <file>`, relative to `cwd`: read and checked. */
export function readAlertFile(cwd: string, given: string): LocalAlert {
  const file = resolve(cwd, given);
  if (!existsSync(file)) throw new LocalContextError(`--alert ${given}: no such file`);
  const read = readConfined(file, { root: rootFor(file, cwd) });
  if (!read.ok)
    throw new LocalContextError(`--alert ${given}: ${read.refusal.message} (${read.refusal.rule})`);
  return parseAlertFile(given, read.bytes.toString("utf8"));
}

export interface LocalContextOptions {
  /** The git work tree the run acts on. */
  repo: string;
  /** `--issue <n>`: the GitHub issue the run is for. */
  issue?: number;
  /** `--alert <file>`, read. */
  alert?: LocalAlert;
}

function gitLine(repo: string, args: string[]): string | undefined {
  try {
    const out = execFileSync("git", args, {
      cwd: repo,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return out === "" ? undefined : out;
  } catch {
    return undefined;
  }
}

/**
 * What a local run knows (see `LOCAL_CONTEXT`): the repository's name and checked-out branch,
 * its owner where `origin` is on GitHub, an issue only when given one, an alert only when given
 * one. Nothing is made up: a value the run does not have stays absent and is refused up front.
 */
export function localRunContext(o: LocalContextOptions): {
  context: RunContext;
  sources: Pick<InputSources, "alert" | "issue">;
} {
  const url = gitLine(o.repo, ["remote", "get-url", "origin"]);
  const remote = url ? parseGitHubRemote(url) : undefined;
  const repo: NonNullable<RunContext["repo"]> = { name: remote?.repo ?? basename(o.repo) };
  if (remote) {
    repo.owner = remote.owner;
    repo.full_name = `${remote.owner}/${remote.repo}`;
  }
  const branch = gitLine(o.repo, ["symbolic-ref", "--short", "-q", "HEAD"]);
  if (branch) repo.default_branch = branch;
  const context: RunContext = { repo };
  const sources: Pick<InputSources, "alert" | "issue"> = {};
  if (o.issue !== undefined) {
    context.issue = { number: o.issue };
    sources.issue = { number: o.issue };
    if (remote) {
      context.issue.url = `https://github.com/${remote.owner}/${remote.repo}/issues/${o.issue}`;
      context.url = context.issue.url;
    }
  }
  if (o.alert) {
    const labels = o.alert.labels ?? {};
    const annotations = o.alert.annotations ?? {};
    // Bounded as the app bounds an alert's data: the state keeps a part, inputs get shortened values.
    const capped = capAlertData(labels, annotations);
    context.alert = {
      title: (o.alert.title ?? "").slice(0, 256),
      summary: (o.alert.summary ?? "").slice(0, 1024),
      severity: normaliseSeverity(o.alert.severity),
      status: o.alert.status ?? "firing",
      source: o.alert.source ?? "generic",
      labels: capped.labels,
      annotations: capped.annotations,
    };
    sources.alert = { labels: shortened(labels), annotations: shortened(annotations) };
  }
  return { context, sources };
}

/** A path as the person at the terminal reads it: relative where it lies under the folder. */
function shown(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}

/**
 * The templates of a local run's playbooks (the root and its delegates, and the files their steps
 * read) that name context this run does not have: errors at file:line:column with how to give
 * it, found before any step runs. Empty when the run has everything it uses.
 */
export function missingLocalContext(
  run: RunState,
  bundles: readonly SourcedBundle[],
  cwd: string,
): FileReport[] {
  const resolve = runResolver(run);
  const check = (file: string, text: string, refs: ContextReference[]): FileReport => ({
    file,
    text,
    diagnostics: unprovidedContext(
      refs,
      (ref) => resolve([...ref]) !== undefined,
      LOCAL_CONTEXT,
      "a local run",
    ).map((d) => makeDiagnostic(file, d)),
  });
  const reports: FileReport[] = [];
  for (const b of bundles) {
    const report = validateSource(b.file, b.source);
    if (report.doc && report.playbook) {
      const graph = new PlaybookGraph(report.playbook);
      const ctx = { doc: report.doc, playbook: report.playbook, graph };
      reports.push(check(shown(b.file, cwd), report.text, contextReferences(ctx)));
    }
    for (const [rel, text] of Object.entries(b.files ?? {}))
      reports.push(
        check(shown(join(dirname(b.file), rel), cwd), text, textContextReferences(text)),
      );
  }
  return reports.filter((r) => r.diagnostics.length > 0);
}
