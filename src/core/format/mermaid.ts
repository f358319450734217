import {
  branchListKey,
  graphOf,
  heldListNames,
  holdsStepLists,
  stepTitle,
  type Edge,
  type GraphStep,
} from "./graph.js";
import type { PlaybookDocument } from "./types.js";
import { endsPlaybook, playbooksOf, stepKind } from "../steps/registry.js";

/** An id in the characters a Mermaid node id may hold: letters, digits and `_`. */
function slug(id: string): string {
  return id.replace(/[^A-Za-z0-9_]/g, "_").slice(0, 64);
}

/**
 * Node ids for one chart. Each thing drawn (a step, a join, a branch, another playbook) gets a
 * prefix (a step called `end` would end a subgraph) and the slug of its id, then a number when an
 * earlier thing took that name: `a-b` and `a_b` slug alike, and two steps must never become one
 * node. Steps are named first, in document order, so a step's node id does not depend on which
 * part of the chart is drawn.
 */
class NodeIds {
  private readonly taken = new Set<string>(["more"]);
  private readonly byKey = new Map<string, string>();

  private claim(key: string, preferred: string): string {
    const known = this.byKey.get(key);
    if (known !== undefined) return known;
    let id = preferred;
    for (let n = 2; this.taken.has(id); n++) id = `${preferred}_${n}`;
    this.taken.add(id);
    this.byKey.set(key, id);
    return id;
  }

  step(id: string): string {
    return this.claim(`step\0${id}`, `s_${slug(id)}`);
  }

  /** The join node of a parallel step: where its branches meet. */
  join(parallel: string): string {
    return this.claim(`join\0${parallel}`, `j_${slug(parallel)}`);
  }

  /** The end a parallel step that ends the playbook goes on to. */
  joinEnd(parallel: string): string {
    return this.claim(`join-end\0${parallel}`, `${this.join(parallel)}_end`);
  }

  branch(parallel: string, branch: string): string {
    return this.claim(
      `branch\0${parallel}\0${branch}`,
      `${this.step(parallel)}__s_${slug(branch)}`,
    );
  }

  /** Another playbook, which a handoff goes to. */
  playbook(id: string): string {
    return this.claim(`playbook\0${id}`, `pb_s_${slug(id)}`);
  }
}

/** Label text: no quotes, brackets or markup that Mermaid (or GitHub's renderer) would read. */
function label(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const cut = flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
  // `%` too: `%%` starts a comment or, with `{`, a directive that reconfigures the chart.
  return cut.replace(/[<>"`{}[\]|#%]/g, (c) => `#${c.charCodeAt(0)};`);
}

function shape(s: GraphStep, ids: NodeIds): string {
  const text = label(stepTitle(s.step));
  const id = ids.step(s.id);
  // A for_each step runs once per item: its kind says so.
  const kind = label(s.step.for_each !== undefined ? `${s.step.type} · for each` : s.step.type);
  const node = stepKind(s.step.type)?.diagramNode ?? { open: '["', close: '"]' };
  const caption = node.caption ? node.caption(s.step) : undefined;
  const words = caption === undefined ? kind : caption?.map(label).join(" ");
  // A step named as its kind (`id: branch`, `type: branch`) says it once, not "branch / branch".
  const under = words === undefined || words === text ? "" : `<br/>${words}`;
  return `${id}${node.open}${text}${under}${node.close}`;
}

export interface MermaidOptions {
  /** Step to mark as current (the status comment marks where a run stands). */
  current?: string;
  /** Steps already done. */
  done?: readonly string[];
  /** Steps running beside the current one (branches, items, steps of a needs: list). */
  running?: readonly string[];
  /** Draw only these steps (a neighbourhood), each edge leaving them to one "more" node. */
  only?: ReadonlySet<string>;
}

/** Mermaid refuses a chart with more edges than this (and one over 50,000 characters). */
export const MERMAID_MAX_EDGES = 500;

/**
 * The steps nearest `center`, following edges both ways, at most `max` of them: what a
 * flowchart too big to draw whole shows around where a run stands.
 */
export function neighbourhood(
  playbook: PlaybookDocument,
  center: string,
  max: number,
): Set<string> {
  const graph = graphOf(playbook);
  const near = new Map<string, Set<string>>();
  const link = (a: string, b: string) => {
    if (!near.has(a)) near.set(a, new Set());
    near.get(a)?.add(b);
  };
  for (const s of graph.steps)
    for (const e of graph.resolvedSuccessors(s.id)) {
      link(e.from, e.to);
      link(e.to, e.from);
    }
  const start = graph.byId.has(center) ? center : (graph.steps[0]?.id ?? "");
  const seen = new Set<string>(start ? [start] : []);
  const queue = [...seen];
  while (queue.length > 0 && seen.size < max) {
    const id = queue.shift() as string;
    // File order first: the steps written next to it are the ones people look for.
    const next = [...(near.get(id) ?? [])].filter((n) => !seen.has(n) && graph.byId.has(n));
    for (const n of next) {
      if (seen.size >= max) break;
      seen.add(n);
      queue.push(n);
    }
  }
  return seen;
}

/** What a parallel step's join waits for, as its node says it. */
function joinText(s: GraphStep): string {
  const step = s.step;
  if (step.type !== "parallel") return "join";
  const join = step.join ?? "all";
  return `join ${typeof join === "object" ? `${join.count} of ${Object.keys(step.branches).length}` : join}`;
}

/** A flowchart of the playbook: steps, branches with their conditions, handoffs, delegation. */
export function renderMermaid(playbook: PlaybookDocument, options: MermaidOptions = {}): string {
  const graph = graphOf(playbook);
  const ids = new NodeIds();
  for (const s of graph.steps) ids.step(s.id);
  // Joins next, so they are named the same whether the whole chart is drawn or a part of it.
  for (const s of graph.steps)
    if (holdsStepLists(s.step)) {
      ids.join(s.id);
      ids.joinEnd(s.id);
    }
  const nodeId = (id: string): string => ids.step(id);
  const lines = ["flowchart TD"];
  // Steps of a branch are drawn in a subgraph named by the branch, then the branches' join node.
  const only = options.only;
  const shown = (id: string): boolean => !only || only.has(id);
  const drawList = (key: string, indent: string): void => {
    for (const id of graph.lists.get(key)?.ids ?? []) {
      const s = graph.byId.get(id);
      if (!s || s.list !== key) continue;
      if (shown(id)) lines.push(`${indent}${shape(s, ids)}`);
      if (!holdsStepLists(s.step)) continue;
      if (!shown(id)) {
        for (const branch of heldListNames(s.step)) drawList(branchListKey(id, branch), indent);
        continue;
      }
      for (const branch of heldListNames(s.step)) {
        lines.push(`${indent}subgraph ${ids.branch(id, branch)} ["${label(branch)}"]`);
        drawList(branchListKey(id, branch), `${indent}  `);
        lines.push(`${indent}end`);
      }
      lines.push(`${indent}${ids.join(id)}(("${label(joinText(s))}"))`);
    }
  };
  drawList("", "  ");
  const drawn = new Set<string>();
  let more = false;
  const holds = (id: string): boolean => {
    const step = graph.byId.get(id)?.step;
    return step !== undefined && holdsStepLists(step);
  };
  const onlyNodes = new Set(
    [...(only ?? [])].flatMap((id) =>
      holds(id) ? [nodeId(id), ids.join(id), ids.joinEnd(id)] : [nodeId(id)],
    ),
  );
  const edge = (from: string, to: string, text?: string): void => {
    if (only) {
      // An edge that leaves the neighbourhood ends at the one node that stands for the rest.
      if (!onlyNodes.has(from)) return;
      if (!onlyNodes.has(to)) {
        to = "more";
        text = undefined;
        more = true;
      }
    }
    const line = text ? `  ${from} -->|"${label(text)}"| ${to}` : `  ${from} --> ${to}`;
    if (drawn.has(line)) return;
    drawn.add(line);
    lines.push(line);
  };
  for (const s of graph.steps) {
    const parallel = holdsStepLists(s.step);
    const joinOf = graph.branchOf(s.id)?.parallel;
    for (const e of graph.resolvedSuccessors(s.id)) {
      // A branch's end meets at its join (drawn below); a parallel step goes on from its join.
      if (e.kind === "join") continue;
      const from = parallel && e.kind !== "fork" ? ids.join(s.id) : nodeId(e.from);
      edge(from, nodeId(e.to), edgeText(s, e));
    }
    if (joinOf !== undefined && graph.leaves.has(s.id))
      edge(parallel ? ids.join(s.id) : nodeId(s.id), ids.join(joinOf));
    // A parallel step that ends the playbook still joins its branches.
    if (!shown(s.id)) continue;
    if (parallel && graph.resolvedSuccessors(s.id).every((e) => e.kind === "fork"))
      lines.push(`  ${ids.join(s.id)} --> ${ids.joinEnd(s.id)}(["end"])`);
    // A step that ends the playbook by handing off points at the playbooks it hands off to.
    if (endsPlaybook(s.step))
      for (const target of playbooksOf(s.step)) {
        const ext = ids.playbook(target);
        lines.push(`  ${ext}>"${label(target)}"]`, `  ${nodeId(s.id)} -.->|handoff| ${ext}`);
      }
  }
  if (more) lines.push(`  more[["… ${graph.steps.length - (only?.size ?? 0)} more steps"]]`);
  lines.push(...stateClasses(options, (id) => graph.byId.has(id) && shown(id), nodeId));
  return lines.join("\n") + "\n";
}

/** The class lines that colour the steps done, running and current (those `shown` only). */
function stateClasses(
  options: MermaidOptions,
  shown: (id: string) => boolean,
  nodeId: (id: string) => string,
): string[] {
  const lines: string[] = [];
  const done = (options.done ?? []).filter(shown);
  if (done.length) {
    lines.push("  classDef done fill:#dafbe1,stroke:#1a7f37");
    lines.push(`  class ${done.map(nodeId).join(",")} done`);
  }
  const running = (options.running ?? []).filter((id) => id !== options.current && shown(id));
  if (running.length) {
    lines.push("  classDef running fill:#ddf4ff,stroke:#0969da,stroke-width:2px");
    lines.push(`  class ${running.map(nodeId).join(",")} running`);
  }
  if (options.current && shown(options.current)) {
    lines.push("  classDef current fill:#fff8c5,stroke:#9a6700,stroke-width:3px");
    lines.push(`  class ${nodeId(options.current)} current`);
  }
  return lines;
}

/** The text on an edge: a condition, a rule, or what kind of edge it is. */
function edgeText(s: GraphStep, e: Edge): string | undefined {
  if (e.kind === "when")
    return (s.step.next as { when?: string }[])[e.path[e.path.length - 2] as number]?.when;
  if (e.kind === "condition")
    return (s.step.next as { condition?: string }[])[e.path[e.path.length - 2] as number]
      ?.condition;
  if (e.kind === "rule") return e.label;
  if (e.kind === "fork") return e.label;
  if (e.kind === "needs") return undefined;
  if (e.kind === "error") return e.label ? `on ${e.label}` : "on error";
  return e.kind !== "fall-through" && e.kind !== "goto" ? e.kind : undefined;
}
