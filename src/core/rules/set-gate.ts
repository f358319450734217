import type { DiagnosticInput } from "../format/diagnostics.js";
import { PlaybookGraph } from "../format/graph.js";
import { formatPath, type PathSegment, type SourceDocument } from "../format/source.js";
import type { PlaybookDocument } from "../format/types.js";
import { didYouMean } from "../util/suggest.js";

export const DEFAULT_MAX_DEPTH = 10;

export interface SetMember {
  doc: SourceDocument;
  playbook: PlaybookDocument;
}

/** What the set gate needs to know of a playbook outside the set (e.g. the bundled library). */
export interface KnownPlaybook {
  id: string;
  playbook: PlaybookDocument;
}

interface Call {
  from: SetMember;
  target: string;
  kind: "delegate" | "handoff";
  path: PathSegment[];
  with?: Record<string, unknown>;
}

/** Checks across files: ids unique, targets exist, no delegation cycles, depth within limits. */
export function setGate(
  members: SetMember[],
  known: KnownPlaybook[] = [],
): { doc: SourceDocument; d: DiagnosticInput }[] {
  const out: { doc: SourceDocument; d: DiagnosticInput }[] = [];
  const byId = new Map<string, SetMember>();
  const push = (
    m: SetMember,
    rule: DiagnosticInput["rule"],
    at: PathSegment[],
    message: string,
    hint: string,
  ): void => {
    out.push({
      doc: m.doc,
      d: {
        rule,
        path: formatPath(at),
        span: m.doc.span(at),
        message: `${formatPath(at)}: ${message}`,
        hint,
      },
    });
  };

  for (const m of members) {
    const prev = byId.get(m.playbook.id);
    if (prev) {
      push(
        m,
        "set-duplicate-id",
        ["id"],
        `playbook id '${m.playbook.id}' is also used by ${prev.doc.file}`,
        "give every playbook its own id (labels and /run find playbooks by id)",
      );
    } else byId.set(m.playbook.id, m);
  }
  const lookup = (id: string): PlaybookDocument | undefined =>
    byId.get(id)?.playbook ?? known.find((k) => k.id === id)?.playbook;
  const allIds = [...new Set([...byId.keys(), ...known.map((k) => k.id)])];

  const callsOf = new Map<string, Call[]>();
  for (const m of byId.values()) {
    const calls: Call[] = [];
    for (const s of new PlaybookGraph(m.playbook).steps) {
      const step = s.step;
      if (step.type === "end") {
        (step.handoff ?? []).forEach((t, i) =>
          calls.push({ from: m, target: t, kind: "handoff", path: [...s.path, "handoff", i] }),
        );
      } else if (step.type === "playbook") {
        const call: Call = {
          from: m,
          target: step.playbook,
          kind: step.mode,
          path: [...s.path, "playbook"],
        };
        if (step.with) call.with = step.with;
        calls.push(call);
      }
    }
    callsOf.set(m.playbook.id, calls);
  }

  for (const calls of callsOf.values()) {
    for (const c of calls) {
      const target = lookup(c.target);
      if (!target) {
        const guess = didYouMean(c.target, allIds);
        push(
          c.from,
          "set-unresolved-playbook",
          c.path,
          `no playbook has id '${c.target}'${guess ? ` — did you mean '${guess}'?` : ""}`,
          guess ? `write '${guess}'` : "add that playbook, or fix the id",
        );
        continue;
      }
      if (c.kind === "delegate") {
        const childGraph = new PlaybookGraph(target);
        const returns = [...childGraph.reachable()].some((id) => {
          const st = childGraph.byId.get(id)?.step;
          return (
            childGraph.isTerminal(id) &&
            !(st?.type === "end" && st.handoff?.length) &&
            !(st?.type === "playbook" && st.mode === "handoff")
          );
        });
        if (!returns) {
          push(
            c.from,
            "set-delegate-terminal",
            c.path,
            `'${c.target}' has no terminal that returns: every way it ends hands off`,
            `add a plain end step to '${c.target}', or use mode: handoff`,
          );
        }
        const declared = target.inputs ?? {};
        for (const key of Object.keys(c.with ?? {})) {
          if (!Object.hasOwn(declared, key)) {
            push(
              c.from,
              "set-inputs",
              [...c.path.slice(0, -1), "with", key],
              `'${c.target}' has no input '${key}'`,
              `map only its inputs: ${Object.keys(declared).join(", ") || "(none)"}`,
            );
          }
        }
        for (const [name, spec] of Object.entries(declared)) {
          if (spec.required && spec.default === undefined && !Object.hasOwn(c.with ?? {}, name)) {
            push(
              c.from,
              "set-inputs",
              c.path,
              `'${c.target}' needs the input '${name}', which is not mapped in with:`,
              `add with: { ${name}: … }`,
            );
          }
        }
      }
    }
  }

  // Delegation is a call that returns: a cycle never ends, and depth is bounded per playbook.
  const reported = new Set<string>();
  for (const m of byId.values()) {
    const maxDepth = m.playbook.limits?.max_depth ?? DEFAULT_MAX_DEPTH;
    const walk = (id: string, chain: string[]): number => {
      let deepest = chain.length;
      for (const c of callsOf.get(id) ?? []) {
        if (c.kind !== "delegate" || !byId.has(c.target)) continue;
        if (chain.includes(c.target)) {
          const cycle = [...chain.slice(chain.indexOf(c.target)), c.target];
          const key = [...cycle].slice(0, -1).sort().join(",");
          if (!reported.has(key)) {
            reported.add(key);
            push(
              c.from,
              "set-delegation-cycle",
              c.path,
              `delegation cycle: ${cycle.join(" → ")}`,
              "break the cycle, or use mode: handoff where the work does not need to come back",
            );
          }
          continue;
        }
        deepest = Math.max(deepest, walk(c.target, [...chain, c.target]));
      }
      return deepest;
    };
    const depth = walk(m.playbook.id, [m.playbook.id]) - 1;
    if (depth > maxDepth) {
      push(
        m,
        "set-depth",
        ["id"],
        `delegation from '${m.playbook.id}' nests ${depth} levels deep, more than limits.max_depth ${maxDepth}`,
        "raise limits.max_depth or flatten the delegation",
      );
    }
  }
  return out;
}
