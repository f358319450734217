import "../../adapters/local/yaml-library.js";
import { realpathSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import * as core from "@actions/core";
import { plainLine } from "../../core/util/log-line.js";
import { compareDiagnostics, type Diagnostic } from "../../core/format/diagnostics.js";
import { bundledPlaybooks, fileExistsNextTo, IGNORED_GLOBS } from "../../adapters/local/library.js";
import { siblingsOnDisk } from "../../adapters/local/siblings.js";
import {
  filesUnder,
  playbookSource,
  readConfinedText,
  writeReportFile,
} from "../../adapters/local/safe-files.js";
import { isPlaybookFile } from "../../core/dialects/files.js";
import { PlaybookGraph } from "../../core/format/graph.js";
import { renderMermaid } from "../../core/format/mermaid.js";
import { annotation } from "../../core/format/report/machine.js";
import { formatSarif } from "../../core/format/report/sarif.js";
import { findRepositoryRoot, sarifRoot, toolInfo } from "../../adapters/local/sarif-context.js";
import { changedFiles } from "./changed-files.js";
import { countBySeverity, validateSet, type FileReport } from "../../core/rules/validate.js";

/** GitHub shows at most this many annotations of one kind per step (and 50 per job), dropping the rest silently. */
export const ANNOTATIONS_PER_KIND = 10;
/** The Checks API takes at most 50 annotations per request. */
export const CHECK_ANNOTATIONS_PER_REQUEST = 50;

export const DEFAULT_PATHS = [".github/playbooks/**", "playbooks/**"];

export interface ActionEnv {
  workspace: string;
  env: NodeJS.ProcessEnv;
  /**
   * Writes a plain line to the job log (stdout). Lines reach it through plainLine(), so none is
   * a workflow command; annotations and failures go through `@actions/core`, which escapes them.
   */
  log: (line: string) => void;
  fetch?: typeof fetch;
}

/**
 * Changed files (paths from the repository root) as the workspace's relative paths, which
 * diagnostics carry: the same unless the repository was checked out below the workspace.
 */
export function inWorkspace(changed: Set<string>, rootDir: string, workspace: string): Set<string> {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const root = real(rootDir);
  const ws = real(workspace);
  return new Set([...changed].map((p) => relative(ws, resolve(root, p)).split(sep).join("/")));
}

/**
 * Text as inert Markdown on one line, for a table cell or a link's text: the characters that
 * open HTML, entities, code, emphasis, links, images, math and table cells are backslash-escaped.
 * Mentions and literal autolinks are found in the rendered text, where escapes no longer show,
 * so a zero-width space follows each `@` and breaks each `://` and `www.`: `@name` is no live
 * mention and a URL no link.
 */
export function mdText(text: string): string {
  return text
    .replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, " ")
    .replace(/[\\`*_~[\]<>&|$]/g, (c) => `\\${c}`)
    .replace(/(@|:(?=\/\/)|\bwww(?=\.))/gi, "$1\u200b");
}

/** Text as a Markdown code span for a table cell: literal (no HTML, links or mentions) on one line. */
export function mdCode(text: string): string {
  const flat = text.replace(/[\p{Cc}\p{Zl}\p{Zp}]+/gu, " ").replace(/\|/g, "\\|");
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(flat) ? " " : "";
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** Text inside raw HTML (the graph's <summary>). */
function htmlText(text: string): string {
  return text.replace(
    /[&<>"'@]/g,
    (c) =>
      ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "@": "@\u200b" })[
        c
      ] ?? c,
  );
}

/** A path segment for a link destination: also encodes the parentheses Markdown would read. */
function urlSegment(segment: string): string {
  return encodeURIComponent(segment).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function lineLink(env: NodeJS.ProcessEnv, d: Diagnostic): string {
  const server = env.GITHUB_SERVER_URL ?? "https://github.com";
  const repo = env.GITHUB_REPOSITORY;
  const sha = env.GITHUB_SHA;
  const where = `${d.file}:${d.line}:${d.column}`;
  if (!repo || !sha) return mdCode(where);
  return `[${mdText(where)}](${server}/${repo}/blob/${sha}/${d.file.split("/").map(urlSegment).join("/")}#L${d.line}${d.endLine !== d.line ? `-L${d.endLine}` : ""})`;
}

/** The job summary: playbooks checked, every diagnostic with a link, a graph of each changed playbook. */
export function summaryMarkdown(
  reports: FileReport[],
  changed: Set<string> | undefined,
  notAnnotated: number,
  env: NodeJS.ProcessEnv,
): string {
  const { errors, warnings } = countBySeverity(reports);
  const lines: string[] = [];
  lines.push(
    `### ${errors > 0 ? "❌" : "✅"} Playbooks: ${reports.length} checked, ${errors} ${errors === 1 ? "error" : "errors"}, ${warnings} ${warnings === 1 ? "warning" : "warnings"}`,
    "",
  );
  lines.push("| playbook | file | steps | result |", "|---|---|---:|---|");
  for (const r of reports) {
    const e = r.diagnostics.filter((d) => d.severity === "error").length;
    const w = r.diagnostics.length - e;
    const steps = r.playbook ? new PlaybookGraph(r.playbook).steps.length : 0;
    lines.push(
      `| ${r.playbook?.id ? mdText(r.playbook.id) : "—"} | ${mdCode(r.file)} | ${steps || "—"} | ${e ? `❌ ${e} error${e === 1 ? "" : "s"}` : "✅ valid"}${w ? `, ${w} warning${w === 1 ? "" : "s"}` : ""} |`,
    );
  }
  const all = reports.flatMap((r) => r.diagnostics).sort(compareDiagnostics);
  if (all.length) {
    lines.push("", "#### Diagnostics", "");
    if (notAnnotated > 0)
      lines.push(
        `_${notAnnotated} of ${all.length} are not shown as annotations on the diff (GitHub shows at most ${ANNOTATIONS_PER_KIND} of a kind per step); all are listed here._`,
        "",
      );
    lines.push("| where | rule | message |", "|---|---|---|");
    for (const d of all)
      lines.push(
        `| ${lineLink(env, d)} | ${d.severity === "error" ? "❌" : "⚠️"} ${mdCode(d.rule)} | ${mdText(d.message)}${d.hint ? ` — _${mdText(d.hint)}_` : ""} |`,
      );
  }
  const drawn = reports.filter((r) => r.playbook && (!changed || changed.has(r.file)));
  for (const r of drawn.slice(0, 20)) {
    lines.push(
      "",
      `<details><summary>Graph of <code>${htmlText(r.playbook?.id ?? "")}</code></summary>`,
      "",
      "```mermaid",
      renderMermaid(r.playbook as NonNullable<FileReport["playbook"]>).trimEnd(),
      "```",
      "",
      "</details>",
    );
  }
  return lines.join("\n") + "\n";
}

/** Annotations in order of importance: errors before warnings, changed files first, then by position. */
export function annotationOrder(all: Diagnostic[], changed: Set<string> | undefined): Diagnostic[] {
  const inChanged = (d: Diagnostic) => (changed ? (changed.has(d.file) ? 0 : 1) : 0);
  return [...all].sort((a, b) =>
    a.severity === b.severity
      ? inChanged(a) - inChanged(b) || compareDiagnostics(a, b)
      : a.severity === "error"
        ? -1
        : 1,
  );
}

async function publishCheck(
  env: NodeJS.ProcessEnv,
  token: string,
  diagnostics: Diagnostic[],
  summary: string,
  fetcher: typeof fetch,
  log: (l: string) => void,
): Promise<void> {
  const api = env.GITHUB_API_URL ?? "https://api.github.com";
  const repo = env.GITHUB_REPOSITORY;
  const sha = env.GITHUB_SHA;
  if (!repo || !sha) return;
  const headers = {
    authorization: `Bearer ${token}`,
    accept: "application/vnd.github+json",
    "content-type": "application/json",
  };
  const annotations = diagnostics.map((d) => ({
    path: d.file,
    start_line: d.line,
    end_line: d.endLine,
    ...(d.line === d.endLine ? { start_column: d.column, end_column: d.endColumn } : {}),
    annotation_level: d.severity === "error" ? "failure" : "warning",
    message: d.hint ? `${d.message}\n${d.hint}` : d.message,
    title: d.rule,
  }));
  const conclusion = diagnostics.some((d) => d.severity === "error") ? "failure" : "success";
  const output = (batch: unknown[]) => ({
    title: `${diagnostics.length} playbook diagnostics`,
    summary: summary.slice(0, 65_000),
    annotations: batch,
  });
  const first = annotations.slice(0, CHECK_ANNOTATIONS_PER_REQUEST);
  const created = await fetcher(`${api}/repos/${repo}/check-runs`, {
    method: "POST",
    headers,
    body: JSON.stringify({
      name: "Playbooks",
      head_sha: sha,
      status: "completed",
      conclusion,
      output: output(first),
    }),
  });
  if (!created.ok) {
    log(`Could not publish a check run (HTTP ${created.status}); annotations above still apply.`);
    return;
  }
  const { id } = (await created.json()) as { id: number };
  for (
    let i = CHECK_ANNOTATIONS_PER_REQUEST;
    i < annotations.length;
    i += CHECK_ANNOTATIONS_PER_REQUEST
  ) {
    await fetcher(`${api}/repos/${repo}/check-runs/${id}`, {
      method: "PATCH",
      headers,
      body: JSON.stringify({
        output: output(annotations.slice(i, i + CHECK_ANNOTATIONS_PER_REQUEST)),
      }),
    });
  }
  log(`Published check run ${id} with ${annotations.length} annotations.`);
}

/**
 * The Action: validate the playbooks, annotate the most important diagnostics on their lines,
 * write a summary listing all of them, set outputs, and fail when told to. Writes nothing to the
 * repository; its token only reads (a pull request's files) unless `checks` publishes a check run.
 */
export async function run(a: ActionEnv): Promise<number> {
  const say = (text: string) => a.log(plainLine(text));
  const patterns = core.getMultilineInput("paths").filter(Boolean);
  const failOn = core.getInput("fail-on") || "error";
  if (failOn !== "error" && failOn !== "warning") {
    core.setFailed(`fail-on must be 'error' or 'warning', not '${failOn}'`);
    return 1;
  }
  const changedOnly = (core.getInput("changed-only") || "false").toLowerCase() === "true";
  const files =
    // A linked folder is not walked (it may lead out of the checkout); a linked file, a pipe or
    // a device is listed, and refused when read.
    (
      await filesUnder(a.workspace, patterns.length ? patterns : DEFAULT_PATHS, {
        ignore: IGNORED_GLOBS,
      })
    )
      .filter((f) =>
        isPlaybookFile(
          f,
          () => readConfinedText(resolve(a.workspace, f), { root: a.workspace }) ?? "",
        ),
      )
      .sort();
  // Files are read as data inside the workspace: a link, a device or pipe, or a file over the
  // cap is a finding of its own (file-refused), not a hang of the job or a file from elsewhere.
  const reports = validateSet(
    files.map((f) => ({
      file: f,
      source: playbookSource(resolve(a.workspace, f), { root: a.workspace }),
    })),
    // Targets may also be bundled playbooks, as the app offers them.
    {
      fileExists: (file, rel) => fileExistsNextTo(resolve(a.workspace, file), rel, a.workspace),
      // A dialect's sidecars, read inside the workspace only.
      siblings: (file) => siblingsOnDisk(resolve(a.workspace, file), a.workspace),
      known: await bundledPlaybooks(),
    },
  );
  const token = core.getInput("token");
  if (token) core.setSecret(token);
  // Asked of git only when a changed-file list or SARIF needs it: git is a process of its own.
  let root: ReturnType<typeof findRepositoryRoot> | undefined;
  const repositoryRoot = () => (root ??= findRepositoryRoot(a.workspace, a.env));
  const listed = changedOnly
    ? await changedFiles({
        env: a.env,
        workspace: a.workspace,
        token,
        fetch: a.fetch ?? fetch,
        warn: (message) => core.warning(message),
      })
    : undefined;
  const changed = listed?.files && inWorkspace(listed.files, repositoryRoot().dir, a.workspace);
  if (listed && !listed.pullRequest)
    say("changed-only: the workflow does not run for a pull request; annotating every file.");
  const all = reports.flatMap((r) => r.diagnostics);
  // Everything is validated (a changed file can break one that names it); only changed files are annotated.
  const annotatable = changed ? all.filter((d) => changed.has(d.file)) : all;
  const ordered = annotationOrder(annotatable, changed);
  const shown = [
    ...ordered.filter((d) => d.severity === "error").slice(0, ANNOTATIONS_PER_KIND),
    ...ordered.filter((d) => d.severity === "warning").slice(0, ANNOTATIONS_PER_KIND),
  ];
  for (const d of shown) {
    const { message, properties } = annotation(d);
    if (d.severity === "error") core.error(message, properties);
    else core.warning(message, properties);
  }
  const notAnnotated = all.length - shown.length;
  if (notAnnotated > 0)
    say(
      `${notAnnotated} of ${all.length} diagnostics are not annotated (GitHub shows at most ${ANNOTATIONS_PER_KIND} of a kind per step); the job summary lists all of them.`,
    );
  for (const d of all.sort(compareDiagnostics))
    say(`${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message} [${d.rule}]`);
  const summary = summaryMarkdown(reports, changed, notAnnotated, a.env);
  if (a.env.GITHUB_STEP_SUMMARY) await core.summary.addRaw(summary).write();
  const { errors, warnings } = countBySeverity(reports);
  core.setOutput("files", String(reports.length));
  core.setOutput("errors", String(errors));
  core.setOutput("warnings", String(warnings));
  const sarifFile = core.getInput("sarif-file");
  if (sarifFile) {
    const target = resolve(a.workspace, sarifFile);
    const { dir } = repositoryRoot();
    // The workspace is the checkout, a fork's too: no link there takes the report elsewhere.
    writeReportFile(
      target,
      formatSarif(reports, { ...toolInfo(), root: sarifRoot(dir, a.workspace) }),
      a.workspace,
    );
    core.setOutput("sarif-file", target);
    say(`Wrote SARIF for ${all.length} diagnostics to ${sarifFile} (paths from ${dir}).`);
  }
  if (token && (core.getInput("checks") || "false").toLowerCase() === "true") {
    await publishCheck(a.env, token, annotationOrder(all, changed), summary, a.fetch ?? fetch, say);
  }
  if (files.length === 0)
    say(`No playbook files matched ${(patterns.length ? patterns : DEFAULT_PATHS).join(", ")}.`);
  const failed = errors > 0 || (failOn === "warning" && warnings > 0);
  if (failed) {
    core.setFailed(
      `${errors} ${errors === 1 ? "error" : "errors"} and ${warnings} ${warnings === 1 ? "warning" : "warnings"} in ${reports.length} playbook ${reports.length === 1 ? "file" : "files"}`,
    );
    return 1;
  }
  say(
    `${reports.length} playbook ${reports.length === 1 ? "file" : "files"} checked: ${errors} errors, ${warnings} warnings.`,
  );
  return 0;
}
