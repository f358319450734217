import { PlaybookGraph, branchListKey, stepTitle, type Edge, type GraphStep } from "./graph.js";
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
  const graph = new PlaybookGraph(playbook);
  const lines = ["flowchart TD"];
  // Steps of a branch are drawn in a subgraph named by the branch, then the branches' join node.
  const drawList = (key: string, indent: string): void => {
    for (const id of graph.lists.get(key)?.ids ?? []) {
      const s = graph.byId.get(id);
      if (!s || s.list !== key) continue;
      lines.push(`${indent}${shape(s)}`);
      if (s.step.type !== "parallel") continue;
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
  const edge = (from: string, to: string, text?: string): void => {
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
  if (options.done?.length) {
    lines.push("  classDef done fill:#dafbe1,stroke:#1a7f37");
    lines.push(
      `  class ${options.done
        .filter((id) => graph.byId.has(id))
        .map(nodeId)
        .join(",")} done`,
    );
  }
  const running = (options.running ?? []).filter(
    (id) => graph.byId.has(id) && id !== options.current,
  );
  if (running.length) {
    lines.push("  classDef running fill:#ddf4ff,stroke:#0969da,stroke-width:2px");
    lines.push(`  class ${running.map(nodeId).join(",")} running`);
  }
  if (options.current && graph.byId.has(options.current)) {
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
