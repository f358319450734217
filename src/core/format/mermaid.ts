import { branchListKey, graphOf, stepTitle, type Edge, type GraphStep } from "./graph.js";
import type { PlaybookDocument } from "./types.js";

/** Mermaid node ids are our step ids made safe (a step called `end` would break the chart). */
function nodeId(id: string): string {
  return `s_${id.replace(/[^A-Za-z0-9_]/g, "_")}`;
}

/** Label text: no quotes, brackets or markup that Mermaid (or GitHub's renderer) would read. */
function label(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const cut = flat.length > 60 ? `${flat.slice(0, 57)}...` : flat;
  return cut.replace(/[<>"`{}[\]|#]/g, (c) => `#${c.charCodeAt(0)};`);
}

/** The join node of a parallel step: where its branches meet. */
function joinId(parallel: string): string {
  return `j_${parallel.replace(/[^A-Za-z0-9_]/g, "_")}`;
}

function shape(s: GraphStep): string {
  const text = label(stepTitle(s.step));
  const id = nodeId(s.id);
  // A for_each step runs once per item: its kind says so.
  const kind = label(s.step.for_each !== undefined ? `${s.step.type} · for each` : s.step.type);
  switch (s.step.type) {
    case "end":
      return `${id}(["${text}"])`;
    case "decide":
      return `${id}{"${text}"}`;
    case "checkpoint":
      return `${id}{{"${text}<br/>${kind}"}}`;
    case "playbook":
      return `${id}[["${text}<br/>${s.step.mode} ${label(s.step.playbook)}"]]`;
    case "parallel":
      return `${id}[/"${text}<br/>${kind}"\\]`;
    default:
      return `${id}["${text}<br/>${kind}"]`;
  }
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
  const lines = ["flowchart TD"];
  // Steps of a branch are drawn in a subgraph named by the branch, then the branches' join node.
  const only = options.only;
  const shown = (id: string): boolean => !only || only.has(id);
  const drawList = (key: string, indent: string): void => {
    for (const id of graph.lists.get(key)?.ids ?? []) {
      const s = graph.byId.get(id);
      if (!s || s.list !== key) continue;
      if (shown(id)) lines.push(`${indent}${shape(s)}`);
      if (s.step.type !== "parallel") continue;
      if (!shown(id)) {
        for (const branch of Object.keys(s.step.branches ?? {}))
          drawList(branchListKey(id, branch), indent);
        continue;
      }
      for (const branch of Object.keys(s.step.branches ?? {})) {
        lines.push(`${indent}subgraph ${nodeId(id)}__${nodeId(branch)} ["${label(branch)}"]`);
        drawList(branchListKey(id, branch), `${indent}  `);
        lines.push(`${indent}end`);
      }
      lines.push(`${indent}${joinId(id)}(("${label(joinText(s))}"))`);
    }
  };
  drawList("", "  ");
  const drawn = new Set<string>();
  let more = false;
  const onlyNodes = new Set(
    [...(only ?? [])].flatMap((id) => [nodeId(id), joinId(id), `${joinId(id)}_end`]),
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
    const parallel = s.step.type === "parallel";
    const joinOf = graph.branchOf(s.id)?.parallel;
    for (const e of graph.resolvedSuccessors(s.id)) {
      // A branch's end meets at its join (drawn below); a parallel step goes on from its join.
      if (e.kind === "join") continue;
      const from = parallel && e.kind !== "fork" ? joinId(s.id) : nodeId(e.from);
      edge(from, nodeId(e.to), edgeText(s, e));
    }
    if (joinOf !== undefined && graph.leaves.has(s.id))
      edge(parallel ? joinId(s.id) : nodeId(s.id), joinId(joinOf));
    // A parallel step that ends the playbook still joins its branches.
    if (!shown(s.id)) continue;
    if (parallel && graph.resolvedSuccessors(s.id).every((e) => e.kind === "fork"))
      lines.push(`  ${joinId(s.id)} --> ${joinId(s.id)}_end(["end"])`);
    if (s.step.type === "end") {
      for (const target of s.step.handoff ?? []) {
        const ext = `pb_${nodeId(target)}`;
        lines.push(`  ${ext}>"${label(target)}"]`, `  ${nodeId(s.id)} -.->|handoff| ${ext}`);
      }
    }
    if (s.step.type === "playbook" && s.step.mode === "handoff") {
      const ext = `pb_${nodeId(s.step.playbook)}`;
      lines.push(`  ${ext}>"${label(s.step.playbook)}"]`, `  ${nodeId(s.id)} -.->|handoff| ${ext}`);
    }
  }
  if (more) lines.push(`  more[["… ${graph.steps.length - (only?.size ?? 0)} more steps"]]`);
  const done = (options.done ?? []).filter((id) => graph.byId.has(id) && shown(id));
  if (done.length) {
    lines.push("  classDef done fill:#dafbe1,stroke:#1a7f37");
    lines.push(`  class ${done.map(nodeId).join(",")} done`);
  }
  const running = (options.running ?? []).filter(
    (id) => graph.byId.has(id) && id !== options.current && shown(id),
  );
  if (running.length) {
    lines.push("  classDef running fill:#ddf4ff,stroke:#0969da,stroke-width:2px");
    lines.push(`  class ${running.map(nodeId).join(",")} running`);
  }
  if (options.current && graph.byId.has(options.current) && shown(options.current)) {
    lines.push("  classDef current fill:#fff8c5,stroke:#9a6700,stroke-width:3px");
    lines.push(`  class ${nodeId(options.current)} current`);
  }
  return lines.join("\n") + "\n";
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
