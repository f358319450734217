import { describe, expect, it } from "vitest";
import { PlaybookGraph } from "../../../src/core/format/graph.js";
import type { PlaybookDocument } from "../../../src/core/format/types.js";
import { playbookOf, yaml } from "./helpers.js";

const edges = (g: PlaybookGraph, id: string): string[] =>
  g.successors(id).map((e) => `${e.kind}:${e.to}${e.label !== undefined ? `(${e.label})` : ""}`);

describe("PlaybookGraph successors", () => {
  const g = new PlaybookGraph(
    playbookOf(yaml`
      apiVersion: playbook-bot/v1
      id: t
      steps:
        - { id: a, type: comment, body: x }
        - id: b
          type: comment
          body: x
          next:
            - { when: "inputs.x == 1", goto: d }
        - id: c
          type: comment
          body: x
          next:
            - { when: "inputs.x == 1", goto: a }
            - { default: e }
        - id: d
          type: checkpoint
          message: ok?
          on_reject: e
          timeout: 1h
          on_timeout: c
          next:
            - { condition: looks fine, label: fine, goto: f }
            - { condition: not sure, goto: e }
        - id: e
          type: decide
          rules:
            - { id: r1, all: [x], conclusion: c, goto: f }
            - { id: r2, conclusion: c }
        - id: f
          type: decide
          rules:
            - { id: r1, all: [x], conclusion: c, goto: g }
          fallback: { conclusion: none, goto: h }
        - { id: g, type: playbook, playbook: other, mode: handoff }
        - { id: h, type: end }
        - id: i
          type: checkpoint
          message: ok?
          timeout: 1h
          on_timeout: cancel
        - { id: j, type: end }
    `),
  );

  it("falls through to the following step", () => {
    expect(edges(g, "a")).toEqual(["fall-through:b"]);
    expect(g.following("a")?.id).toBe("b");
    expect(g.following("j")).toBeUndefined();
    expect(g.following("nope")).toBeUndefined();
  });

  it("falls through after when branches without a default", () => {
    expect(edges(g, "b")).toEqual(["when:d", "fall-through:c"]);
  });

  it("takes the default instead of falling through", () => {
    expect(edges(g, "c")).toEqual(["when:a", "default:e"]);
  });

  it("follows a checkpoint's on_reject and on_timeout, and labels prose branches", () => {
    expect(edges(g, "d")).toEqual(["reject:e", "timeout:c", "condition:f(fine)", "condition:e(e)"]);
    expect(g.successors("d")[0]?.path).toEqual(["steps", 3, "on_reject"]);
    expect(edges(g, "i")).toEqual(["fall-through:j"]);
  });

  it("falls through a decide step when a rule or the fallback has no goto", () => {
    expect(edges(g, "e")).toEqual(["rule:f(r1)", "fall-through:f"]);
    expect(edges(g, "f")).toEqual(["rule:g(r1)", "fallback:h"]);
    expect(g.successors("f")[1]?.path).toEqual(["steps", 5, "fallback", "goto"]);
  });

  it("treats end and handoff steps as terminals", () => {
    expect(g.isTerminal("g")).toBe(true);
    expect(g.isTerminal("h")).toBe(true);
    expect(g.isTerminal("a")).toBe(false);
    expect(g.successors("unknown")).toEqual([]);
  });

  it("reaches from the first step", () => {
    expect(g.entry).toBe("a");
    expect(g.mode).toBe("steps");
    expect([...g.reachable()].sort()).toEqual(["a", "b", "c", "d", "e", "f", "g", "h"]);
  });
});

describe("nodes mode", () => {
  const g = new PlaybookGraph(
    playbookOf(yaml`
      apiVersion: playbook-bot/v1
      id: t
      entrypoint: start
      nodes:
        other: { type: end }
        start:
          type: comment
          body: x
          next: [{ when: "true", goto: missing }, { default: other }]
        later: { type: comment, body: y }
    `),
  );

  it("uses the entrypoint and node keys as ids, without fall-through", () => {
    expect(g.mode).toBe("nodes");
    expect(g.entry).toBe("start");
    expect(g.steps.map((s) => [s.id, s.path.join("."), s.index])).toEqual([
      ["other", "nodes.other", 0],
      ["start", "nodes.start", 1],
      ["later", "nodes.later", 2],
    ]);
    expect(edges(g, "later")).toEqual([]);
    expect(g.byId.get("start")?.step.id).toBe("start");
  });

  it("keeps unresolved edges out of resolvedSuccessors", () => {
    expect(edges(g, "start")).toEqual(["when:missing", "default:other"]);
    expect(g.resolvedSuccessors("start").map((e) => e.to)).toEqual(["other"]);
  });

  it("reaches nothing without a valid entrypoint", () => {
    const pb = playbookOf(
      "apiVersion: playbook-bot/v1\nid: t\nentrypoint: nope\nnodes: { a: { type: end } }\n",
    );
    const h = new PlaybookGraph(pb);
    expect(h.reachable().size).toBe(0);
    expect(h.findCycle()).toBeUndefined();
    expect(h.dominators().get("a")).toBeUndefined();
  });
});

describe("dominators and cycles", () => {
  it("computes the steps that lie on every path", () => {
    const g = new PlaybookGraph(
      playbookOf(yaml`
        apiVersion: playbook-bot/v1
        id: t
        steps:
          - id: a
            type: comment
            body: x
            next: [{ when: "true", goto: c }]
          - { id: b, type: comment, body: x }
          - { id: c, type: comment, body: x }
          - { id: d, type: end }
          - { id: unreached, type: end }
      `),
    );
    const dom = g.dominators();
    expect(dom.get("a")?.ids()).toEqual(["a"]);
    expect(dom.get("b")?.ids().sort()).toEqual(["a", "b"]);
    expect(dom.get("c")?.ids().sort()).toEqual(["a", "c"]);
    expect(dom.get("d")?.ids().sort()).toEqual(["a", "c", "d"]);
    expect(dom.get("d")?.has("c")).toBe(true);
    expect(dom.get("d")?.has("b")).toBe(false);
    expect(dom.get("unreached")).toBeUndefined();
    expect(g.findCycle()).toBeUndefined();
  });

  it("finds a reachable cycle as a closed list of ids", () => {
    const g = new PlaybookGraph(
      playbookOf(yaml`
        apiVersion: playbook-bot/v1
        id: t
        steps:
          - { id: a, type: comment, body: x }
          - { id: b, type: comment, body: x }
          - id: c
            type: comment
            body: x
            next: [{ when: "true", goto: b }]
          - { id: d, type: end }
      `),
    );
    expect(g.findCycle()).toEqual(["b", "c", "b"]);
    const dom = g.dominators();
    expect(dom.get("d")?.ids().sort()).toEqual(["a", "b", "c", "d"]);
  });

  it("the dominator tree agrees with the set method on random graphs of steps that run alone", () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 60; round++) {
      const n = 3 + random(25);
      const steps = Array.from({ length: n }, (_, i) => {
        if (i === n - 1) return `  - { id: s${i}, type: end }`;
        const branches = Array.from({ length: random(3) }, () => `s${random(n)}`)
          .filter((to) => to !== `s${i}`)
          .map((to) => `{ when: "inputs.x == '${to}'", goto: ${to} }`);
        return `  - id: s${i}\n    type: comment\n    body: x${branches.length ? `\n    next: [${branches.join(", ")}]` : ""}`;
      });
      const g = new PlaybookGraph(
        playbookOf(`apiVersion: playbook-bot/v1\nid: t\nsteps:\n${steps.join("\n")}\n`),
      );
      const tree = g.dominators();
      const sets = g.dominatorSets();
      for (const s of g.steps) {
        const expected = sets.get(s.id);
        expect(tree.get(s.id)?.ids().sort(), `round ${round}, ${s.id}`).toEqual(
          expected ? [...expected].sort() : undefined,
        );
        for (const other of g.steps)
          expect(tree.get(s.id)?.has(other.id) ?? false).toBe(expected?.has(other.id) ?? false);
      }
    }
  });

  it("ignores a cycle among unreachable steps", () => {
    const g = new PlaybookGraph(
      playbookOf(yaml`
        apiVersion: playbook-bot/v1
        id: t
        steps:
          - { id: a, type: end }
          - { id: x, type: comment, body: x, next: y }
          - { id: y, type: comment, body: x, next: x }
      `),
    );
    expect(g.findCycle()).toBeUndefined();
  });

  it("has no entry for an empty steps list", () => {
    const g = new PlaybookGraph({ apiVersion: "playbook-bot/v1", id: "t" } as PlaybookDocument);
    expect(g.entry).toBeUndefined();
    expect(g.steps).toEqual([]);
  });
});
