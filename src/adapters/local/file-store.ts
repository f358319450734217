import { existsSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { RunState } from "../../core/engine/state.js";
import { isFinished } from "../../core/engine/state.js";
import { parseRunState } from "../../runtime/state-codec.js";
import { readConfined } from "./safe-files.js";
import { moveInside, writeAtomicInside, WriteRefusedError } from "./safe-writes.js";

/** A run record or pinned playbook copy the store reads at most. */
const MAX_STATE_FILE_BYTES = 16 * 1024 * 1024;

/** What a local run keeps besides the engine's state: how it was started, and where its playbooks are. */
export interface LocalRunRecord {
  run: RunState;
  mode: "manual" | "autonomous";
  dryRun: boolean;
  /** The git work tree the run acts on. */
  repo: string;
  /** Pinned playbook sources by id: paths (relative to the store) of content-addressed copies. */
  playbooks: Record<string, string>;
}

export class StateError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

/**
 * Run state on disk: `.playbook-runs/run-<id>.json` while a run is open, moved to
 * `history/YYYY/MM/DD/` when it ends. Playbook versions a run is pinned to are kept next to it.
 */
export class FileRunStore {
  /**
   * `dir` is the store's folder; `root`, the checkout it sits in (its parent by default): every
   * folder between them and under `dir` is written only as a real folder, never through a link.
   */
  constructor(
    readonly dir: string,
    readonly root: string = dirname(dir),
  ) {}

  private write(file: string, text: string): void {
    refusedAsStateError(() => writeAtomicInside(file, text, this.root));
  }

  fileOf(id: string): string {
    return join(this.dir, `run-${id}.json`);
  }

  /** The trace of an open run: next to its state (see trace-file.ts). */
  traceFileOf(id: string): string {
    return traceFileNextTo(this.fileOf(id));
  }

  historyFileOf(run: RunState): string {
    const d = new Date(run.startedAt);
    const p = (n: number): string => String(n).padStart(2, "0");
    return join(
      this.dir,
      "history",
      String(d.getUTCFullYear()),
      p(d.getUTCMonth() + 1),
      p(d.getUTCDate()),
      `run-${run.id}.json`,
    );
  }

  /**
   * Where a run's state file is, open or archived (the history folder of the day its id names),
   * or undefined when it is in neither.
   */
  locate(id: string): string | undefined {
    const open = this.fileOf(id);
    if (existsSync(open)) return open;
    const m = /^([0-9]{4})([0-9]{2})([0-9]{2})-/.exec(id);
    if (!m) return undefined;
    const archived = join(
      this.dir,
      "history",
      m[1] as string,
      m[2] as string,
      m[3] as string,
      `run-${id}.json`,
    );
    return existsSync(archived) ? archived : undefined;
  }

  /** Keep a copy of a playbook's source under its hash; returns its path relative to the store. */
  pinPlaybook(hash: string, source: string): string {
    const rel = join("playbooks", `${hash}.yaml`);
    const file = join(this.dir, rel);
    if (!existsSync(file)) this.write(file, source);
    return rel;
  }

  readPinned(rel: string): string {
    const file = join(this.dir, rel);
    if (!existsSync(file)) {
      throw new StateError(
        `the pinned playbook copy ${file} is missing`,
        "restore it from version control, or start a new run",
      );
    }
    return this.readState(file);
  }

  /** A file of the store, read as data inside it (the folder sits in a checkout anyone may write). */
  private readState(file: string): string {
    const read = readConfined(file, { root: this.dir, maxBytes: MAX_STATE_FILE_BYTES });
    if (!read.ok)
      throw new StateError(
        `${file}: ${read.refusal.message} (${read.refusal.rule})`,
        corruptHint(file),
      );
    return read.bytes.toString("utf8");
  }

  save(record: LocalRunRecord): void {
    this.ensureIgnored();
    this.write(this.fileOf(record.run.id), JSON.stringify(record, null, 2) + "\n");
  }

  /** Move a finished run to the history folder, its trace with it. */
  archive(record: LocalRunRecord): string {
    const target = this.historyFileOf(record.run);
    this.write(target, JSON.stringify(record, null, 2) + "\n");
    const trace = this.traceFileOf(record.run.id);
    if (existsSync(trace))
      refusedAsStateError(() => moveInside(trace, traceFileNextTo(target), this.root));
    rmSync(this.fileOf(record.run.id), { force: true });
    return target;
  }

  /** Load an open run; a missing, corrupted or hand-edited file is a StateError with a way out. */
  load(id: string): LocalRunRecord {
    const file = this.fileOf(id);
    if (!existsSync(file)) {
      const open = this.list().map((r) => r.run.id);
      throw new StateError(
        `no open run '${id}' in ${this.dir}`,
        open.length
          ? `open runs: ${open.join(", ")}`
          : "finished runs are under history/; start a new run with `playbook-bot run`",
      );
    }
    const text = this.readState(file);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new StateError(
        `${file} is not valid JSON (${(err as Error).message})`,
        corruptHint(file),
      );
    }
    const rec = raw as Partial<LocalRunRecord>;
    if (
      !rec ||
      typeof rec !== "object" ||
      typeof rec.repo !== "string" ||
      (rec.mode !== "manual" && rec.mode !== "autonomous") ||
      typeof rec.playbooks !== "object" ||
      rec.playbooks === null
    ) {
      throw new StateError(
        `${file} is not a run record (missing repo, mode or playbooks)`,
        corruptHint(file),
      );
    }
    const parsed = parseRunState(JSON.stringify(rec.run));
    if (!parsed.ok)
      throw new StateError(
        `${file} holds an invalid run state: ${parsed.detail}`,
        corruptHint(file),
      );
    if (isFinished(parsed.run)) {
      throw new StateError(
        `run ${id} has already ended (${parsed.run.status})`,
        "start a new run with `playbook-bot run`",
      );
    }
    return { ...(rec as LocalRunRecord), run: parsed.run };
  }

  list(): LocalRunRecord[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((f) => /^run-.*\.json$/.test(f))
      .flatMap((f) => {
        try {
          return [JSON.parse(this.readState(join(this.dir, f))) as LocalRunRecord];
        } catch {
          return [];
        }
      });
  }

  /** Run state is working data, never source: keep the folder out of git. */
  private ensureIgnored(): void {
    const ignore = join(this.dir, ".gitignore");
    if (!existsSync(ignore)) this.write(ignore, "*\n");
  }
}

/** A run's trace file: `run-<id>.trace.jsonl` beside its `run-<id>.json`, open or archived. */
export function traceFileNextTo(stateFile: string): string {
  return `${stateFile.replace(/\.json$/, "")}.trace.jsonl`;
}

function corruptHint(file: string): string {
  return `the file was edited or damaged: restore it from a backup, or delete ${file} and start a new run (steps already done, such as commits, are found again and not repeated)`;
}

/** A write the store refused (a link planted on the way) stops the run with a way out. */
export function refusedAsStateError(write: () => void): void {
  try {
    write();
  } catch (err) {
    if (!(err instanceof WriteRefusedError)) throw err;
    throw new StateError(
      err.message,
      "`.playbook-runs` and the folders under it must be real folders of the checkout: a link there would send the run's state and trace elsewhere",
    );
  }
}
