import type { PathSegment } from "./source.js";
import type { PlaybookDocument, Step } from "./types.js";

/**
 * The control-flow graph of a playbook, the same for both authoring modes. The validator checks
 * it, the Mermaid renderer draws it, and the engine walks it: one definition of "what comes next".
 */
export type EdgeKind =
  | "fall-through"
  | "goto"
  | "when"
  | "condition"
  | "default"
  | "rule"
  | "fallback"
  | "reject"
  | "timeout";

export interface Edge {
  from: string;
  to: string;
  kind: EdgeKind;
  /** Branch label (`/choose <label>`) or rule id. */
  label?: string;
  /** Where the edge is written, for diagnostics. */
  path: PathSegment[];
}

export interface GraphStep {
  id: string;
  step: Step;
  /** Path of the step in the document: ["steps", 3] or ["nodes", "pod_state"]. */
  path: PathSegment[];
  /** Position in the listing (steps order, or nodes key order). */
  index: number;
}

/**
 * A step's title for people. A branch step's `name` is the branch it makes, not a title, so a
 * branch step is called by its id.
 */
export function stepTitle(step: Step): string {
  return step.type === "branch" ? step.id : (step.name ?? step.id);
}

export class PlaybookGraph {
  readonly steps: GraphStep[];
  readonly byId = new Map<string, GraphStep>();
  readonly entry: string | undefined;
  readonly mode: "steps" | "nodes";
  private readonly edges = new Map<string, Edge[]>();

  constructor(readonly playbook: PlaybookDocument) {
    this.mode = playbook.nodes ? "nodes" : "steps";
    this.steps = listSteps(playbook);
    for (const s of this.steps) if (!this.byId.has(s.id)) this.byId.set(s.id, s);
    this.entry = this.mode === "nodes" ? playbook.entrypoint : this.steps[0]?.id;
    for (const s of this.steps) this.edges.set(s.id, computeEdges(this, s));
  }

  successors(id: string): Edge[] {
    return this.edges.get(id) ?? [];
  }

  /** Edges whose target exists. */
  resolvedSuccessors(id: string): Edge[] {
    return this.successors(id).filter((e) => this.byId.has(e.to));
  }

  isTerminal(id: string): boolean {
    return this.successors(id).length === 0;
  }

  /** The step after `id` in the listing, for fall-through. */
  following(id: string): GraphStep | undefined {
    const s = this.byId.get(id);
    return s ? this.steps[s.index + 1] : undefined;
  }

  reachable(): Set<string> {
    const seen = new Set<string>();
    if (!this.entry || !this.byId.has(this.entry)) return seen;
    const stack = [this.entry];
    while (stack.length > 0) {
      const id = stack.pop() as string;
      if (seen.has(id)) continue;
      seen.add(id);
      for (const e of this.resolvedSuccessors(id)) stack.push(e.to);
    }
    return seen;
  }

  /** A cycle among reachable steps, as a list of ids, or undefined. */
  findCycle(): string[] | undefined {
    const state = new Map<string, 1 | 2>();
    const trail: string[] = [];
    const visit = (id: string): string[] | undefined => {
      state.set(id, 1);
      trail.push(id);
      for (const e of this.resolvedSuccessors(id)) {
        const s = state.get(e.to);
        if (s === 1) return [...trail.slice(trail.indexOf(e.to)), e.to];
        if (s === undefined) {
          const found = visit(e.to);
          if (found) return found;
        }
      }
      trail.pop();
      state.set(id, 2);
      return undefined;
    };
    return this.entry && this.byId.has(this.entry) ? visit(this.entry) : undefined;
  }

  /**
   * Dominators of every reachable step: the steps that lie on every path from the entry to it.
   * An output can be used only where its step dominates the user (it has surely run).
   */
  dominators(): Map<string, Set<string>> {
    const reach = this.reachable();
    const order = this.steps.map((s) => s.id).filter((id) => reach.has(id));
    const preds = new Map<string, string[]>(order.map((id) => [id, []]));
    for (const id of order) for (const e of this.resolvedSuccessors(id)) preds.get(e.to)?.push(id);
    const all = new Set(order);
    const dom = new Map<string, Set<string>>();
    for (const id of order) dom.set(id, id === this.entry ? new Set([id]) : new Set(all));
    let changed = true;
    while (changed) {
      changed = false;
      for (const id of order) {
        if (id === this.entry) continue;
        let next: Set<string> | undefined;
        for (const p of preds.get(id) ?? []) {
          const pd = dom.get(p) as Set<string>;
          next = next ? new Set([...next].filter((x) => pd.has(x))) : new Set(pd);
        }
        next ??= new Set();
        next.add(id);
        const cur = dom.get(id) as Set<string>;
        if (next.size !== cur.size) {
          dom.set(id, next);
          changed = true;
        }
      }
    }
    return dom;
  }
}

function listSteps(playbook: PlaybookDocument): GraphStep[] {
  if (playbook.nodes) {
    return Object.entries(playbook.nodes).map(([id, node], index) => ({
      id,
      step: { ...node, id } as Step,
      path: ["nodes", id],
      index,
    }));
  }
  return (playbook.steps ?? []).map((step, index) => ({
    id: step.id,
    step,
    path: ["steps", index],
    index,
  }));
}

function computeEdges(graph: PlaybookGraph, gs: GraphStep): Edge[] {
  const { step, id, path } = gs;
  const edges: Edge[] = [];
  const add = (to: string | undefined, kind: EdgeKind, at: PathSegment[], label?: string): void => {
    if (to === undefined) return;
    const e: Edge = { from: id, to, kind, path: at };
    if (label !== undefined) e.label = label;
    edges.push(e);
  };
  const fallThrough = (): void => {
    if (graph.mode === "steps") add(graph.following(id)?.id, "fall-through", path);
  };

  if (step.type === "end" || (step.type === "playbook" && step.mode === "handoff")) {
    // A terminal; a `next` written here is reported by the validator, not followed.
    return edges;
  }
  if (step.type === "checkpoint") {
    add(step.on_reject, "reject", [...path, "on_reject"]);
    if (step.on_timeout && step.on_timeout !== "fail" && step.on_timeout !== "cancel") {
      add(step.on_timeout, "timeout", [...path, "on_timeout"]);
    }
  }
  let decideFallsThrough = false;
  if (step.type === "decide") {
    step.rules.forEach((r, i) => {
      if (r.goto !== undefined) add(r.goto, "rule", [...path, "rules", i, "goto"], r.id);
      else decideFallsThrough = true;
    });
    if (step.fallback?.goto !== undefined)
      add(step.fallback.goto, "fallback", [...path, "fallback", "goto"]);
    else decideFallsThrough = true;
    if (!decideFallsThrough) return edges;
  }
  const next = step.next;
  if (next === undefined) {
    fallThrough();
    return edges;
  }
  if (typeof next === "string") {
    add(next, "goto", [...path, "next"]);
    return edges;
  }
  let hasDefault = false;
  let hasWhen = false;
  next.forEach((b, i) => {
    const at: PathSegment[] = [...path, "next", i];
    if (b.default !== undefined) {
      hasDefault = true;
      add(b.default, "default", [...at, "default"]);
    } else if (b.when !== undefined) {
      hasWhen = true;
      add(b.goto, "when", [...at, "goto"]);
    } else if (b.condition !== undefined) {
      add(b.goto, "condition", [...at, "goto"], b.label ?? b.goto);
    }
  });
  // `when` branches with no default continue with the following step when none is true.
  if (hasWhen && !hasDefault) fallThrough();
  return edges;
}
