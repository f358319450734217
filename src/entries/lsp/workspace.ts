import { existsSync } from "node:fs";
import { dirname, extname, isAbsolute, join, relative, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import {
  bundledPlaybooks,
  fileExistsNextTo,
  loadBundledReports,
  playbookFilesIn,
} from "../../adapters/local/library.js";
import { CONFIG_FILES, ConfigError, loadConfig } from "../../adapters/local/rule-config.js";
import { siblingsOnDisk } from "../../adapters/local/siblings.js";
import { readConfined } from "../../adapters/local/safe-files.js";
import { isRefusedSource } from "../../core/format/source.js";
import { dialectOf, isDialectPart, type Siblings } from "../../core/dialects/index.js";
import { PLAYBOOK_FOLDERS } from "../../core/dialects/files.js";
import type { Diagnostic } from "../../core/format/diagnostics.js";
import {
  validateSet,
  type FileReport,
  type PlaybookSource,
  type ValidateOptions,
} from "../../core/rules/validate.js";
import type { PlaybookSummary } from "../../core/editor/completion.js";
import { summaryOf } from "../../core/editor/summary.js";

/** A v1 playbook says so on a line of its own (as the loaders decide it is not a dialect's). */
export const V1_PLAYBOOK = /^\s*apiVersion\s*:\s*["']?playbook-bot\//m;

/**
 * Which files are validated together, as `playbook-bot validate` would:
 * - `repository`: the playbook folders of a workspace root (`.github/playbooks`, `playbooks`),
 *   what `playbook-bot validate` with no arguments reads from that root;
 * - `folder`: a playbook elsewhere, with the playbooks in its folder (`validate <folder>`);
 * - `alone`: a playbook with no folder on disk (an unsaved editor buffer).
 */
export interface PlaybookSet {
  key: string;
  kind: "repository" | "folder" | "alone";
  /** Files are named relative to it and its config file applies: where the CLI would run. */
  root: string;
  dirs: string[];
  /** The one file of an `alone` set. */
  file?: string;
}

export interface SetResult {
  set: PlaybookSet;
  /** Every file validated, absolute. */
  files: string[];
  reports: FileReport[];
  /** Diagnostics by absolute file; a dialect's sidecar has its own. */
  diagnostics: Map<string, Diagnostic[]>;
  /** The set's playbooks, for completion and definitions. */
  playbooks: PlaybookSummary[];
  /** Why the config file was not applied, when it was not. */
  configError?: string;
  /** How long the validation took, in milliseconds. */
  ms: number;
}

function inside(file: string, dir: string): boolean {
  const rel = relative(dir, file);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** Whether a file's text makes it a playbook: a v1 playbook, or a file another system's loader reads. */
export function isPlaybookText(file: string, text: string): boolean {
  const yaml = /\.ya?ml$/i.test(file);
  return (yaml && V1_PLAYBOOK.test(text)) || dialectOf(file, text) !== undefined;
}

/** The playbooks the workspace holds, validated set by set with editors' unsaved text first. */
export class Workspace {
  constructor(
    private roots: string[],
    /** The text an editor holds for a file, when it is open. */
    private readonly overlay: (file: string) => string | undefined,
  ) {}

  setRoots(roots: string[]): void {
    this.roots = roots;
  }

  private rootOf(file: string): string | undefined {
    return [...this.roots]
      .sort((a, b) => b.length - a.length)
      .find((r) => inside(file, r) || resolve(r) === resolve(file));
  }

  /**
   * A file's source: the editor's text when it is open, else its bytes on disk read as data inside
   * its root (a link, a device or pipe, a file over the cap is a refusal the validator reports),
   * undefined when it is gone.
   */
  private source(file: string): PlaybookSource | undefined {
    const open = this.overlay(file);
    if (open !== undefined) return open;
    const read = readConfined(file, { root: this.rootOf(file) ?? dirname(file) });
    if (read.ok) return read.bytes;
    if (read.refusal.rule === "missing") return undefined;
    return { refused: { message: read.refusal.message, hint: read.refusal.hint } };
  }

  /** A YAML file refused as data: kept in a folder's set, as `validate <folder>` reports it. */
  private isRefusedYaml(file: string): boolean {
    const source = this.source(file);
    return /\.ya?ml$/i.test(file) && isRefusedSource(source);
  }

  private text(file: string): string | undefined {
    const source = this.source(file);
    if (typeof source === "string" || source === undefined) return source;
    return source instanceof Uint8Array ? new TextDecoder().decode(source) : undefined;
  }

  /** The set a file on disk belongs to, or undefined when it is no playbook nor part of one. */
  setOf(file: string): PlaybookSet | undefined {
    const root = this.rootOf(file);
    if (root) {
      const dirs = PLAYBOOK_FOLDERS.map((p) => join(root, p));
      if (dirs.some((d) => inside(file, d)))
        return { key: `repository:${root}`, kind: "repository", root, dirs };
    }
    const text = this.text(file);
    if (text === undefined) return undefined;
    if (!isPlaybookText(file, text) && !isDialectPart(file)) return undefined;
    const dir = dirname(file);
    return { key: `folder:${dir}`, kind: "folder", root: root ?? dir, dirs: [dir] };
  }

  /** The set of an editor buffer that is no file on disk, when it is a v1 playbook. */
  static alone(name: string, text: string): PlaybookSet | undefined {
    if (!V1_PLAYBOOK.test(text)) return undefined;
    return { key: `alone:${name}`, kind: "alone", root: "", dirs: [], file: name };
  }

  /** Whether a change to `file` can change the set's diagnostics. */
  affects(set: PlaybookSet, file: string): boolean {
    if (set.file === file) return true;
    if (set.kind === "alone") return false;
    return (
      set.dirs.some((d) => inside(file, d)) ||
      CONFIG_FILES.some((c) => resolve(set.root, c) === resolve(file))
    );
  }

  /** The files of a set: playbook files of its folders (only playbooks, outside a repository's). */
  async filesOf(set: PlaybookSet): Promise<string[]> {
    if (set.file !== undefined) return [set.file];
    const files = new Set<string>();
    for (const dir of set.dirs) {
      if (!existsSync(dir)) continue;
      for (const f of await playbookFilesIn(dir)) {
        if (
          set.kind === "folder" &&
          !this.isRefusedYaml(f) &&
          !isPlaybookText(f, this.text(f) ?? "")
        )
          continue;
        files.add(f);
      }
    }
    return [...files].sort();
  }

  private siblings(file: string, root: string): Siblings {
    const disk = siblingsOnDisk(file, root);
    return {
      read: (rel) => {
        const target = resolve(dirname(file), rel);
        const within = relative(root, target);
        if (within.startsWith("..") || isAbsolute(within)) return undefined;
        return this.overlay(target) ?? disk.read(rel);
      },
    };
  }

  /** Validate a set as `playbook-bot validate` does from its root, editors' text first. */
  async validate(set: PlaybookSet): Promise<SetResult> {
    const started = performance.now();
    const files = await this.filesOf(set);
    const alone = set.kind === "alone";
    const absolute = (name: string): string => (alone ? name : resolve(set.root, name));
    const entries: { file: string; source: PlaybookSource }[] = [];
    for (const f of files) {
      // A file removed since it was listed is left out: its removal is reported on its own.
      const source = this.source(f);
      if (source !== undefined)
        entries.push({ file: alone ? f : relative(set.root, f) || f, source });
    }
    let rules = {};
    let configError: string | undefined;
    if (!alone) {
      try {
        rules = loadConfig(set.root).rules;
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        configError = err.message;
      }
    }
    const known = await bundledPlaybooks();
    // A buffer with no file has no folder: nothing next to it can be read or checked.
    const onDisk: ValidateOptions = alone
      ? {}
      : {
          fileExists: (file, rel) => fileExistsNextTo(absolute(file), rel, set.root),
          siblings: (file) => this.siblings(absolute(file), set.root),
        };
    const reports = validateSet(entries, { ...onDisk, rules, known });
    const diagnostics = new Map<string, Diagnostic[]>();
    for (const r of reports)
      for (const d of r.diagnostics) {
        const file = absolute(d.file);
        diagnostics.set(file, [...(diagnostics.get(file) ?? []), d]);
      }
    const playbooks = reports.flatMap((r) => summaryOf(r, absolute(r.file)) ?? []);
    return {
      set,
      files: entries.map((e) => absolute(e.file)),
      reports,
      diagnostics,
      playbooks,
      ...(configError ? { configError } : {}),
      ms: performance.now() - started,
    };
  }
}

let library: Promise<PlaybookSummary[]> | undefined;

/** The bundled library's playbooks (their files are absolute), read once per process. */
export function libraryPlaybooks(): Promise<PlaybookSummary[]> {
  library ??= loadBundledReports().then((reports) =>
    reports.flatMap((r) => summaryOf(r, r.file) ?? []),
  );
  return library;
}

/** Whether a path names a file the features (completion, hover, definition) serve: v1 YAML. */
export function servesFeatures(file: string, text: string, inRepository: boolean): boolean {
  if (!/^\.ya?ml$/i.test(extname(file))) return false;
  if (dialectOf(file, text) !== undefined) return false;
  return inRepository || V1_PLAYBOOK.test(text);
}
