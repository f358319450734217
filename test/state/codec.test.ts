import { createHmac } from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  decodeSigned,
  encodeSigned,
  parseRunState,
  runStateProblems,
} from "../../src/state/codec.js";
import { sampleRun } from "./fixtures.js";

const SECRET = "s3cret";

function pack(text: string): string {
  return deflateRawSync(Buffer.from(text, "utf8")).toString("base64url");
}

function signed(payload: string): string {
  return createHmac("sha256", SECRET).update(payload).digest("base64url");
}

describe("runStateProblems", () => {
  it("accepts a run state the engine made", () => {
    expect(runStateProblems(sampleRun())).toEqual([]);
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
  it("round-trips a run", () => {
    const run = sampleRun();
    const text = encodeSigned(run, SECRET);
    expect(text).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(decodeSigned(text, SECRET)).toEqual({ ok: true, run });
    // Whitespace around the block (as inside a comment) is allowed.
    expect(decodeSigned(`\n  ${text}  \n`, SECRET)).toEqual({ ok: true, run });
  });

  it("reports a changed payload as tampered", () => {
    const text = encodeSigned(sampleRun(), SECRET);
    const [payload, mac] = text.split(".") as [string, string];
    const json = inflateRawSync(Buffer.from(payload, "base64url")).toString("utf8");
    expect(json).toContain('"alice"');
    const other = pack(json.replace('"alice"', '"mallory"'));
    expect(decodeSigned(`${other}.${mac}`, SECRET)).toMatchObject({
      ok: false,
      reason: "tampered",
    });
    // The same edit, signed with the secret, is read back with the change.
    expect(decodeSigned(`${other}.${signed(other)}`, SECRET)).toMatchObject({
      ok: true,
      run: { initiator: "mallory" },
    });
  });

  it("reports a changed signature or another secret as tampered", () => {
    const text = encodeSigned(sampleRun(), SECRET);
    const flipped = text.slice(0, -1) + (text.endsWith("A") ? "B" : "A");
    expect(decodeSigned(flipped, SECRET)).toMatchObject({ ok: false, reason: "tampered" });
    expect(decodeSigned(text, "other")).toMatchObject({ ok: false, reason: "tampered" });
  });

  it("reports garbage as corrupt", () => {
    for (const bad of ["", "garbage", "abc.def", "a b.c", `${"x".repeat(10)}.${"y".repeat(44)}`]) {
      expect(decodeSigned(bad, SECRET)).toMatchObject({ ok: false, reason: "corrupt" });
    }
  });

  it("reports a correctly signed block that is not a run state as corrupt", () => {
    // Another payload's signature does not fit it.
    const json = pack("not json");
    const sig = encodeSigned(sampleRun(), SECRET).split(".")[1];
    expect(decodeSigned(`${json}.${sig}`, SECRET)).toMatchObject({ reason: "tampered" });
    expect(decodeSigned(`${json}.${signed(json)}`, SECRET)).toMatchObject({
      ok: false,
      reason: "corrupt",
      detail: expect.stringMatching(/^not valid JSON/),
    });
    const schema = pack(JSON.stringify({ v: 1, id: "x" }));
    expect(decodeSigned(`${schema}.${signed(schema)}`, SECRET)).toMatchObject({
      ok: false,
      reason: "corrupt",
    });
  });

  it("reports a signed block that does not inflate, or inflates past 1 MiB, as corrupt", () => {
    const raw = Buffer.from("plain, not deflated").toString("base64url");
    expect(decodeSigned(`${raw}.${signed(raw)}`, SECRET)).toMatchObject({
      ok: false,
      reason: "corrupt",
      detail: expect.stringMatching(/^the state block does not decompress/),
    });
    const bomb = pack(" ".repeat(2 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(10_000);
    expect(decodeSigned(`${bomb}.${signed(bomb)}`, SECRET)).toMatchObject({
      ok: false,
      reason: "corrupt",
    });
  });

  it("reports a correctly signed state of another version as 'version'", () => {
    const text = encodeSigned({ ...sampleRun(), v: 7 } as never, SECRET);
    expect(decodeSigned(text, SECRET)).toMatchObject({ ok: false, reason: "version" });
  });

  it("keeps values such as --> inside the payload, so they cannot end an HTML comment", () => {
    const run = sampleRun();
    run.initiator = "--> <script>alert(1)</script> <!--";
    run.stack[0]!.inputs = { note: "-->" };
    const text = encodeSigned(run, SECRET);
    expect(text).not.toContain("-->");
    expect(text).not.toContain("<");
    expect(text).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const back = decodeSigned(`<!-- ${text} -->`.slice(5, -4), SECRET);
    expect(back).toEqual({ ok: true, run });
  });
});
