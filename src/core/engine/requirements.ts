import type { PlaybookBundle } from "../steps/types.js";
import { PlaybookGraph } from "../format/graph.js";
import { playbooksOf } from "../steps/registry.js";

/** What the host a run would start on has: secrets by name, tools as server/tool. */
export interface HostCapabilities {
  /** Where the run would start, in the message: "this app", "this machine", "this workflow". */
  where: string;
  hasSecret(name: string): boolean;
  hasTool(name: string): boolean;
  /** How to provide a missing secret or tool here. */
  howToProvide: { secret: string; tool: string };
}

export interface UnmetRequirement {
  kind: "secret" | "tool";
  name: string;
  /** The playbook that requires it (the one started, or one it delegates or hands off to). */
  playbook: string;
}

/** Playbooks one run may enter: the one started and those it delegates or hands off to. */
function reachable(
  root: PlaybookBundle,
  lookup: (id: string) => PlaybookBundle | undefined,
): PlaybookBundle[] {
  const seen = new Map<string, PlaybookBundle>([[root.playbook.id, root]]);
  const queue = [root];
  while (queue.length > 0 && seen.size < 100) {
    const b = queue.shift() as PlaybookBundle;
    for (const s of new PlaybookGraph(b.playbook).steps) {
      for (const id of playbooksOf(s.step)) {
        const next = lookup(id);
        if (next && !seen.has(id)) {
          seen.set(id, next);
          queue.push(next);
        }
      }
    }
  }
  return [...seen.values()];
}

/**
 * The secrets and tools a run's playbooks require (`requires:`) that the host does not have:
 * checked before a run starts, so it stops with a clear error instead of failing halfway.
 */
export function unmetRequirements(
  root: PlaybookBundle,
  lookup: (id: string) => PlaybookBundle | undefined,
  host: HostCapabilities,
): UnmetRequirement[] {
  const out: UnmetRequirement[] = [];
  for (const b of reachable(root, lookup)) {
    const requires = b.playbook.requires;
    for (const name of requires?.secrets ?? [])
      if (!host.hasSecret(name)) out.push({ kind: "secret", name, playbook: b.playbook.id });
    for (const name of requires?.tools ?? [])
      if (!host.hasTool(name)) out.push({ kind: "tool", name, playbook: b.playbook.id });
  }
  return out;
}

/** One line per unmet requirement, saying where it is required and how to provide it. */
export function describeUnmet(
  unmet: readonly UnmetRequirement[],
  host: HostCapabilities,
): string[] {
  return unmet.map(
    (u) =>
      `${u.playbook} requires the ${u.kind} ${u.name}, which ${host.where} does not have: ${u.kind === "secret" ? host.howToProvide.secret : host.howToProvide.tool}`,
  );
}
