import { describe, expect, it } from "vitest";
import {
  commandTarget,
  namedRun,
  type CandidateRun,
} from "../../../src/core/engine/command-target.js";
import { parseArgs } from "../../../src/core/engine/inputs.js";
import type { RunState } from "../../../src/core/engine/state.js";
import type { Step } from "../../../src/core/format/types.js";

/** A run of `id` at a checkpoint (`waiting`) or finished, as the target is picked from. */
function candidate(id: string, status: RunState["status"]): CandidateRun {
  const frame = { current: "gate", phase: "waiting", votes: [] };
  return {
    run: { id, status, stack: [frame] } as unknown as RunState,
    step: () => ({ id: "gate", type: "checkpoint", message: "Go?" }) as Step,
  };
}

const A = "20261202-0330-1001-k3f9q";
const B = "20261202-0331-1004-2yqtx";

describe("a vote naming its run", () => {
  it("takes a first word that is a run id, in any case, as the run, and the rest as the vote's words", () => {
    expect(namedRun(parseArgs(`${A.toUpperCase()}  looks good k=v`))).toEqual({
      run: A,
      args: { positional: ["looks", "good"], values: { k: "v" }, text: "looks good k=v" },
    });
    // Quoted, it is still the id; the text is left as written.
    expect(namedRun(parseArgs(`"${A}" ok`))).toMatchObject({
      run: A,
      args: { positional: ["ok"], text: `"${A}" ok` },
    });
  });

  it("leaves words that are no run id (a step, a note) as they are", () => {
    for (const words of ["gate", "looks good", "", "2026-12-02 is fine"]) {
      const args = parseArgs(words);
      expect(namedRun(args)).toEqual({ args });
    }
  });

  it("goes only to the run it names, and says so when that run does not wait", () => {
    const runs = [candidate(A, "failed"), candidate(B, "waiting")];
    const none = parseArgs("");
    expect(commandTarget("approve", none, runs, B)).toEqual({ run: runs[1] });
    expect(commandTarget("approve", none, runs, A)).toEqual({
      refused: `run \`${A}\` does not wait for /approve now`,
    });
    expect(commandTarget("approve", none, runs, "20261202-0000-9-zzzzz")).toEqual({
      refused: "no run `20261202-0000-9-zzzzz` is open on this issue",
    });
    expect(commandTarget("record", parseArgs("k=v"), [candidate(B, "waiting")], B)).toEqual({
      refused: `run \`${B}\` does not wait for /record now`,
    });
  });
});
