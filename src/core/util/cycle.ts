/**
 * A cycle among `ids` through `edges`, as the ids along it (the first repeated at the end), or
 * undefined. Edges to ids outside the set are not followed.
 */
export function cycleAmong(
  ids: readonly string[],
  edges: (id: string) => readonly string[],
): string[] | undefined {
  const known = new Set(ids);
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (id: string): string[] | undefined => {
    state.set(id, "open");
    stack.push(id);
    for (const to of edges(id)) {
      if (!known.has(to)) continue;
      if (state.get(to) === "open") return [...stack.slice(stack.indexOf(to)), to];
      if (!state.has(to)) {
        const found = visit(to);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(id, "done");
    return undefined;
  };
  for (const id of ids) {
    if (state.has(id)) continue;
    const found = visit(id);
    if (found) return found;
  }
  return undefined;
}
