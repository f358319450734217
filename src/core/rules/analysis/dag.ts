import type { GraphStep, PlaybookGraph, StepList } from "../../format/graph.js";
import { memoised, type DocumentContext } from "../context.js";

/** The lists that run by `needs:` (a step in them has needs). */
export const needsLists = memoised((ctx: DocumentContext): StepList[] =>
  [...ctx.graph.lists.values()].filter((l) => l.dag),
);

/** The needs of a step that name another step of its own list, once each. */
export function validNeeds(graph: PlaybookGraph, s: GraphStep): string[] {
  const out: string[] = [];
  for (const need of s.step.needs ?? []) {
    if (need === s.id || out.includes(need)) continue;
    if (graph.byId.get(need)?.list === s.list) out.push(need);
  }
  return out;
}

/**
 * The cycles of a needs: list, each as the ids around it (first id repeated at the end), found once.
 */
export const needsCycles = memoised((ctx: DocumentContext): string[][] => {
  const { graph } = ctx;
  const cycles: string[][] = [];
  for (const list of needsLists(ctx)) {
    const state = new Map<string, 1 | 2>();
    const trail: string[] = [];
    const visit = (id: string): void => {
      state.set(id, 1);
      trail.push(id);
      const s = graph.byId.get(id);
      for (const need of s ? validNeeds(graph, s) : []) {
        const seen = state.get(need);
        if (seen === 1) cycles.push([...trail.slice(trail.indexOf(need)), need]);
        else if (seen === undefined) visit(need);
      }
      trail.pop();
      state.set(id, 2);
    };
    for (const id of list.ids) if (!state.has(id)) visit(id);
  }
  return cycles;
});

/** The step of `list` that holds `id`: the step itself, or the parallel step it is inside. */
export function memberOf(graph: PlaybookGraph, list: StepList, id: string): string | undefined {
  if (list.ids.includes(id)) return id;
  return graph.enclosing(id).find((p) => list.ids.includes(p.parallel))?.parallel;
}
