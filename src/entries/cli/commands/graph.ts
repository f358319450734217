import "../../../adapters/local/yaml-library.js";
import { existsSync } from "node:fs";
import { relative, resolve } from "node:path";
import { distance } from "fastest-levenshtein";
import { playbookSource, rootFor } from "../../../adapters/local/safe-files.js";
import { graphOf } from "../../../core/format/graph.js";
import { renderMermaid } from "../../../core/format/mermaid.js";
import { formatText } from "../../../core/format/report/text.js";
import { validateSource, type FileReport } from "../../../core/rules/validate.js";
import type { PlaybookDocument } from "../../../core/format/types.js";
import { plainLine } from "../../../core/util/log-line.js";
import { didYouMean } from "../../../core/util/suggest.js";
import { EXIT, textStyle, UsageError, type CliContext } from "../cli-io.js";
import { findTarget, loadLocalPlaybooks } from "../local-playbooks.js";
import { onDisk } from "../playbook-files.js";

/**
 * Why `graph --current <step>` is refused: the file has no such step. The ids nearest it (by
 * edit distance, close enough to be a typo) as "did you mean", then the steps it has.
 */
export function unknownStep(file: string, step: string, steps: readonly string[]): string {
  const typed = step.toLowerCase();
  const allowed = Math.max(1, Math.floor(Math.max(step.length, 3) / 3));
  const near = steps
    .map((id) => ({ id, d: distance(typed, id.toLowerCase()) }))
    .filter((c) => c.d <= allowed)
    .sort((a, b) => a.d - b.d || (a.id < b.id ? -1 : 1))
    .slice(0, 3)
    .map((c) => `'${c.id}'`);
  const guess = near.length
    ? ` — did you mean ${near.length === 1 ? near[0] : `one of ${near.join(", ")}`}?`
    : "";
  const listed = steps.slice(0, 20).join(", ") + (steps.length > 20 ? ", …" : "");
  return plainLine(`${file} has no step '${step}'${guess} (its steps: ${listed})`);
}

type Found = { file: string; playbook?: PlaybookDocument; report?: FileReport };

/** The playbook `graph` draws: a file as given, else an id (or `on.command`) as `run` finds it. */
async function playbookNamed(ctx: CliContext, target: string): Promise<Found> {
  const { io } = ctx;
  const abs = resolve(io.cwd, target);
  if (existsSync(abs)) {
    const source = playbookSource(abs, { root: rootFor(abs, io.cwd) });
    const report = validateSource(target, source, onDisk(io.cwd));
    return { file: target, report, ...(report.playbook ? { playbook: report.playbook } : {}) };
  }
  const set = await loadLocalPlaybooks(io.cwd);
  const found = findTarget(set, target, io.cwd);
  if (found.bundle)
    return { file: relative(io.cwd, found.bundle.file), playbook: found.bundle.playbook };
  if (found.report) return { file: found.report.file, report: found.report };
  const near = didYouMean(target, [...set.bundles.keys()]);
  throw new UsageError(
    `${target}: no such file, and no playbook has that id${near ? ` — did you mean '${near}'?` : ""} (playbook-bot list shows them)`,
  );
}

/** `playbook-bot graph`: a playbook as a Mermaid flowchart, a step marked as current. */
export async function graphCommand(
  ctx: CliContext,
  target: string,
  opts: { current?: string },
): Promise<number> {
  const { io } = ctx;
  const { file, playbook, report } = await playbookNamed(ctx, target);
  if (!playbook) {
    if (report) io.err(formatText([report], textStyle(ctx, "err")));
    return EXIT.invalid;
  }
  const steps = [...graphOf(playbook).byId.keys()];
  if (opts.current !== undefined && !steps.includes(opts.current)) {
    io.err(`playbook-bot: ${unknownStep(file, opts.current, steps)}\n`);
    return EXIT.invalid;
  }
  io.out(renderMermaid(playbook, opts.current ? { current: opts.current } : {}));
  return EXIT.ok;
}
