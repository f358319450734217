import { execFileSync, spawnSync } from "node:child_process";
import {
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FileRunStore, StateError } from "../../../src/adapters/local/file-store.js";
import {
  appendLinesInside,
  ensureFolderInside,
  writeAtomicInside,
  WriteRefusedError,
} from "../../../src/adapters/local/safe-writes.js";
import { FileTraceLog } from "../../../src/adapters/local/trace-file.js";
import type { StoredTraceRecord } from "../../../src/core/trace/types.js";
import { BIN, cleanup, makeDir, makeRepo } from "../../helpers/git-repo.js";

afterEach(cleanup);

/** A checkout and, beside it, a folder a planted link points to. */
function checkoutAndOutside(): { repo: string; outside: string } {
  const base = makeDir("pb-writes-");
  const repo = join(base, "repo");
  const outside = join(base, "outside");
  mkdirSync(repo);
  mkdirSync(outside);
  writeFileSync(join(outside, "keep.txt"), "untouched\n");
  return { repo, outside };
}

describe("writes inside a checkout", () => {
  it("make the folders on the way and write the file", () => {
    const { repo } = checkoutAndOutside();
    appendLinesInside(join(repo, "a", "b", "t.jsonl"), "one\n", repo);
    appendLinesInside(join(repo, "a", "b", "t.jsonl"), "two\n", repo);
    expect(readFileSync(join(repo, "a", "b", "t.jsonl"), "utf8")).toBe("one\ntwo\n");
  });

  it("refuse a linked folder on the way, wherever it points, and write nothing there", () => {
    const { repo, outside } = checkoutAndOutside();
    symlinkSync(outside, join(repo, ".playbook-runs"));
    const file = join(repo, ".playbook-runs", "history", "run-x.json");
    expect(() => writeAtomicInside(file, "{}", repo)).toThrow(WriteRefusedError);
    expect(() => appendLinesInside(file, "{}\n", repo)).toThrow(/folder is a symbolic link/);
    // A link to a folder inside the checkout is refused too: the answer does not depend on where.
    mkdirSync(join(repo, "real"));
    symlinkSync(join(repo, "real"), join(repo, "inner"));
    expect(() => ensureFolderInside(join(repo, "inner", "x"), repo)).toThrow(WriteRefusedError);
    expect(readdirSync(outside)).toEqual(["keep.txt"]);
    expect(readdirSync(join(repo, "real"))).toEqual([]);
  });

  it("refuse a folder outside the root, and a file where a folder should be", () => {
    const { repo, outside } = checkoutAndOutside();
    expect(() => ensureFolderInside(join(outside, "x"), repo)).toThrow(/outside the checkout/);
    writeFileSync(join(repo, "plain"), "");
    expect(() => ensureFolderInside(join(repo, "plain", "x"), repo)).toThrow(/not a folder/);
  });

  it("append never through a link at the file's own name, nor into a pipe (without blocking)", () => {
    const { repo, outside } = checkoutAndOutside();
    symlinkSync(join(outside, "keep.txt"), join(repo, "t.jsonl"));
    expect(() => appendLinesInside(join(repo, "t.jsonl"), "x\n", repo)).toThrow(
      /file is a symbolic link/,
    );
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("untouched\n");
    execFileSync("mkfifo", [join(repo, "pipe.jsonl")]);
    expect(() => appendLinesInside(join(repo, "pipe.jsonl"), "x\n", repo)).toThrow(
      /not a regular file/,
    );
  });

  it("replace a link at the file's name on an atomic write, never write through it", () => {
    const { repo, outside } = checkoutAndOutside();
    symlinkSync(join(outside, "keep.txt"), join(repo, "state.json"));
    writeAtomicInside(join(repo, "state.json"), "{}\n", repo);
    expect(readFileSync(join(repo, "state.json"), "utf8")).toBe("{}\n");
    expect(() => readlinkSync(join(repo, "state.json"))).toThrow();
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("untouched\n");
  });

  it("end a line a crash cut short before appending", () => {
    const { repo } = checkoutAndOutside();
    writeFileSync(join(repo, "t.jsonl"), '{"cut');
    appendLinesInside(join(repo, "t.jsonl"), "next\n", repo);
    expect(readFileSync(join(repo, "t.jsonl"), "utf8")).toBe('{"cut\nnext\n');
  });
});

describe("the run store and trace log in a checkout with planted links", () => {
  it("the trace log refuses a trace file linked out, as a state error with a way out", () => {
    const { repo, outside } = checkoutAndOutside();
    const store = new FileRunStore(join(repo, ".playbook-runs"));
    mkdirSync(store.dir);
    symlinkSync(join(outside, "keep.txt"), store.traceFileOf("r1"));
    const record: StoredTraceRecord = {
      trace_id: "1".repeat(32),
      span_id: "0".repeat(16),
      parent_span_id: "2".repeat(16),
      run_id: "r1",
      seq: 2,
      time: "2026-03-01T10:00:00.000Z",
      end: "2026-03-01T10:00:00.000Z",
      duration_ms: 0,
      event: "continue",
      actor: "playbook-bot",
      target: "step a",
      authority: { claim: "just-do-it", granted: true },
      playbook: "p",
      depth: 0,
      outcome: "success",
    };
    const append = () => new FileTraceLog(store).append("r1", [record]);
    expect(append).toThrow(StateError);
    expect(append).toThrow(/run-r1\.trace\.jsonl: the file is a symbolic link/);
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("untouched\n");
    // The same record where no link was planted is written.
    const clean = new FileRunStore(join(makeDir("pb-clean-"), ".playbook-runs"));
    new FileTraceLog(clean).append("r1", [record]);
    expect(readFileSync(clean.traceFileOf("r1"), "utf8")).toContain('"span_id":"0000000000000000"');
  });

  it("the built CLI's run stops with exit 3 on a linked .playbook-runs and writes nothing out", () => {
    const repo = makeRepo();
    const outside = makeDir("pb-outside-");
    symlinkSync(outside, join(repo, ".playbook-runs"));
    const r = spawnSync(process.execPath, [BIN, "run", "hello-world", "--mode", "autonomous"], {
      cwd: repo,
      env: { PATH: process.env.PATH, NO_COLOR: "1", GITHUB_TOKEN: "" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(3);
    expect(r.stderr).toContain(".playbook-runs: the folder is a symbolic link");
    expect(r.stderr).toContain("how to recover:");
    expect(r.stderr).not.toContain("internal error");
    expect(readdirSync(outside)).toEqual([]);
  }, 90_000);

  it("the built CLI's run refuses a linked history folder when it archives the finished run", () => {
    const repo = makeRepo();
    const outside = makeDir("pb-outside-");
    mkdirSync(join(repo, ".playbook-runs"));
    symlinkSync(outside, join(repo, ".playbook-runs", "history"));
    const r = spawnSync(process.execPath, [BIN, "run", "hello-world", "--mode", "autonomous"], {
      cwd: repo,
      env: { PATH: process.env.PATH, NO_COLOR: "1", GITHUB_TOKEN: "" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(3);
    expect(r.stderr).toContain("history: the folder is a symbolic link");
    expect(readdirSync(outside)).toEqual([]);
  }, 90_000);
});
