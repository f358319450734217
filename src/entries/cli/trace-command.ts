import { existsSync, statSync } from "node:fs";
import { readConfined, rootFor, writeReportFile } from "../../adapters/local/safe-files.js";
import { join, resolve } from "node:path";
import { RUN_ID_PATTERN } from "../../core/engine/state.js";
import { exportTrace, type TraceFormat } from "../../core/trace/export.js";
import { FileRunStore, traceFileNextTo } from "../../adapters/local/file-store.js";
import { readTraceFile } from "../../adapters/local/trace-file.js";
import { parseRunState } from "../../runtime/state-codec.js";
import { traceOfRun } from "../../runtime/trace.js";
import type { CommandIo } from "./run-command.js";
import { RUN_EXIT } from "./runner.js";

export interface TraceOptions {
  format: TraceFormat;
  /** Write here (relative to the current folder) instead of standard output. */
  output?: string;
  /** The git work tree whose `.playbook-runs/` holds the run (default: the current folder). */
  repo?: string;
  /** playbook-bot's version, for OTLP's `service.version`. */
  version?: string;
}

const RUN_ID = new RegExp(RUN_ID_PATTERN);

/** A run's state file read at most (as the run store reads it). */
const MAX_STATE_BYTES = 16 * 1024 * 1024;

/** The state file `target` names: a file as given, or a run id looked up open, then archived. */
function stateFileOf(target: string, opts: TraceOptions, io: CommandIo): string | undefined {
  const asFile = resolve(io.cwd, target);
  if (existsSync(asFile) && statSync(asFile).isFile()) return asFile;
  if (!RUN_ID.test(target)) return undefined;
  const store = new FileRunStore(join(resolve(io.cwd, opts.repo ?? "."), ".playbook-runs"));
  return store.locate(target);
}

/**
 * `playbook-bot trace <run-id | state-file>`: a local run's trace, from the records its JSONL
 * file kept and its state's bounded summary, as `playbook-bot-trace/v1` JSON or OTLP/JSON.
 */
export async function traceCommand(
  target: string,
  opts: TraceOptions,
  io: CommandIo,
): Promise<number> {
  const file = stateFileOf(target, opts, io);
  if (!file) {
    io.err(
      `playbook-bot: no run '${target}': give a run id (open runs are in .playbook-runs/, finished ones under .playbook-runs/history/) or a run's state file\n`,
    );
    return RUN_EXIT.state;
  }
  const read = readConfined(file, { root: rootFor(file, io.cwd), maxBytes: MAX_STATE_BYTES });
  if (!read.ok) {
    io.err(`playbook-bot: ${file}: ${read.refusal.message} (${read.refusal.rule})\n`);
    return RUN_EXIT.state;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(read.bytes.toString("utf8"));
  } catch (err) {
    io.err(`playbook-bot: ${file} is not valid JSON (${(err as Error).message})\n`);
    return RUN_EXIT.state;
  }
  // A local run's record holds its state under `run`; a bare run state is read as it is.
  const state =
    raw && typeof raw === "object" && "run" in raw ? (raw as { run: unknown }).run : raw;
  const parsed = parseRunState(JSON.stringify(state ?? null));
  if (!parsed.ok) {
    io.err(`playbook-bot: ${file} holds no valid run state: ${parsed.detail}\n`);
    return RUN_EXIT.state;
  }
  const traceFile = traceFileNextTo(file);
  const logged = readTraceFile(traceFile);
  if (logged.invalid > 0)
    io.err(
      `playbook-bot: ${logged.invalid} line(s) of ${traceFile} are not trace records; passed over\n`,
    );
  const { runs, records } = traceOfRun(parsed.run, logged);
  const text =
    JSON.stringify(
      exportTrace(
        records,
        runs,
        opts.format,
        opts.version !== undefined ? { version: opts.version } : {},
      ),
      null,
      2,
    ) + "\n";
  if (opts.output === undefined) {
    io.out(text);
  } else {
    const out = resolve(io.cwd, opts.output);
    writeReportFile(out, text);
    io.out(
      `Trace of run ${parsed.run.id} (${records.length} records, ${opts.format}) written to ${out}\n`,
    );
  }
  return RUN_EXIT.completed;
}
