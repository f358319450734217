import { graphOf, type PlaybookGraph } from "../format/graph.js";
import type { PlaybookDocument } from "../format/types.js";
import { idsOnCycles } from "../util/cycle.js";
import type { Frame, StepResult } from "./state.js";

/**
 * Bounds on what a run keeps, whatever the number of steps its playbook has: the state lives in a
 * comment of at most 65,536 characters, beside the rest of the status comment.
 */

/** Results a frame keeps one by one; beyond these, results no step can need again are folded. */
export const MAX_KEPT_RESULTS = 64;
/** Findings a run keeps: a finding already kept is updated, a new one beyond these is not kept. */
export const MAX_FINDINGS = 100;
/** Outputs a step keeps (values are capped one by one). */
export const MAX_OUTPUTS_PER_STEP = 50;

/** How a folded step ended, one character per step in the graph's order; `-`: not folded. */
const FOLDED_MARK: Record<"completed" | "skipped" | "failed" | "ignored", string> = {
  completed: "c",
  skipped: "s",
  failed: "f",
  ignored: "i",
};
const FOLDED_STATUS: Record<string, StepResult["status"]> = {
  c: "completed",
  s: "skipped",
  f: "failed",
  i: "ignored",
};

/**
 * What folding must respect in a playbook: which steps read a step's outputs
 * (`steps.<id>.outputs`, looked for in every string of the reader: a mention in prose only keeps
 * more), which outputs the playbook's own `outputs` read at the end, and which steps lie on a
 * cycle (entered again, they need their attempt count, which keys their effects).
 */
interface Keep {
  readers: Map<string, Set<string>>;
  readAtEnd: Set<string>;
  again: Set<string>;
}
const keeps = new WeakMap<PlaybookDocument, Keep>();
const OUTPUTS_READ = /steps\.([A-Za-z0-9_-]+)\.outputs/g;

function keepOf(playbook: PlaybookDocument, graph: PlaybookGraph): Keep {
  let keep = keeps.get(playbook);
  if (!keep) {
    const readers = new Map<string, Set<string>>();
    for (const s of graph.steps)
      for (const m of JSON.stringify(s.step).matchAll(OUTPUTS_READ)) {
        const read = m[1] as string;
        if (!readers.has(read)) readers.set(read, new Set());
        readers.get(read)?.add(s.id);
      }
    const readAtEnd = new Set<string>();
    for (const m of JSON.stringify(playbook.outputs ?? {}).matchAll(OUTPUTS_READ))
      readAtEnd.add(m[1] as string);
    const again = idsOnCycles(
      graph.steps.map((s) => s.id),
      (id) => graph.successors(id).map((e) => e.to),
    );
    keep = { readers, readAtEnd, again };
    keeps.set(playbook, keep);
  }
  return keep;
}

/**
 * Fold the oldest results a frame no longer needs one by one, once it keeps more than
 * `MAX_KEPT_RESULTS`: a folded step leaves only how it ended (one character in `frame.folded`),
 * which the status comment still shows. A step that is current (in the frame or a lane), still
 * running, or on a cycle is never folded, nor one whose outputs a step that has not ended yet (or
 * could run again, or the playbook's outputs) will read.
 */
export function foldResults(frame: Frame, playbook: PlaybookDocument): void {
  const ids = Object.keys(frame.results);
  if (ids.length <= MAX_KEPT_RESULTS) return;
  const graph = graphOf(playbook);
  const keep = keepOf(playbook, graph);
  const current = new Set<string>();
  if (frame.current) current.add(frame.current);
  for (const lane of Object.values(frame.lanes ?? {})) if (lane.current) current.add(lane.current);
  const ended = (id: string) => {
    const status = stepStatus(frame, graph, id);
    return status !== undefined && status !== "running" && !current.has(id);
  };
  const stillRead = (id: string) =>
    keep.readAtEnd.has(id) ||
    [...(keep.readers.get(id) ?? [])].some(
      (reader) => reader !== id && (!ended(reader) || keep.again.has(reader)),
    );
  const foldable = ids
    .filter((id) => graph.byId.has(id) && ended(id) && !keep.again.has(id) && !stillRead(id))
    .sort(
      (a, b) => Date.parse(frame.results[a]?.at ?? "") - Date.parse(frame.results[b]?.at ?? ""),
    );
  const marks = (frame.folded ?? "").padEnd(graph.steps.length, "-").split("");
  let excess = ids.length - MAX_KEPT_RESULTS;
  for (const id of foldable) {
    if (excess-- <= 0) break;
    const r = frame.results[id] as StepResult;
    marks[(graph.byId.get(id) as { index: number }).index] =
      FOLDED_MARK[r.status as keyof typeof FOLDED_MARK];
    delete frame.results[id];
    delete frame.attempts[id];
  }
  frame.folded = marks.join("");
}

/** How a step ended, whether its result is kept or folded; undefined if it has not ended. */
export function stepStatus(
  frame: Frame,
  graph: PlaybookGraph,
  id: string,
): StepResult["status"] | undefined {
  const kept = frame.results[id];
  if (kept) return kept.status;
  if (!frame.folded) return undefined;
  const s = graph.byId.get(id);
  return s ? FOLDED_STATUS[frame.folded[s.index] ?? "-"] : undefined;
}
