import { PlaybookGraph, stepTitle, type GraphStep } from "./graph.js";
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

function shape(s: GraphStep): string {
  const text = label(stepTitle(s.step));
  const id = nodeId(s.id);
  const kind = label(s.step.type);
  switch (s.step.type) {
    case "end":
      return `${id}(["${text}"])`;
    case "decide":
      return `${id}{"${text}"}`;
    case "checkpoint":
      return `${id}{{"${text}<br/>${kind}"}}`;
    case "playbook":
      return `${id}[["${text}<br/>${s.step.mode} ${label(s.step.playbook)}"]]`;
    default:
      return `${id}["${text}<br/>${kind}"]`;
  }
}

export interface MermaidOptions {
  /** Step to mark as current (the status comment marks where a run stands). */
  current?: string;
  /** Steps already done. */
  done?: readonly string[];
}

/** A flowchart of the playbook: steps, branches with their conditions, handoffs, delegation. */
export function renderMermaid(playbook: PlaybookDocument, options: MermaidOptions = {}): string {
  const graph = new PlaybookGraph(playbook);
  const lines = ["flowchart TD"];
  for (const s of graph.steps) lines.push(`  ${shape(s)}`);
  for (const s of graph.steps) {
    for (const e of graph.resolvedSuccessors(s.id)) {
      const from = nodeId(e.from);
      const to = nodeId(e.to);
      let text: string | undefined;
      if (e.kind === "when")
        text = (s.step.next as { when?: string }[])[e.path[e.path.length - 2] as number]?.when;
      else if (e.kind === "condition")
        text = (s.step.next as { condition?: string }[])[e.path[e.path.length - 2] as number]
          ?.condition;
      else if (e.kind === "rule") text = e.label;
      else if (e.kind !== "fall-through" && e.kind !== "goto") text = e.kind;
      lines.push(text ? `  ${from} -->|"${label(text)}"| ${to}` : `  ${from} --> ${to}`);
    }
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
  if (options.current && graph.byId.has(options.current)) {
    lines.push("  classDef current fill:#fff8c5,stroke:#9a6700,stroke-width:3px");
    lines.push(`  class ${nodeId(options.current)} current`);
  }
  return lines.join("\n") + "\n";
}
