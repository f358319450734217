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

/**
 * The ids that lie on some cycle through `edges` (Tarjan's strongly connected components, without
 * recursion so that a long chain cannot overflow the stack): those that can be reached again
 * from themselves. Edges to ids outside the set are not followed.
 */
export function idsOnCycles(
  ids: readonly string[],
  edges: (id: string) => readonly string[],
): Set<string> {
  const known = new Set(ids);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out = new Set<string>();
  let counter = 0;
  for (const root of ids) {
    if (index.has(root)) continue;
    const work: { id: string; next: readonly string[]; at: number }[] = [];
    const open = (id: string) => {
      index.set(id, counter);
      low.set(id, counter++);
      stack.push(id);
      onStack.add(id);
      work.push({ id, next: edges(id).filter((to) => known.has(to)), at: 0 });
    };
    open(root);
    while (work.length > 0) {
      const top = work[work.length - 1] as (typeof work)[number];
      if (top.at < top.next.length) {
        const to = top.next[top.at++] as string;
        if (to === top.id) out.add(to);
        if (!index.has(to)) open(to);
        else if (onStack.has(to))
          low.set(top.id, Math.min(low.get(top.id) as number, index.get(to) as number));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent)
        low.set(parent.id, Math.min(low.get(parent.id) as number, low.get(top.id) as number));
      if (low.get(top.id) !== index.get(top.id)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== top.id);
      if (component.length > 1) for (const id of component) out.add(id);
    }
  }
  return out;
}
