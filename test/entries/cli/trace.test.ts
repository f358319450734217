import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { OtlpTrace, TraceDocument } from "../../../src/core/trace/export.js";
import { checkStoredRecord } from "../../../src/core/trace/types.js";
import { runCli } from "../../helpers/cli.js";
import { FIXED_ID, cleanup, makeRepo, resumeIn, runIn, spawnCli } from "../../helpers/git-repo.js";

afterEach(cleanup);

const HISTORY = join(".playbook-runs", "history", "2024", "03", "05");

function parse(text: string): TraceDocument {
  return JSON.parse(text) as TraceDocument;
}

describe("playbook-bot trace", () => {
  it("exports a finished local run's trace by its id: every act, digests only", async () => {
    const repo = makeRepo();
    const run = await runIn(repo, "hello-world", ["name=Ada Lovelace"], { mode: "autonomous" });
    expect(run.code).toBe(0);
    // The trace moved to the history folder with the state.
    expect(existsSync(join(repo, HISTORY, `run-${FIXED_ID}.trace.jsonl`))).toBe(true);
    expect(existsSync(join(repo, ".playbook-runs", `run-${FIXED_ID}.trace.jsonl`))).toBe(false);

    const r = await runCli(["trace", FIXED_ID], repo);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const doc = parse(r.out);
    expect(doc.format).toBe("playbook-bot-trace/v1");
    expect(doc.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(doc.runs).toEqual([
      expect.objectContaining({
        run_id: FIXED_ID,
        trace_id: doc.trace_id,
        playbook: "hello-world",
        status: "completed",
        initiator: "local-cli",
      }),
    ]);
    expect(doc.records.map((x) => [x.event, x.target, x.outcome, x.tool ?? ""])).toEqual([
      ["start", "run", "success", ""],
      ["continue", "step approve", "escalation", ""],
      ["/approve", "step approve", "success", ""],
      ["continue", "step branch", "waiting", "git"],
      ["effect_result", "step branch", "success", "git"],
      ["continue", "step commit", "waiting", "git"],
      ["effect_result", "step commit", "success", "git"],
      ["continue", "step done", "success", ""],
      ["continue", "run", "success", ""],
    ]);
    expect(doc.records[2]).toMatchObject({
      actor: "autonomous-mode",
      authority: { claim: "admin", by: "autonomous-mode", granted: true },
    });
    for (const x of doc.records) {
      expect(checkStoredRecord(x)).toEqual(x);
      expect(x.parent_span_id).toBe(doc.runs[0]?.span_id);
    }
    // Inputs and outputs are digests: the input's value and the commit's files are not there.
    expect(r.out).not.toMatch(/lovelace/i);
    expect(doc.records.filter((x) => x.inputs).length).toBeGreaterThan(0);
  });

  it("writes OTLP/JSON to a file, from a state file named by its path", async () => {
    const repo = makeRepo();
    await runIn(repo, "hello-world", [], { mode: "autonomous" });
    const state = join(HISTORY, `run-${FIXED_ID}.json`);
    const r = await runCli(["trace", state, "--format", "otlp", "--output", "trace.json"], repo);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      new RegExp(`^Trace of run ${FIXED_ID} \\(9 records, otlp\\) written to .*trace\\.json\\n$`),
    );
    const otlp = JSON.parse(readFileSync(join(repo, "trace.json"), "utf8")) as OtlpTrace;
    const spans = otlp.resourceSpans[0]?.scopeSpans[0]?.spans ?? [];
    expect(spans).toHaveLength(10);
    expect(spans[0]).toMatchObject({ name: "run hello-world", kind: 1, status: { code: 1 } });
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(spans.slice(1).every((s) => s.parentSpanId === spans[0]?.spanId)).toBe(true);
    expect(otlp.resourceSpans[0]?.resource.attributes).toContainEqual({
      key: "service.version",
      value: { stringValue: expect.stringMatching(/^[0-9]+\.[0-9]+\.[0-9]+/) },
    });
  });

  it("reads a paused run's open trace, and a resumed run adds to it without repeating a record", async () => {
    const repo = makeRepo();
    const paused = await runIn(repo, "hello-world", [], {}, { interactive: false });
    expect(paused.code).toBe(4);
    const open = parse((await runCli(["trace", FIXED_ID], repo)).out);
    expect(open.runs[0]?.status).toBe("waiting");
    expect(open.records.map((x) => x.outcome)).toEqual(["success", "escalation"]);

    const resumed = await resumeIn(repo, FIXED_ID, { mode: "autonomous" });
    expect(resumed.code).toBe(0);
    const done = parse((await runCli(["trace", FIXED_ID], repo)).out);
    expect(done.records).toHaveLength(9);
    expect(done.records.slice(0, 2)).toEqual(open.records);
    expect(new Set(done.records.map((x) => x.span_id)).size).toBe(9);
    const lines = readFileSync(join(repo, HISTORY, `run-${FIXED_ID}.trace.jsonl`), "utf8")
      .trimEnd()
      .split("\n");
    expect(lines).toHaveLength(9);
  });

  it("falls back on the state's summary when the trace file is gone, and passes over a cut line", async () => {
    const repo = makeRepo();
    await runIn(repo, "hello-world", [], { mode: "autonomous" });
    const file = join(repo, HISTORY, `run-${FIXED_ID}.trace.jsonl`);
    appendFileSync(file, '{"trace_id":"cut sho');
    const cut = await runCli(["trace", FIXED_ID], repo);
    expect(cut.code).toBe(0);
    expect(cut.err).toContain("1 line(s) of");
    expect(parse(cut.out).records).toHaveLength(9);

    rmSync(file);
    const summary = await runCli(["trace", FIXED_ID], repo);
    expect(summary.code).toBe(0);
    const doc = parse(summary.out);
    expect(doc.records.length).toBeGreaterThan(0);
    expect(doc.records[0]).toMatchObject({ event: "start", actor: "local-cli" });
    expect(doc.records.every((x) => x.authority.claim === "unknown")).toBe(true);
  });

  it("reads state and trace files as data: a link is refused, a trace linked to /dev/zero is none", async () => {
    const repo = makeRepo();
    await runIn(repo, "hello-world", [], { mode: "autonomous" });
    const state = join(repo, HISTORY, `run-${FIXED_ID}.json`);
    const trace = join(repo, HISTORY, `run-${FIXED_ID}.trace.jsonl`);
    rmSync(trace);
    symlinkSync("/dev/zero", trace);
    const started = Date.now();
    const summary = await runCli(["trace", FIXED_ID], repo);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(summary.code).toBe(0);
    expect(parse(summary.out).records[0]).toMatchObject({ event: "start", actor: "local-cli" });

    symlinkSync(state, join(repo, "linked-state.json"));
    const linked = await runCli(["trace", "linked-state.json"], repo);
    expect(linked.code).toBe(3);
    expect(linked.err).toContain("file is a symbolic link; links are not followed (symlink)");
  });

  it("says what it needs for a run it cannot find (exit 3)", async () => {
    const repo = makeRepo();
    const none = await runCli(["trace", "20240305-1020-nope01"], repo);
    expect(none.code).toBe(3);
    expect(none.err).toContain("no run '20240305-1020-nope01'");
    const bad = await runCli(["trace", "README.md"], repo);
    expect(bad.code).toBe(3);
    expect(bad.err).toContain("is not valid JSON");
    const format = await runCli(["trace", FIXED_ID, "--format", "xml"], repo);
    expect(format.code).toBe(2);
  });
});

describe("a killed run's trace (real CLI, real git)", () => {
  it("holds each act once after the crash and the resume", () => {
    const repo = makeRepo("pb-trace-crash-");
    const crashed = spawnCli(["run", "hello-world", "--mode", "autonomous"], repo, {
      PLAYBOOK_BOT_FAULT: "crash-after-effect:branch",
    });
    expect(crashed.signal).toBe("SIGKILL");
    const id = (
      readdirSync(join(repo, ".playbook-runs")).find((f) => /^run-.*\.json$/.test(f)) ?? ""
    )
      .replace(/^run-/, "")
      .replace(/\.json$/, "");
    const resumed = spawnCli(["resume", id], repo);
    expect(resumed.code).toBe(0);
    const r = spawnCli(["trace", id], repo);
    expect(r.code).toBe(0);
    const doc = parse(r.out);
    const acts = doc.records.map((x) => `${x.event} ${x.target} ${x.outcome}`);
    expect(new Set(doc.records.map((x) => x.span_id)).size).toBe(doc.records.length);
    // The branch was asked for before the crash; the resume asked again with the same key
    // (a /retry of the lost result) and the run went on.
    expect(acts.filter((a) => a === "continue step branch waiting")).toHaveLength(1);
    expect(acts).toContain("/retry step branch waiting");
    expect(acts.at(-1)).toBe("continue run success");
    expect(doc.runs[0]?.status).toBe("completed");
  });
});
