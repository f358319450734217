import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  FileRunStore,
  StateError,
  traceFileNextTo,
  type LocalRunRecord,
} from "../../../src/adapters/local/file-store.js";
import { writeAtomicInside } from "../../../src/adapters/local/safe-writes.js";
import { cleanup, makeDir } from "../../helpers/git-repo.js";
import { sampleRun } from "./fixtures.js";

afterEach(cleanup);

function record(over: Partial<LocalRunRecord> = {}): LocalRunRecord {
  return {
    run: sampleRun(),
    mode: "manual",
    dryRun: false,
    repo: "/repo",
    playbooks: { tiny: "playbooks/abc.yaml" },
    ...over,
  };
}

function store(): FileRunStore {
  return new FileRunStore(join(makeDir("pb-store-"), ".playbook-runs"));
}

function loadError(s: FileRunStore, id: string): StateError {
  try {
    s.load(id);
  } catch (err) {
    expect(err).toBeInstanceOf(StateError);
    return err as StateError;
  }
  throw new Error("load did not fail");
}

describe("writeAtomicInside", () => {
  it("creates folders, writes the text and leaves no temporary file", () => {
    const dir = makeDir();
    const file = join(dir, "a", "b", "state.json");
    writeAtomicInside(file, "one", dir);
    writeAtomicInside(file, "two", dir);
    expect(readFileSync(file, "utf8")).toBe("two");
    expect(readdirSync(join(dir, "a", "b"))).toEqual(["state.json"]);
  });
});

describe("FileRunStore", () => {
  it("saves a run as run-<id>.json with a .gitignore, and loads it back", () => {
    const s = store();
    const rec = record();
    s.save(rec);
    expect(s.fileOf(rec.run.id)).toBe(join(s.dir, "run-20240305-1020-001.json"));
    expect(readFileSync(join(s.dir, ".gitignore"), "utf8")).toBe("*\n");
    expect(readdirSync(s.dir).sort()).toEqual([".gitignore", "run-20240305-1020-001.json"]);
    expect(s.load(rec.run.id)).toEqual(rec);
  });

  it("keeps an existing .gitignore", () => {
    const s = store();
    s.save(record());
    writeFileSync(join(s.dir, ".gitignore"), "custom\n");
    s.save(record());
    expect(readFileSync(join(s.dir, ".gitignore"), "utf8")).toBe("custom\n");
  });

  it("lists open runs and skips unreadable files", () => {
    const s = store();
    expect(s.list()).toEqual([]);
    s.save(record());
    s.save(record({ run: sampleRun(new Date("2024-03-05T10:20:30Z"), 2) }));
    writeFileSync(join(s.dir, "run-broken.json"), "{");
    writeFileSync(join(s.dir, "notes.json"), "{}");
    expect(
      s
        .list()
        .map((r) => r.run.id)
        .sort(),
    ).toEqual(["20240305-1020-001", "20240305-1020-002"]);
  });

  it("archives a run under history/YYYY/MM/DD and removes the live file", () => {
    const s = store();
    const rec = record({ run: { ...sampleRun(), status: "completed" } });
    s.save(rec);
    const target = s.archive(rec);
    expect(target).toBe(join(s.dir, "history", "2024", "03", "05", "run-20240305-1020-001.json"));
    expect(JSON.parse(readFileSync(target, "utf8"))).toEqual(rec);
    expect(existsSync(s.fileOf(rec.run.id))).toBe(false);
    expect(s.list()).toEqual([]);
  });

  it("moves a run's trace file to the history folder with its state, and finds either by id", () => {
    const s = store();
    const rec = record({ run: { ...sampleRun(), status: "completed" } });
    const id = rec.run.id;
    s.save(rec);
    writeFileSync(s.traceFileOf(id), "{}\n");
    expect(s.traceFileOf(id)).toBe(join(s.dir, `run-${id}.trace.jsonl`));
    expect(s.locate(id)).toBe(s.fileOf(id));
    const target = s.archive(rec);
    expect(existsSync(s.traceFileOf(id))).toBe(false);
    expect(readFileSync(traceFileNextTo(target), "utf8")).toBe("{}\n");
    expect(traceFileNextTo(target)).toBe(
      join(s.dir, "history", "2024", "03", "05", `run-${id}.trace.jsonl`),
    );
    expect(s.locate(id)).toBe(target);
    expect(s.locate("20240305-1020-999")).toBeUndefined();
    expect(s.locate("not-a-run")).toBeUndefined();
  });

  it("dates the history folder in UTC", () => {
    const s = store();
    const run = { ...sampleRun(), startedAt: "2023-12-31T23:59:59-05:00" };
    expect(s.historyFileOf(run)).toBe(
      join(s.dir, "history", "2024", "01", "01", `run-${run.id}.json`),
    );
  });

  it("pins a playbook copy once under its hash and reads it back", () => {
    const s = store();
    const rel = s.pinPlaybook("abc", "first");
    expect(rel).toBe(join("playbooks", "abc.yaml"));
    expect(s.pinPlaybook("abc", "second")).toBe(rel);
    expect(s.readPinned(rel)).toBe("first");
  });

  it("reports a missing pinned copy with a way out", () => {
    const s = store();
    expect(() => s.readPinned("playbooks/none.yaml")).toThrow(StateError);
    try {
      s.readPinned("playbooks/none.yaml");
    } catch (err) {
      expect((err as StateError).message).toContain("is missing");
      expect((err as StateError).hint).toContain("start a new run");
    }
  });

  describe("load errors", () => {
    it("a missing run, with no open runs, points at history", () => {
      const e = loadError(store(), "20240101-0000-001");
      expect(e.message).toContain("no open run '20240101-0000-001'");
      expect(e.hint).toContain("history/");
    });

    it("a missing run, with open runs, lists them", () => {
      const s = store();
      s.save(record());
      const e = loadError(s, "20240101-0000-001");
      expect(e.hint).toBe("open runs: 20240305-1020-001");
    });

    it("a run file linked to /dev/zero or left as a pipe: refused at once, skipped by list", () => {
      const s = store();
      s.save(record());
      const id = "20240305-1020-001";
      rmSync(s.fileOf(id));
      symlinkSync("/dev/zero", s.fileOf(id));
      execFileSync("mkfifo", [s.fileOf("20240305-1020-002")]);
      const started = Date.now();
      expect(loadError(s, id).message).toContain("file is a symbolic link");
      expect(loadError(s, "20240305-1020-002").message).toContain("file is a named pipe (FIFO)");
      expect(s.list()).toEqual([]);
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it("invalid JSON", () => {
      const s = store();
      s.save(record());
      writeFileSync(s.fileOf("20240305-1020-001"), '{"run": ');
      const e = loadError(s, "20240305-1020-001");
      expect(e.message).toContain("is not valid JSON");
      expect(e.hint).toContain("restore it from a backup");
      expect(e.hint).toContain(s.fileOf("20240305-1020-001"));
    });

    it.each([
      ["null", null],
      ["no repo", { ...record(), repo: 1 }],
      ["bad mode", { ...record(), mode: "yolo" }],
      ["no playbooks", { ...record(), playbooks: undefined }],
      ["null playbooks", { ...record(), playbooks: null }],
    ])("a document that is not a run record (%s)", (_name, doc) => {
      const s = store();
      s.save(record());
      writeFileSync(s.fileOf("20240305-1020-001"), JSON.stringify(doc));
      const e = loadError(s, "20240305-1020-001");
      expect(e.message).toContain("is not a run record");
      expect(e.hint).toContain("edited or damaged");
    });

    it("a hand-edited run state", () => {
      const s = store();
      s.save(record({ run: { ...sampleRun(), status: "bogus" as never } }));
      const e = loadError(s, "20240305-1020-001");
      expect(e.message).toContain("holds an invalid run state");
      expect(e.message).toContain("/status");
    });

    it("a run that has ended", () => {
      const s = store();
      s.save(record({ run: { ...sampleRun(), status: "failed" } }));
      const e = loadError(s, "20240305-1020-001");
      expect(e.message).toBe("run 20240305-1020-001 has already ended (failed)");
      expect(e.hint).toContain("playbook-bot run");
    });
  });
});
