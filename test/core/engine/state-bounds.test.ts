import { describe, expect, it } from "vitest";
import { graphOf } from "../../../src/core/format/graph.js";
import {
  MAX_FINDINGS,
  MAX_KEPT_RESULTS,
  stepStatus,
} from "../../../src/core/engine/state-bounds.js";
import type { Frame } from "../../../src/core/engine/state.js";
import { idsOnCycles } from "../../../src/core/util/cycle.js";
import { encodeSigned, repositoryStateKey } from "../../../src/runtime/state-codec.js";
import { bundle, Driver, INITIATOR } from "./helpers.js";

const SEAL = { key: repositoryStateKey("s3cret", 1, 2), issue: 5, comment: "77" };

/** A playbook of `count` comment steps; `body(i)` writes step i's body. */
function linear(count: number, body: (i: number) => string = () => "hi") {
  const steps = Array.from(
    { length: count },
    (_, i) => `  - id: s${i}\n    type: comment\n    body: "${body(i)}"\n`,
  ).join("");
  return bundle(
    `apiVersion: playbook-bot/v1\nid: long\nlimits:\n  max_steps: 10000\nsteps:\n${steps}`,
  );
}

/** Runs every step, answering each comment as GitHub would; the signed state's size after each step. */
function runThrough(d: Driver): number[] {
  const sizes: number[] = [];
  d.start();
  let n = 1000;
  for (;;) {
    d.drive();
    if (d.run.status === "completed" || d.run.status === "failed") break;
    n++;
    d.answer({ id: n, url: `https://github.com/octo/repo/issues/5#issuecomment-${n}` });
    sizes.push(encodeSigned(d.run, SEAL).length);
  }
  return sizes;
}

describe("the run state stays bounded whatever the number of steps", () => {
  it("a 1,500-step run keeps its latest results and folds the rest to one character each", () => {
    const d = new Driver(linear(1_500));
    const sizes = runThrough(d);
    expect(d.run.status).toBe("completed");
    const root = d.run.stack[0] as Frame;
    expect(Object.keys(root.results).length).toBeLessThanOrEqual(MAX_KEPT_RESULTS);
    expect(Object.keys(root.attempts).length).toBeLessThanOrEqual(MAX_KEPT_RESULTS + 1);
    expect(root.folded).toHaveLength(1_500);
    const graph = graphOf(d.root.playbook);
    // Every step still says how it ended, kept or folded.
    expect(graph.steps.every((s) => stepStatus(root, graph, s.id) === "completed")).toBe(true);
    expect(stepStatus(root, graph, "s0")).toBe("completed");
    expect(root.results.s0).toBeUndefined();
    expect(root.results.s1499?.outputs?.id).toBe(2500);
    // The block hardly grows once folding starts: from step 200 to step 1,500, under 1 KB.
    const at200 = sizes[199] as number;
    const last = sizes[sizes.length - 1] as number;
    expect(last - at200).toBeLessThan(1_000);
    expect(Math.max(...sizes)).toBeLessThan(8_000);
  });

  it("keeps the outputs of a step that a later template reads, and renders them", () => {
    const d = new Driver(
      linear(200, (i) => (i === 199 ? "first said {{ steps.s0.outputs.url }}" : "hi")),
    );
    runThrough(d);
    const root = d.run.stack[0] as Frame;
    expect(root.results.s0?.outputs?.url).toBe(
      "https://github.com/octo/repo/issues/5#issuecomment-1001",
    );
    expect(root.results.s1).toBeUndefined();
    const last = d.all.flatMap((r) => r.effects).at(-1);
    expect((last?.params as { body?: string }).body).toContain(
      "first said https://github.com/octo/repo/issues/5#issuecomment-1001",
    );
  });

  it("never folds a step on a loop: entered again, its attempt count still keys its effect", () => {
    const steps = Array.from(
      { length: 80 },
      (_, i) => `  - id: s${i}\n    type: comment\n    body: hi\n`,
    );
    steps[79] = `  - id: s79\n    type: comment\n    body: hi\n    next:\n      - when: "steps.s79.outputs.id < 1100"\n        goto: s70\n      - default: done\n`;
    const d = new Driver(
      bundle(
        `apiVersion: playbook-bot/v1\nid: loop\nlimits:\n  max_steps: 1000\nsteps:\n${steps.join("")}  - id: done\n    type: end\n    status: success\n`,
      ),
    );
    runThrough(d);
    expect(d.run.status).toBe("completed");
    const root = d.run.stack[0] as Frame;
    // s70…s79 ran again and again, each attempt a new effect key.
    expect(root.attempts.s70).toBeGreaterThan(1);
    const keys = d.all.flatMap((r) => r.effects).map((e) => e.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(root.results.s5).toBeUndefined();
    expect(root.folded?.[5]).toBe("c");
  });

  it("keeps at most MAX_FINDINGS findings: kept ones are updated, new ones beyond are not kept", () => {
    const d = new Driver(
      bundle(
        `apiVersion: playbook-bot/v1\nid: rec\nsteps:\n  - id: look\n    type: investigate\n    description: look\n    expected_findings: [final]\n`,
      ),
    );
    d.start();
    d.drive();
    for (let i = 0; i < MAX_FINDINGS + 20; i += 10) {
      const pairs = Array.from({ length: 10 }, (_, j) => `k${i + j}=v`);
      d.command("record", INITIATOR, pairs.join(" "));
    }
    d.command("record", INITIATOR, "k0=changed");
    const findings = (d.run.stack[0] as Frame).findings;
    expect(Object.keys(findings)).toHaveLength(MAX_FINDINGS);
    expect(findings.k0).toBe("changed");
    expect(findings[`k${MAX_FINDINGS + 5}`]).toBeUndefined();
  });
});

describe("idsOnCycles", () => {
  it("finds the ids on cycles, self-loops included, and none on a chain", () => {
    const edges: Record<string, string[]> = {
      a: ["b"],
      b: ["c"],
      c: ["a", "d"],
      d: ["e"],
      e: ["e", "f"],
      f: ["outside"],
    };
    expect([...idsOnCycles(Object.keys(edges), (id) => edges[id] ?? [])].sort()).toEqual([
      "a",
      "b",
      "c",
      "e",
    ]);
  });

  it("walks a chain of 200,000 ids without running out of stack", () => {
    const ids = Array.from({ length: 200_000 }, (_, i) => `n${i}`);
    const next = (id: string) => {
      const i = Number(id.slice(1));
      return i + 1 < ids.length ? [`n${i + 1}`] : ["n0"];
    };
    expect(idsOnCycles(ids, next).size).toBe(200_000);
    expect(idsOnCycles(ids, (id) => (id === "n199999" ? [] : next(id))).size).toBe(0);
  });
});
