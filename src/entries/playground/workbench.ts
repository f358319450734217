/**
 * The playground's editor: a playbook's text checked as the app would find it — beside the
 * sandbox repository's other playbooks and the bundled library, through every validation layer
 * (syntax, schema, graph, templates, paths, the checks across files) — its diagram, and its
 * golden cases run with every effect simulated, as `playbook-bot test` runs them.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, sep } from "node:path";
import { bundledTier, PLAYBOOK_DIR } from "../../adapters/github/discovery.js";
import { bundledLibraryDir } from "../../adapters/local/library.js";
import { isPlaybookFile } from "../../core/dialects/files.js";
import { summaryOf } from "../../core/editor/summary.js";
import { renderMermaid } from "../../core/format/mermaid.js";
import type { Diagnostic } from "../../core/format/diagnostics.js";
import {
  joinRelative,
  resolveTiers,
  stepFileRefs,
  type Tier,
  type Tiered,
} from "../../runtime/tiers.js";
import { runCase, type CaseResult } from "../../adapters/local/playbook-tests.js";

/** A playbook as the page lists it. */
export interface ListedPlaybook {
  id: string | undefined;
  name: string | undefined;
  /** `repository` (the sandbox's `.github/playbooks/`, editable) or `bundled`. */
  tier: "repository" | "bundled";
  file: string;
  source: string;
  errors: number;
  warnings: number;
  /** Whether a run can start it (valid, and not shadowed by a nearer playbook of its id). */
  runnable: boolean;
  /** The inputs and outputs it declares, as written: what the editor completes after a call. */
  inputs: string[];
  outputs: string[];
}

export interface Checked {
  diagnostics: Diagnostic[];
  /** The diagram, when the playbook is valid enough to draw. */
  mermaid?: string;
}

/** Characters of one playbook the editor takes (the app reads files up to 1 MiB). */
export const MAX_PLAYBOOK_CHARS = 1024 * 1024;

/** A playbook file name inside `.github/playbooks/`: letters, digits, `-`, `_`, `/`, `.yml`/`.yaml`. */
const FILE_NAME = /^(?:[A-Za-z0-9_-]+\/){0,3}[A-Za-z0-9_-]+\.ya?ml$/;

export function isPlaybookFileName(file: string): boolean {
  return file.length <= 200 && FILE_NAME.test(file);
}

/** How a copy names the bundled playbook it came from: `bundled/` and a path inside the library. */
const BUNDLED_NAME =
  /^bundled\/(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*\/){0,3}[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/** Whether `from` is shaped like a bundled file's name: no `..`, no absolute path, no `\`. */
export function isBundledName(from: string): boolean {
  return (
    from.length <= 200 &&
    BUNDLED_NAME.test(from) &&
    !from.split("/").some((part) => part === "." || part === "..")
  );
}

/**
 * A file beside a bundled playbook (a template it names), read only when its real path — links
 * followed — is inside the bundled library: a `..` or a symbolic link cannot reach further.
 */
export function readBundledBeside(from: string, rel: string): string | undefined {
  if (!isBundledName(from) || isAbsolute(rel) || rel.includes("\\")) return undefined;
  try {
    const root = realpathSync(bundledLibraryDir());
    const target = realpathSync(join(root, dirname(from.slice("bundled/".length)), rel));
    if (!target.startsWith(root + sep) || !statSync(target).isFile()) return undefined;
    return readFileSync(target, "utf8");
  } catch {
    return undefined;
  }
}

/** The editor's text of a repository playbook, not saved yet. */
export interface Edited {
  /** The path inside `.github/playbooks/`. */
  file: string;
  text: string;
  /** The bundled playbook it is a copy of (`bundled/…`): its templates come along. */
  from?: string;
}

export class Workbench {
  /** @param files the repository's files under `.github/playbooks/`, by path (read each time). */
  constructor(private readonly files: () => Record<string, string>) {}

  /** The repository's tier, with one file's text replaced (the editor's, not saved yet). */
  private repositoryTier(edited?: Edited): Tier {
    const all = { ...this.files() };
    const path = edited && `${PLAYBOOK_DIR}${edited.file}`;
    if (edited && path) all[path] = edited.text;
    const from = edited?.from !== undefined && isBundledName(edited.from) ? edited.from : undefined;
    return {
      // The files the app takes for playbooks: YAML, and other systems' files it recognises.
      files: Object.entries(all)
        .filter(([p, source]) =>
          isPlaybookFile(p, () => source, { read: (rel) => all[joinRelative(p, rel)] }),
        )
        .map(([file, source]) => ({ file, source })),
      read: (file, rel) =>
        all[joinRelative(file, rel)] ??
        (from && file === path ? readBundledBeside(from, rel) : undefined),
    };
  }

  private async resolve(edited?: Edited): Promise<Tiered> {
    const bundled = await bundledTier();
    return resolveTiers([this.repositoryTier(edited), bundled]);
  }

  /** Whether `from` names a playbook of the bundled library (a copy's origin). */
  async isBundled(from: string): Promise<boolean> {
    if (!isBundledName(from)) return false;
    return (await bundledTier()).files.some((f) => f.file === from);
  }

  /** Every playbook the sandbox's app would find, nearest first. */
  async list(): Promise<ListedPlaybook[]> {
    const { reports, bundles } = await this.resolve();
    return reports.map((r) => {
      const bundled = r.file.startsWith("bundled/");
      const id = r.playbook?.id;
      const declared = summaryOf(r, r.file);
      return {
        id,
        name: r.playbook?.name,
        tier: bundled ? "bundled" : "repository",
        file: bundled ? r.file : r.file.slice(PLAYBOOK_DIR.length),
        source: r.text,
        errors: r.diagnostics.filter((d) => d.severity === "error").length,
        warnings: r.diagnostics.filter((d) => d.severity === "warning").length,
        runnable: id !== undefined && bundles.get(id)?.file === r.file,
        inputs: declared?.inputs ?? [],
        outputs: declared?.outputs ?? [],
      };
    });
  }

  /** The edited text of a repository playbook, checked through every layer, and its diagram. */
  async check(edited: Edited, current?: string): Promise<Checked> {
    const { reports } = await this.resolve(edited);
    const report = reports.find((r) => r.file === `${PLAYBOOK_DIR}${edited.file}`);
    const out: Checked = { diagnostics: report?.diagnostics ?? [] };
    if (report?.playbook)
      out.mermaid = renderMermaid(report.playbook, current === undefined ? {} : { current });
    return out;
  }

  /** The edited playbook's golden cases, when it is valid; else why they cannot run. */
  async test(edited: Edited): Promise<{ results: CaseResult[]; problem?: string }> {
    const { reports, bundles } = await this.resolve(edited);
    const report = reports.find((r) => r.file === `${PLAYBOOK_DIR}${edited.file}`);
    const bundle = report?.playbook ? bundles.get(report.playbook.id) : undefined;
    if (!report?.playbook || !bundle || bundle.file !== report.file)
      return { results: [], problem: "the playbook has errors: fix them to run its cases" };
    const results: CaseResult[] = [];
    for (const tc of report.playbook.tests ?? [])
      results.push(await runCase(bundle, (id) => bundles.get(id), tc));
    return { results };
  }

  /**
   * What saving the edited playbook writes to the repository — its text, and the files its steps
   * read that the repository lacks (a bundled playbook's templates) — or the errors that keep it
   * from being saved.
   */
  async save(
    edited: Edited,
  ): Promise<{ ok: true; files: Record<string, string> } | { ok: false; errors: Diagnostic[] }> {
    const path = `${PLAYBOOK_DIR}${edited.file}`;
    const bundled = await bundledTier();
    const tier = this.repositoryTier(edited);
    const { reports } = resolveTiers([tier, bundled]);
    const report = reports.find((r) => r.file === path);
    const errors = (report?.diagnostics ?? []).filter((d) => d.severity === "error");
    if (errors.length > 0 || !report?.playbook) return { ok: false, errors };
    const files: Record<string, string> = { [path]: edited.text };
    const present = this.files();
    for (const rel of stepFileRefs(report.playbook)) {
      const target = joinRelative(path, rel);
      const text = tier.read(path, rel);
      if (present[target] === undefined && text !== undefined) files[target] = text;
    }
    return { ok: true, files };
  }
}
