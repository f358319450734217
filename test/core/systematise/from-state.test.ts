import { describe, expect, it } from "vitest";
import { runEvidenceOf } from "../../../src/core/systematise/from-state.js";
import type { RunState } from "../../../src/core/engine/state.js";
import { bundle, Driver, MAINTAINER, MIN, yaml } from "../engine/helpers.js";

const TRIAGE = yaml`
  apiVersion: playbook-bot/v1
  id: triage
  steps:
    - id: look
      type: investigate
      expected_findings: [disk_pct, cause]
      next:
        - { condition: the disk is full, label: full, goto: gate }
        - { condition: something else, label: other, goto: done }
    - id: gate
      type: checkpoint
      message: Clean it up?
      approvers: { permission: maintain }
    - { id: done, type: end }
`;

function walk(reject = false): { d: Driver; b: ReturnType<typeof bundle> } {
  const b = bundle(TRIAGE);
  const d = new Driver(b);
  d.start();
  d.drive();
  d.command("record", MAINTAINER, "disk_pct=97 cause=wal");
  d.drive();
  d.tick(MIN);
  d.command("choose", MAINTAINER, "full");
  d.drive();
  d.tick(MIN);
  if (reject) d.command("reject", MAINTAINER, "not now");
  else d.command("approve", MAINTAINER);
  d.drive();
  return { d, b };
}

describe("runEvidenceOf", () => {
  it("reads the steps a run entered, oldest first, with the branch chosen, findings and approvals", () => {
    const { d, b } = walk();
    const ev = runEvidenceOf(d.run, b.playbook);
    expect(ev).toMatchObject({ playbook: "triage", runId: d.run.id, status: "completed" });
    expect(ev.path.map((v) => [v.step, v.kind, v.status])).toEqual([
      ["look", "investigate", "completed"],
      ["gate", "checkpoint", "completed"],
      ["done", "end", "completed"],
    ]);
    expect(ev.path[0]).toMatchObject({
      choice: "full",
      findings: { disk_pct: 97, cause: "wal" },
    });
    expect(ev.path[1]).toMatchObject({ approvals: [{ by: "bob", decision: "approve" }] });
    expect(ev.path.every((v) => typeof v.at === "string")).toBe(true);
  });

  it("names who rejected a checkpoint, and says a run failed", () => {
    const { d, b } = walk(true);
    const ev = runEvidenceOf(d.run, b.playbook);
    expect(ev.status).toBe("failed");
    const gate = ev.path.find((v) => v.step === "gate");
    expect(gate).toMatchObject({
      status: "failed",
      approvals: [{ by: "bob", decision: "reject" }],
    });
  });

  it("says a run that waits is waiting, its current step too", () => {
    const b = bundle(TRIAGE);
    const d = new Driver(b);
    d.start();
    d.drive();
    const ev = runEvidenceOf(d.run, b.playbook);
    expect(ev.status).toBe("waiting");
    expect(ev.path).toEqual([]);
  });

  it("reads a run without its playbook by its results alone, and a run with no frame as empty", () => {
    const { d } = walk();
    const ev = runEvidenceOf(d.run, undefined);
    expect(ev.path.map((v) => v.step).sort()).toEqual(["done", "gate", "look"]);
    expect(ev.path.every((v) => v.kind === "unknown")).toBe(true);
    const bare = { ...d.run, stack: [] } as RunState;
    expect(runEvidenceOf(bare, undefined)).toMatchObject({ playbook: "", path: [] });
  });

  it("places steps whose results were folded by the playbook's order, by status alone", () => {
    const { d, b } = walk();
    const run = structuredClone(d.run);
    const frame = run.stack[0]!;
    // As a long run keeps it: `look` folded to one character, its details gone.
    delete frame.results.look;
    frame.folded = "c---";
    const ev = runEvidenceOf(run, b.playbook);
    expect(ev.path.map((v) => [v.step, v.status, v.at === undefined])).toEqual([
      ["look", "completed", true],
      ["gate", "completed", false],
      ["done", "completed", false],
    ]);
    // An ignored step counts as skipped; a step still running as waiting.
    frame.results.gate = { ...frame.results.gate!, status: "ignored" };
    frame.results.done = { ...frame.results.done!, status: "running" };
    const again = runEvidenceOf(run, b.playbook);
    expect(again.path.map((v) => v.status)).toEqual(["completed", "skipped", "waiting"]);
  });

  it("says a cancelled run was cancelled", () => {
    const b = bundle(TRIAGE);
    const d = new Driver(b);
    d.start();
    d.drive();
    d.command("cancel", MAINTAINER);
    expect(runEvidenceOf(d.run, b.playbook).status).toBe("cancelled");
  });
});
