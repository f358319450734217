import { PlaybookGraph } from "../../format/graph.js";
import type { PathSegment, SourceDocument } from "../../format/source.js";
import type { PlaybookDocument } from "../../format/types.js";
import { callsOf, endsPlaybook, playbooksOf } from "../../steps/registry.js";
import { diagnosticAt, memoised, type Finding, type Memo } from "../context.js";

/** A set rule's finding: the diagnostic and the playbook it is written in. */
export interface SetFinding<Code extends string> {
  doc: SourceDocument;
  d: Finding<Code>;
}

export const DEFAULT_MAX_DEPTH = 10;

/** One playbook of the set being validated. */
export interface SetMember {
  doc: SourceDocument;
  playbook: PlaybookDocument;
  /**
   * What the checks across files read of it, when taken while its document was at hand (then
   * `doc` and `playbook` may be loaded again on demand: see `validateSet`'s `retain`).
   */
  facts?: PlaybookFacts;
}

/** A call a playbook makes, where its step names it. */
export interface PlaybookCall {
  target: string;
  kind: "delegate" | "handoff";
  path: PathSegment[];
  with?: Record<string, unknown>;
}

/**
 * What the checks across files need of a playbook, and no more: a set of a thousand files keeps
 * these rather than a thousand playbooks (whose strings hold on to the text they were read from).
 */
export interface PlaybookFacts {
  id: string;
  inputs: NonNullable<PlaybookDocument["inputs"]>;
  maxDepth: number | undefined;
  /** Its calls, in step order. */
  calls: PlaybookCall[];
  /** Whether a way it ends does not hand off: a delegate to it comes back. */
  returns: boolean;
}

/** The facts of a playbook, read from it and its graph (the one its file rules walked, when given). */
export function playbookFacts(
  playbook: PlaybookDocument,
  graph = new PlaybookGraph(playbook),
): PlaybookFacts {
  const calls: PlaybookCall[] = [];
  for (const s of graph.steps)
    for (const { target, kind, at, with: inputs } of callsOf(s.step)) {
      const call: PlaybookCall = { target, kind, path: [...s.path, ...at] };
      if (inputs) call.with = inputs;
      calls.push(call);
    }
  return {
    id: playbook.id,
    inputs: playbook.inputs ?? {},
    maxDepth: playbook.limits?.max_depth,
    calls,
    returns: [...graph.reachable()].some((id) => {
      const st = graph.byId.get(id)?.step;
      // A step that ends the playbook and names playbooks to go on with hands off: it never returns.
      const handsOff = st !== undefined && endsPlaybook(st) && playbooksOf(st).length > 0;
      return graph.isTerminal(id) && !handsOff;
    }),
  };
}

const factsCache = new WeakMap<object, PlaybookFacts>();

/** A member's facts (or a known playbook's): taken when it was read, or now from its playbook. */
export function factsOf(m: SetMember | KnownPlaybook): PlaybookFacts {
  if ("facts" in m && m.facts) return m.facts;
  let facts = factsCache.get(m);
  if (!facts) factsCache.set(m, (facts = playbookFacts(m.playbook)));
  return facts;
}

/** What the set rules need to know of a playbook outside the set (e.g. the bundled library). */
export interface KnownPlaybook {
  id: string;
  playbook: PlaybookDocument;
  /** A system playbook: nearer tiers may not define its id. */
  locked?: boolean;
}

/** What every set rule sees: the set's playbooks that passed the schema, and the known ones. */
export interface SetContext extends Memo {
  readonly members: readonly SetMember[];
  readonly known: readonly KnownPlaybook[];
}

/** A finding in one member, at a path of its document. */
export function setFinding<Code extends string>(
  member: SetMember,
  rule: Code,
  at: readonly PathSegment[],
  message: string,
  hint: string,
): SetFinding<Code> {
  return { doc: member.doc, d: diagnosticAt(member.doc, rule, at, message, hint) };
}

/** The first member of each id (set-duplicate-id reports the others). */
export const membersById = memoised((set: SetContext): Map<string, SetMember> => {
  const byId = new Map<string, SetMember>();
  for (const m of set.members) if (!byId.has(factsOf(m).id)) byId.set(factsOf(m).id, m);
  return byId;
});

/** What is known of a playbook of the set or a known one, by id. */
export function lookupPlaybook(set: SetContext, id: string): PlaybookFacts | undefined {
  const found = membersById(set).get(id) ?? set.known.find((k) => k.id === id);
  return found && factsOf(found);
}

/** Every id a target may name. */
export const targetIds = memoised((set: SetContext): string[] => [
  ...new Set([...membersById(set).keys(), ...set.known.map((k) => k.id)]),
]);

/** A member's step that hands off to or delegates to another playbook. */
export interface Call extends PlaybookCall {
  from: SetMember;
}

/** The calls of each member (the first of each id), in step order. */
export const callsById = memoised((set: SetContext): Map<string, Call[]> => {
  const out = new Map<string, Call[]>();
  for (const m of membersById(set).values()) {
    const facts = factsOf(m);
    out.set(
      facts.id,
      facts.calls.map((c) => ({ ...c, from: m })),
    );
  }
  return out;
});

/** Calls in member order whose target exists, with the target. */
export const resolvedDelegations = memoised(
  (set: SetContext): { call: Call; target: PlaybookFacts }[] => {
    const out: { call: Call; target: PlaybookFacts }[] = [];
    for (const calls of callsById(set).values())
      for (const call of calls) {
        const target = lookupPlaybook(set, call.target);
        if (target && call.kind === "delegate") out.push({ call, target });
      }
    return out;
  },
);

/**
 * Delegation is a call that returns: a cycle never ends, and depth is bounded per playbook. One
 * walk from each member finds both: the cycles (each once, at the call that closes it first) and
 * how deep the member's delegation nests.
 */
export const delegationWalk = memoised(
  (
    set: SetContext,
  ): { cycles: { call: Call; cycle: string[] }[]; depths: Map<SetMember, number> } => {
    const byId = membersById(set);
    const calls = callsById(set);
    const cycles: { call: Call; cycle: string[] }[] = [];
    const depths = new Map<SetMember, number>();
    const reported = new Set<string>();
    for (const m of byId.values()) {
      const walk = (id: string, chain: string[]): number => {
        let deepest = chain.length;
        for (const c of calls.get(id) ?? []) {
          if (c.kind !== "delegate" || !byId.has(c.target)) continue;
          if (chain.includes(c.target)) {
            const cycle = [...chain.slice(chain.indexOf(c.target)), c.target];
            const key = [...cycle].slice(0, -1).sort().join(",");
            if (!reported.has(key)) {
              reported.add(key);
              cycles.push({ call: c, cycle });
            }
            continue;
          }
          deepest = Math.max(deepest, walk(c.target, [...chain, c.target]));
        }
        return deepest;
      };
      depths.set(m, walk(factsOf(m).id, [factsOf(m).id]) - 1);
    }
    return { cycles, depths };
  },
);
