import { createHmac } from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  decodeSigned,
  encodeSigned,
  parseRunState,
  repositoryStateKey,
  runStateProblems,
  type StateSeal,
} from "../../../src/runtime/state-codec.js";
import { sampleRun } from "./fixtures.js";

const SECRET = "s3cret";
/** Status comment 77 on issue 5 of repository 2 in installation 1. */
const SEAL: StateSeal = { key: repositoryStateKey(SECRET, 1, 2), issue: 5, comment: "77" };

function pack(text: string): string {
  return deflateRawSync(Buffer.from(text, "utf8")).toString("base64url");
}

function signed(runId: string, payload: string): string {
  return createHmac("sha256", SEAL.key)
    .update(`${SEAL.issue}\0${SEAL.comment}\0${runId}\0${payload}`)
    .digest("base64url");
}

describe("runStateProblems", () => {
  it("accepts a run state the engine made", () => {
    expect(runStateProblems(sampleRun())).toEqual([]);
  });

  it("accepts the origin of a run a handoff started, and a state without one", () => {
    const origin = {
      run: "20260301-1000-001",
      root: "20260301-0900-001",
      key: "20260301-1000-001/handoff/next",
    };
    expect(runStateProblems({ ...sampleRun(), origin })).toEqual([]);
    expect("origin" in sampleRun()).toBe(false);
    expect(runStateProblems(sampleRun())).toEqual([]);
  });

  it("refuses an origin that names no run, a key past its bound, or fields of its own", () => {
    const origin = { run: "20260301-1000-001", root: "20260301-1000-001", key: "k" };
    const bad = [
      { ...origin, run: "../../etc" },
      { ...origin, root: "x".repeat(60) },
      { ...origin, key: "k".repeat(201) },
      { ...origin, extra: "value" },
      { run: origin.run, root: origin.root },
    ];
    for (const o of bad)
      expect(runStateProblems({ ...sampleRun(), origin: o }).join("\n")).toContain("/origin");
  });

  it("names the field that is wrong", () => {
    const run = { ...sampleRun(), status: "bogus" };
    expect(runStateProblems(run).join("\n")).toContain("/status");
  });

  it("reports a missing field against the whole state", () => {
    const run: Partial<ReturnType<typeof sampleRun>> = sampleRun();
    delete run.seq;
    expect(runStateProblems(run)).toEqual([expect.stringContaining("(state)")]);
    expect(runStateProblems(run)[0]).toContain("seq");
  });

  it("reports at most five problems", () => {
    const run = {
      ...sampleRun(),
      status: 1,
      initiator: 2,
      startedAt: 3,
      updatedAt: 4,
      seq: "x",
      steps: "y",
      traceDropped: -1,
    };
    expect(runStateProblems(run)).toHaveLength(5);
  });

  it("reports an unsupported version before anything else", () => {
    expect(runStateProblems({ v: 2 })).toEqual([
      "state version 2 is not supported (this version reads 1)",
    ]);
  });

  it("rejects values that are not objects", () => {
    expect(runStateProblems(null).length).toBeGreaterThan(0);
    expect(runStateProblems("run").length).toBeGreaterThan(0);
  });
});

describe("parseRunState", () => {
  it("parses a valid document", () => {
    const run = sampleRun();
    const r = parseRunState(JSON.stringify(run));
    expect(r).toEqual({ ok: true, run });
  });

  it("calls invalid JSON corrupt", () => {
    const r = parseRunState("{not json");
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reason).toBe("corrupt");
      expect(r.detail).toMatch(/^not valid JSON: /);
    }
  });

  it("calls a schema mismatch corrupt and lists the problems", () => {
    const r = parseRunState(JSON.stringify({ ...sampleRun(), id: "run-1", seq: 0 }));
    expect(r).toMatchObject({ ok: false, reason: "corrupt" });
    if (!r.ok) {
      expect(r.detail).toContain("/id");
      expect(r.detail).toContain("/seq");
      expect(r.detail).toContain("; ");
    }
  });

  it("calls another version 'version'", () => {
    const r = parseRunState(JSON.stringify({ ...sampleRun(), v: 99 }));
    expect(r).toMatchObject({ ok: false, reason: "version" });
  });
});

describe("encodeSigned / decodeSigned", () => {
  it("round-trips a run, as `<run id> <payload>.<mac>`", () => {
    const run = sampleRun();
    const text = encodeSigned(run, SEAL);
    expect(text).toMatch(/^[0-9]{8}-[0-9]{4}-[a-z0-9-]+ [A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(text.startsWith(`${run.id} `)).toBe(true);
    expect(decodeSigned(text, SEAL)).toEqual({ ok: true, run });
    // Whitespace around the block (as inside a comment) is allowed.
    expect(decodeSigned(`\n  ${text}  \n`, SEAL)).toEqual({ ok: true, run });
  });

  it("binds a block to its installation, repository, issue and comment: elsewhere it is tampered", () => {
    const run = sampleRun();
    const text = encodeSigned(run, SEAL);
    const elsewhere: StateSeal[] = [
      { ...SEAL, comment: "78" }, // another comment: a copy the bot echoed, or a pasted block
      { ...SEAL, issue: 6 }, // the same comment id claimed on another issue
      { ...SEAL, key: repositoryStateKey(SECRET, 1, 3) }, // another repository
      { ...SEAL, key: repositoryStateKey(SECRET, 9, 2) }, // another installation
      { ...SEAL, key: repositoryStateKey("other", 1, 2) }, // another app
    ];
    for (const seal of elsewhere)
      expect(decodeSigned(text, seal)).toMatchObject({ ok: false, reason: "tampered" });
  });

  it("binds the run id: a block relabelled as another run does not verify", () => {
    const text = encodeSigned(sampleRun(), SEAL);
    const relabelled = text.replace(/^\S+/, "20261121-2304-9-zzzz");
    expect(decodeSigned(relabelled, SEAL)).toMatchObject({ ok: false, reason: "tampered" });
  });

  it("reports a changed payload as tampered", () => {
    const run = sampleRun();
    const text = encodeSigned(run, SEAL);
    const [head, mac] = text.split(".") as [string, string];
    const payload = head.split(" ")[1] as string;
    const json = inflateRawSync(Buffer.from(payload, "base64url")).toString("utf8");
    expect(json).toContain('"alice"');
    const other = pack(json.replace('"alice"', '"mallory"'));
    expect(decodeSigned(`${run.id} ${other}.${mac}`, SEAL)).toMatchObject({
      ok: false,
      reason: "tampered",
    });
    // The same edit, sealed with the key, is read back with the change.
    expect(decodeSigned(`${run.id} ${other}.${signed(run.id, other)}`, SEAL)).toMatchObject({
      ok: true,
      run: { initiator: "mallory" },
    });
  });

  it("reports a changed signature as tampered", () => {
    const text = encodeSigned(sampleRun(), SEAL);
    const flipped = text.slice(0, -1) + (text.endsWith("A") ? "B" : "A");
    expect(decodeSigned(flipped, SEAL)).toMatchObject({ ok: false, reason: "tampered" });
  });

  it("reports garbage as corrupt", () => {
    for (const bad of [
      "",
      "garbage",
      "abc.def",
      "a b.c",
      `${"x".repeat(10)}.${"y".repeat(43)}`,
      `NOT-A-RUN ${"x".repeat(10)}.${"y".repeat(43)}`,
    ]) {
      expect(decodeSigned(bad, SEAL)).toMatchObject({ ok: false, reason: "corrupt" });
    }
  });

  it("reports a correctly sealed block that is not a run state, or names another run, as corrupt", () => {
    const id = sampleRun().id;
    const json = pack("not json");
    expect(decodeSigned(`${id} ${json}.${signed(id, json)}`, SEAL)).toMatchObject({
      ok: false,
      reason: "corrupt",
      detail: expect.stringMatching(/^not valid JSON/),
    });
    const schema = pack(JSON.stringify({ v: 1, id: "x" }));
    expect(decodeSigned(`${id} ${schema}.${signed(id, schema)}`, SEAL)).toMatchObject({
      ok: false,
      reason: "corrupt",
    });
    const other = pack(JSON.stringify({ ...sampleRun(), id: "20260101-0000-1-abcd" }));
    expect(decodeSigned(`${id} ${other}.${signed(id, other)}`, SEAL)).toMatchObject({
      ok: false,
      reason: "corrupt",
      detail: "the state block names another run",
    });
  });

  it("reports a sealed block that does not inflate, or inflates past 1 MiB, as corrupt", () => {
    const id = sampleRun().id;
    const raw = Buffer.from("plain, not deflated").toString("base64url");
    expect(decodeSigned(`${id} ${raw}.${signed(id, raw)}`, SEAL)).toMatchObject({
      ok: false,
      reason: "corrupt",
      detail: expect.stringMatching(/^the state block does not decompress/),
    });
    const bomb = pack(" ".repeat(2 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(10_000);
    expect(decodeSigned(`${id} ${bomb}.${signed(id, bomb)}`, SEAL)).toMatchObject({
      ok: false,
      reason: "corrupt",
    });
  });

  it("reports a correctly sealed state of another version as 'version'", () => {
    const text = encodeSigned({ ...sampleRun(), v: 7 } as never, SEAL);
    expect(decodeSigned(text, SEAL)).toMatchObject({ ok: false, reason: "version" });
  });

  it("keeps values such as --> inside the payload, so they cannot end an HTML comment", () => {
    const run = sampleRun();
    run.initiator = "--> <script>alert(1)</script> <!--";
    run.stack[0]!.inputs = { note: "-->" };
    const text = encodeSigned(run, SEAL);
    expect(text).not.toContain("-->");
    expect(text).not.toContain("<");
    const back = decodeSigned(`<!-- ${text} -->`.slice(5, -4), SEAL);
    expect(back).toEqual({ ok: true, run });
  });
});
