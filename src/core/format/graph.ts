import type { PathSegment } from "./source.js";
import type { PlaybookDocument, Step } from "./types.js";
import type { StepExitKind } from "../steps/kind-schema.js";
import { stepKindSchemaOf } from "../steps/schemas.js";

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
  /** Ways out a step kind's own fields write (a decide's rules, a checkpoint's `on_reject`). */
  | StepExitKind
  /** A `parallel` step to the first step of each branch (label: the branch). */
  | "fork"
  /** The end of a branch to what follows its `parallel` step (label: the branch). */
  | "join"
  /** A step named in `needs:` to the step that needs it. */
  | "needs"
  /** A step to the step its `on_error: goto:<step>` goes on at when it fails. */
  | "error";

/** Which steps dominate a step (have surely run before it); undefined for unreachable steps. */
export interface Dominators {
  get(id: string): { has(other: string): boolean; ids(): string[] } | undefined;
}

export interface Edge {
  from: string;
  to: string;
  kind: EdgeKind;
  /** Branch label (`/choose <label>`), rule id, or the branch of a fork or join. */
  label?: string;
  /** Where the edge is written, for diagnostics. */
  path: PathSegment[];
}

/** Where a step is written in a `parallel` step: the step and the branch. */
export interface BranchPlace {
  parallel: string;
  branch: string;
}

export interface GraphStep {
  id: string;
  step: Step;
  /** Path of the step in the document: ["steps", 3], ["nodes", "pod_state"], or inside a branch. */
  path: PathSegment[];
  /** Position in the listing (steps order, or nodes key order; a branch's steps follow their step). */
  index: number;
  /** The key of the list the step is written in (see `StepList`). */
  list: string;
  /** Position in that list. */
  position: number;
}

/**
 * A list of steps: the playbook's own (`""`), or a branch of a `parallel` step
 * (`<parallel id>/<branch>`). A list in which some step has `needs:` runs as a graph (`dag`):
 * each step starts once its needs are met, and nothing falls through.
 */
export interface StepList {
  key: string;
  ids: string[];
  dag: boolean;
  branch?: BranchPlace;
  path: PathSegment[];
}

/** The key of a branch's list. */
export function branchListKey(parallel: string, branch: string): string {
  return `${parallel}/${branch}`;
}

/**
 * A step's title for people: its `name`, else its id. A kind whose `name` means something else
 * (a branch step's is the branch it makes) is called by its id.
 */
export function stepTitle(step: Step): string {
  return stepKindSchemaOf(step.type)?.graph?.nameIsNotTitle !== undefined
    ? step.id
    : (step.name ?? step.id);
}

/** A list of steps a step holds (a parallel step's branch): its field, its name, its steps. */
interface HeldList {
  field: string;
  name: string;
  steps: Step[];
}

/** The lists of steps a step holds by name (a parallel step's branches), as written. */
function heldLists(step: Step): HeldList[] {
  const field = stepKindSchemaOf(step.type)?.graph?.stepLists;
  if (field === undefined) return [];
  const lists = (step as unknown as Record<string, unknown>)[field];
  if (!lists || typeof lists !== "object") return [];
  return Object.entries(lists as Record<string, unknown>).flatMap(([name, steps]) =>
    Array.isArray(steps) ? [{ field, name, steps: steps as Step[] }] : [],
  );
}

/** The names of the lists of steps a step holds (a parallel step's branches), as written. */
export function heldListNames(step: Step): string[] {
  return heldLists(step).map((l) => l.name);
}

/** Whether a step holds lists of steps run inside it (a parallel step). */
export function holdsStepLists(step: Step): boolean {
  return stepKindSchemaOf(step.type)?.graph?.stepLists !== undefined;
}

export class PlaybookGraph {
  readonly steps: GraphStep[];
  readonly byId = new Map<string, GraphStep>();
  readonly entry: string | undefined;
  readonly mode: "steps" | "nodes";
  /** Every list of steps, by key: the playbook's own first, then each branch. */
  readonly lists = new Map<string, StepList>();
  /** Steps after which their list ends (the last of a branch, the steps nothing needs). */
  readonly leaves = new Set<string>();
  private readonly edges = new Map<string, Edge[]>();

  constructor(readonly playbook: PlaybookDocument) {
    this.mode = playbook.nodes ? "nodes" : "steps";
    this.steps = listSteps(playbook, this.lists);
    for (const s of this.steps) if (!this.byId.has(s.id)) this.byId.set(s.id, s);
    this.entry = this.mode === "nodes" ? playbook.entrypoint : this.steps[0]?.id;
    for (const s of this.steps) this.edges.set(s.id, computeEdges(this, s, this.leaves));
    addNeedsEdges(this, this.edges);
    addJoinEdges(this, this.edges, this.leaves);
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

  /**
   * The step after `id` in its list, for fall-through: none at the end of a list, in the nodes of
   * a graph, or in a list that runs by `needs:`.
   */
  following(id: string): GraphStep | undefined {
    const s = this.byId.get(id);
    if (!s) return undefined;
    const list = this.lists.get(s.list);
    if (!list || list.dag || (s.list === "" && this.mode === "nodes")) return undefined;
    const next = list.ids[s.position + 1];
    return next === undefined ? undefined : this.byId.get(next);
  }

  /** The list a step is written in. */
  listOf(id: string): StepList | undefined {
    const s = this.byId.get(id);
    return s ? this.lists.get(s.list) : undefined;
  }

  /** The `parallel` step and branch a step is written in, directly. */
  branchOf(id: string): BranchPlace | undefined {
    return this.listOf(id)?.branch;
  }

  /** The `parallel` steps around a step, innermost first. */
  enclosing(id: string): BranchPlace[] {
    const out: BranchPlace[] = [];
    for (let place = this.branchOf(id); place; place = this.branchOf(place.parallel)) {
      if (out.some((p) => p.parallel === place?.parallel)) break;
      out.push(place);
    }
    return out;
  }

  /** Every step written inside a `parallel` step's branches (nested ones too), or one branch. */
  inside(parallel: string, branch?: string): Set<string> {
    const out = new Set<string>();
    for (const s of this.steps) {
      if (s.id === parallel) continue;
      const place = this.enclosing(s.id).find((p) => p.parallel === parallel);
      if (place && (branch === undefined || place.branch === branch)) out.add(s.id);
    }
    return out;
  }

  /** Steps of a graph list with no `needs:` of their own in that list: they start with it. */
  roots(list: StepList): string[] {
    return list.ids.filter((id) => !(this.byId.get(id)?.step.needs ?? []).length);
  }

  /** Steps of a graph list that need `id`, directly or through others. */
  dependents(id: string): Set<string> {
    const list = this.listOf(id);
    const out = new Set<string>();
    if (!list?.dag) return out;
    const stack = [id];
    while (stack.length > 0) {
      const cur = stack.pop() as string;
      for (const other of list.ids) {
        if (out.has(other)) continue;
        if ((this.byId.get(other)?.step.needs ?? []).includes(cur)) {
          out.add(other);
          stack.push(other);
        }
      }
    }
    return out;
  }

  /** The steps `id` needs, directly or through others (in its graph list). */
  transitiveNeeds(id: string): Set<string> {
    const out = new Set<string>();
    const stack = [...(this.byId.get(id)?.step.needs ?? [])];
    while (stack.length > 0) {
      const cur = stack.pop() as string;
      if (out.has(cur) || !this.byId.has(cur)) continue;
      out.add(cur);
      stack.push(...(this.byId.get(cur)?.step.needs ?? []));
    }
    return out;
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
      // Entering a graph list starts every step of it that needs nothing.
      const list = this.listOf(id);
      if (list?.dag) stack.push(...this.roots(list));
    }
    return seen;
  }

  /** A cycle among reachable steps, as a list of ids, or undefined (`needs:` cycles are apart). */
  findCycle(): string[] | undefined {
    const state = new Map<string, 1 | 2>();
    const trail: string[] = [];
    const visit = (id: string): string[] | undefined => {
      state.set(id, 1);
      trail.push(id);
      for (const e of this.resolvedSuccessors(id)) {
        if (e.kind === "needs") continue;
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
   *
   * Steps that run side by side are counted as run before one another here (a sibling branch's
   * steps, the steps of a graph list that do not need this one), and every step inside a
   * `parallel` step as run after it: whether they really have is the `dag-output-unsure` rule's
   * question, which says why in their own terms.
   */
  dominators(): Dominators {
    const sideBySide =
      this.steps.some((s) => holdsStepLists(s.step)) || [...this.lists.values()].some((l) => l.dag);
    if (!sideBySide) return this.dominatorTree();
    const sets = this.dominatorSets();
    return {
      get: (id) => {
        const set = sets.get(id);
        return set && { has: (other) => set.has(other), ids: () => [...set] };
      },
    };
  }

  /**
   * Dominators where every step runs alone (no parallel step, no graph list): the dominator
   * tree by Cooper, Harvey and Kennedy's method, in time near-linear in the playbook, asked by
   * the intervals of a walk over the tree.
   */
  private dominatorTree(): Dominators {
    const entry = this.entry;
    if (!entry || !this.byId.has(entry)) return { get: () => undefined };
    // Reverse postorder from the entry.
    const order: string[] = [];
    const seen = new Set<string>([entry]);
    const stack: [string, Edge[], number][] = [[entry, this.resolvedSuccessors(entry), 0]];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as [string, Edge[], number];
      const next = top[1][top[2]++];
      if (next === undefined) {
        order.push(top[0]);
        stack.pop();
      } else if (!seen.has(next.to) && this.byId.has(next.to)) {
        seen.add(next.to);
        stack.push([next.to, this.resolvedSuccessors(next.to), 0]);
      }
    }
    order.reverse();
    const rank = new Map(order.map((id, i) => [id, i]));
    const preds = new Map<string, string[]>(order.map((id) => [id, []]));
    for (const id of order)
      for (const e of this.resolvedSuccessors(id)) if (rank.has(e.to)) preds.get(e.to)?.push(id);
    const idom = new Map<string, string>([[entry, entry]]);
    const meet = (a: string, b: string): string => {
      while (a !== b) {
        while ((rank.get(a) as number) > (rank.get(b) as number)) a = idom.get(a) as string;
        while ((rank.get(b) as number) > (rank.get(a) as number)) b = idom.get(b) as string;
      }
      return a;
    };
    for (let changed = true; changed;) {
      changed = false;
      for (const id of order) {
        if (id === entry) continue;
        let d: string | undefined;
        for (const p of preds.get(id) ?? []) if (idom.has(p)) d = d === undefined ? p : meet(p, d);
        if (d !== undefined && idom.get(id) !== d) {
          idom.set(id, d);
          changed = true;
        }
      }
    }
    // Intervals of a walk over the tree: a dominates b when b's interval lies within a's.
    const children = new Map<string, string[]>();
    for (const [id, d] of idom) if (id !== d) children.set(d, [...(children.get(d) ?? []), id]);
    const span = new Map<string, [number, number]>();
    let clock = 0;
    const walk: [string, number][] = [[entry, 0]];
    while (walk.length > 0) {
      const top = walk[walk.length - 1] as [string, number];
      if (top[1] === 0) span.set(top[0], [clock++, 0]);
      const kids = children.get(top[0]) ?? [];
      const kid = kids[top[1]++];
      if (kid === undefined) {
        (span.get(top[0]) as [number, number])[1] = clock++;
        walk.pop();
      } else walk.push([kid, 0]);
    }
    return {
      get: (id) => {
        const own = span.get(id);
        if (!own) return undefined;
        return {
          has: (other) => {
            const o = span.get(other);
            return o !== undefined && o[0] <= own[0] && own[1] <= o[1];
          },
          ids: () => {
            const chain = [id];
            for (
              let d = idom.get(id) as string;
              d !== chain[chain.length - 1];
              d = idom.get(d) as string
            )
              chain.push(d);
            return chain;
          },
        };
      },
    };
  }

  /** Dominators as sets, for playbooks whose steps may run side by side (see `dominators`). */
  dominatorSets(): Map<string, Set<string>> {
    const reach = this.reachable();
    const order = this.steps.map((s) => s.id).filter((id) => reach.has(id));
    const preds = new Map<string, string[]>(order.map((id) => [id, []]));
    for (const id of order)
      for (const e of this.resolvedSuccessors(id))
        if (e.kind !== "fork" && e.kind !== "join" && e.kind !== "needs") preds.get(e.to)?.push(id);
    const all = new Set(order);
    const dom = new Map<string, Set<string>>();
    for (const id of order) dom.set(id, id === this.entry ? new Set([id]) : new Set(all));
    const insideOf = new Map<string, Set<string>>();
    const holds = (id: string): boolean => {
      const step = this.byId.get(id)?.step;
      return step !== undefined && holdsStepLists(step);
    };
    const inside = (p: string): Set<string> => {
      let set = insideOf.get(p);
      if (!set) insideOf.set(p, (set = this.inside(p)));
      return set;
    };
    const out = (p: string): Set<string> => {
      const d = dom.get(p) as Set<string>;
      return holds(p) ? new Set([...d, ...inside(p)]) : d;
    };
    /** What every step of a list has run after: the list's host and, for a branch, the others. */
    const base = (list: StepList | undefined): Set<string> => {
      if (!list?.branch) return new Set();
      const host = dom.get(list.branch.parallel) ?? new Set<string>();
      const own = this.inside(list.branch.parallel, list.branch.branch);
      return new Set([...host, ...[...inside(list.branch.parallel)].filter((x) => !own.has(x))]);
    };
    let changed = true;
    while (changed) {
      changed = false;
      for (const id of order) {
        if (id === this.entry && !this.listOf(id)?.dag) continue;
        const list = this.listOf(id);
        let next: Set<string>;
        if (list?.dag) {
          const later = this.dependents(id);
          const members = list.ids.flatMap((m) =>
            later.has(m) || m === id ? [] : [m, ...(holds(m) ? inside(m) : [])],
          );
          next = new Set([...base(list), ...members.filter((m) => all.has(m))]);
        } else {
          const ps = preds.get(id) ?? [];
          const head = list && list.ids[0] === id && list.branch !== undefined;
          let acc: Set<string> | undefined = head ? base(list) : undefined;
          for (const p of ps) {
            const pd = out(p);
            acc = acc && !head ? new Set([...acc].filter((x) => pd.has(x))) : (acc ?? new Set(pd));
          }
          next = acc ?? new Set();
        }
        next.add(id);
        const cur = dom.get(id) as Set<string>;
        if (next.size !== cur.size || [...next].some((x) => !cur.has(x))) {
          dom.set(id, next);
          changed = true;
        }
      }
    }
    return dom;
  }
}

function listSteps(playbook: PlaybookDocument, lists: Map<string, StepList>): GraphStep[] {
  const out: GraphStep[] = [];
  const walk = (
    entries: [string, Step][],
    key: string,
    at: PathSegment[],
    keyed: boolean,
    branch?: BranchPlace,
  ): void => {
    const list: StepList = {
      key,
      ids: [],
      // A nodes graph orders its steps with next: alone (needs: there is refused by validation).
      dag: !keyed && entries.some(([, s]) => (s.needs ?? []).length > 0),
      path: at,
    };
    if (branch) list.branch = branch;
    if (!lists.has(key)) lists.set(key, list);
    entries.forEach(([id, step], position) => {
      const path: PathSegment[] = [...at, keyed ? id : position];
      list.ids.push(id);
      out.push({ id, step, path, index: out.length, list: key, position });
      for (const { field, name, steps } of heldLists(step))
        walk(
          steps.map((st) => [st.id, st]),
          branchListKey(id, name),
          [...path, field, name],
          false,
          { parallel: id, branch: name },
        );
    });
  };
  if (playbook.nodes) {
    walk(
      Object.entries(playbook.nodes).map(([id, node]) => [id, { ...node, id } as Step]),
      "",
      ["nodes"],
      true,
    );
  } else {
    walk(
      (playbook.steps ?? []).map((st) => [st.id, st]),
      "",
      ["steps"],
      false,
    );
  }
  return out;
}

/** A step in a graph list is followed by the steps that need it. */
function addNeedsEdges(graph: PlaybookGraph, edges: Map<string, Edge[]>): void {
  for (const s of graph.steps) {
    (s.step.needs ?? []).forEach((need, i) => {
      const from = edges.get(need);
      // A need on itself, named twice or in another list is the needs-unknown rule's finding.
      if (!from || need === s.id || graph.listOf(need)?.key !== s.list) return;
      if (from.some((e) => e.kind === "needs" && e.to === s.id)) return;
      from.push({ from: need, to: s.id, kind: "needs", path: [...s.path, "needs", i] });
    });
  }
}

/**
 * The step that ends a branch (its last, or one that leaves it by falling through) joins what
 * follows the `parallel` step; a branch that ends a graph list ends with the steps nothing needs.
 */
function addJoinEdges(graph: PlaybookGraph, edges: Map<string, Edge[]>, leaves: Set<string>): void {
  const after = (parallel: string, seen: Set<string>): string[] => {
    if (seen.has(parallel)) return [];
    seen.add(parallel);
    const own = (edges.get(parallel) ?? []).filter((e) => e.kind !== "fork").map((e) => e.to);
    const place = graph.branchOf(parallel);
    return leaves.has(parallel) && place ? [...own, ...after(place.parallel, seen)] : own;
  };
  for (const s of graph.steps) {
    const list = graph.lists.get(s.list);
    if (!list?.dag) continue;
    const needed = list.ids.some((id) => (graph.byId.get(id)?.step.needs ?? []).includes(s.id));
    if (!needed && !isTerminalKind(s.step)) leaves.add(s.id);
  }
  for (const id of leaves) {
    const s = graph.byId.get(id);
    const place = s ? graph.lists.get(s.list)?.branch : undefined;
    if (!s || !place) continue;
    for (const to of [...new Set(after(place.parallel, new Set()))])
      edges.get(id)?.push({ from: id, to, kind: "join", label: place.branch, path: s.path });
  }
}

/** `on_error: goto:<step>`, as one policy or per error code. */
function addErrorEdges(
  step: Step,
  path: PathSegment[],
  add: (to: string | undefined, kind: EdgeKind, at: PathSegment[], label?: string) => void,
): void {
  const policy = step.on_error;
  const target = (p: unknown) =>
    typeof p === "string" && p.startsWith("goto:") ? p.slice(5) : undefined;
  if (typeof policy === "string") add(target(policy), "error", [...path, "on_error"]);
  else if (policy && typeof policy === "object")
    for (const [code, p] of Object.entries(policy))
      add(target(p), "error", [...path, "on_error", code], code === "default" ? undefined : code);
}

function isTerminalKind(step: Step): boolean {
  return stepKindSchemaOf(step.type)?.graph?.terminal?.(step) === true;
}

function computeEdges(graph: PlaybookGraph, gs: GraphStep, leaves: Set<string>): Edge[] {
  const { step, id, path } = gs;
  const edges: Edge[] = [];
  const add = (to: string | undefined, kind: EdgeKind, at: PathSegment[], label?: string): void => {
    if (to === undefined) return;
    const e: Edge = { from: id, to, kind, path: at };
    if (label !== undefined) e.label = label;
    edges.push(e);
  };
  const fallThrough = (): void => {
    const after = graph.following(id);
    if (after) add(after.id, "fall-through", path);
    else if (graph.mode === "steps" || gs.list !== "") leaves.add(id);
  };

  if (isTerminalKind(step)) {
    // A terminal; a `next` written here is reported by the validator, not followed. One with
    // an `if:` that is false is skipped, and the run goes on to the step after it.
    if (step.if !== undefined) fallThrough();
    return edges;
  }
  for (const { field, name, steps } of heldLists(step))
    if (steps[0]) add(steps[0].id, "fork", [...path, field, name, 0], name);
  addErrorEdges(step, path, add);
  // A step of a graph list goes on to the steps that need it (added with the others), never by
  // `next` or falling through.
  if (graph.lists.get(gs.list)?.dag) return edges;
  const own = stepKindSchemaOf(step.type)?.graph?.exits?.(step);
  for (const exit of own?.exits ?? []) add(exit.to, exit.kind, [...path, ...exit.at], exit.label);
  // Every way on is one of the step's own exits: `next` and falling through do not apply.
  if (own && !own.goesOn) return edges;
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

const graphs = new WeakMap<PlaybookDocument, PlaybookGraph>();

/** The graph of a playbook, built once per playbook object (the engine and renderers ask often). */
export function graphOf(playbook: PlaybookDocument): PlaybookGraph {
  let g = graphs.get(playbook);
  if (!g) {
    g = new PlaybookGraph(playbook);
    graphs.set(playbook, g);
  }
  return g;
}
