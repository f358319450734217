import type { Edge, GraphStep } from "../../format/graph.js";
import { formatPath, type PathSegment } from "../../format/source.js";
import type { Branch } from "../../format/types.js";
import { callsOf } from "../../steps/registry.js";
import { didYouMean } from "../../util/suggest.js";
import { locate, memoised, type DocumentContext } from "../context.js";
import type { Finding } from "../rule.js";

/** Whether the playbook has exactly one of steps: and nodes: (steps-and-nodes reports the rest). */
export function hasOneStepForm(ctx: DocumentContext): boolean {
  return Boolean(ctx.playbook.steps) !== Boolean(ctx.playbook.nodes);
}

/** Steps reachable from the entry. */
export const reachableSteps = memoised((ctx: DocumentContext) => ctx.graph.reachable());

/** Dominators of every reachable step: the steps on every path from the entry to it. */
export const dominatorsOf = memoised((ctx: DocumentContext) => ctx.graph.dominators());

/** The reachable steps that end the run. */
export const reachableTerminals = memoised((ctx: DocumentContext) =>
  [...reachableSteps(ctx)].filter((id) => ctx.graph.isTerminal(id)),
);

/** Whether the entry names a step, so that paths from it mean something. */
export function entryResolves(ctx: DocumentContext): boolean {
  return ctx.graph.entry !== undefined && ctx.graph.byId.has(ctx.graph.entry);
}

/** Whether some step delegates: a delegated child's findings are visible to the parent. */
export const delegates = memoised((ctx: DocumentContext) =>
  ctx.graph.steps.some((s) => callsOf(s.step).some((c) => c.kind === "delegate")),
);

/** One branch of a step's `next:` list, with the kinds of branch it is written as. */
export interface WrittenBranch {
  branch: Branch;
  index: number;
  path: PathSegment[];
  /** Which of when:, condition: and default: it has; a sound branch has exactly one. */
  kinds: string[];
}

/** A step whose `next:` is a list of branches. */
export interface BranchingStep {
  step: GraphStep;
  branches: WrittenBranch[];
  /** Among the sound branches: */
  hasWhen: boolean;
  hasCondition: boolean;
  hasDefault: boolean;
}

/** The steps with a list of branches, in order. */
export const branchingSteps = memoised((ctx: DocumentContext): BranchingStep[] => {
  const out: BranchingStep[] = [];
  for (const s of ctx.graph.steps) {
    const next = s.step.next;
    if (!Array.isArray(next)) continue;
    const entry: BranchingStep = {
      step: s,
      branches: [],
      hasWhen: false,
      hasCondition: false,
      hasDefault: false,
    };
    next.forEach((branch, index) => {
      const kinds = ["when", "condition", "default"].filter(
        (k) => (branch as Record<string, unknown>)[k] !== undefined,
      );
      entry.branches.push({ branch, index, path: [...s.path, "next", index], kinds });
      if (kinds.length !== 1) return;
      if (branch.default !== undefined) entry.hasDefault = true;
      else if (branch.when !== undefined) entry.hasWhen = true;
      else entry.hasCondition = true;
    });
    out.push(entry);
  }
  return out;
});

/** A way the graph names a next step that is not there. */
export type MissingTarget =
  /** An edge to an id no step has. */
  | { kind: "edge"; step: GraphStep; edge: Edge }
  /** A when: or condition: branch without goto:. */
  | { kind: "branch-without-goto"; step: GraphStep; branch: WrittenBranch }
  /** when: branches of a node with no default: for when none is true. */
  | { kind: "no-default"; step: GraphStep };

/** Every missing target, step by step: each is an error, and "no terminal" would only repeat it. */
export const missingTargets = memoised((ctx: DocumentContext): MissingTarget[] => {
  const { graph } = ctx;
  const branching = new Map(branchingSteps(ctx).map((b) => [b.step, b]));
  const out: MissingTarget[] = [];
  for (const s of graph.steps) {
    for (const edge of graph.successors(s.id)) {
      if (edge.kind !== "fall-through" && !graph.byId.has(edge.to))
        out.push({ kind: "edge", step: s, edge });
    }
    const b = branching.get(s);
    if (!b) continue;
    for (const branch of b.branches) {
      const { when, condition, goto } = branch.branch;
      if (branch.kinds.length === 1 && (when ?? condition) !== undefined && goto === undefined)
        out.push({ kind: "branch-without-goto", step: s, branch });
    }
    if (graph.mode === "nodes" && b.hasWhen && !b.hasDefault)
      out.push({ kind: "no-default", step: s });
  }
  return out;
});

/** An edge to a step that does not exist, as a finding of `code` (goto-unresolved, checkpoint-target). */
export function missingEdgeFinding<Code extends string>(
  ctx: DocumentContext,
  edge: Edge,
  code: Code,
): Finding<Code> {
  const guess = didYouMean(
    edge.to,
    ctx.graph.steps.map((s) => s.id),
  );
  return {
    rule: code,
    ...locate(ctx.doc, edge.path),
    message: `${formatPath(edge.path)}: '${edge.to}' names no step${guess ? ` — did you mean '${guess}'?` : ""}`,
    found: `'${edge.to}'`,
    expected: "the id of a step in this playbook",
    hint: guess ? `write '${guess}'` : "name an existing step, or add the step",
  };
}

/** Whether an edge is a checkpoint's on_reject or on_timeout. */
export function isCheckpointEdge(edge: Edge): boolean {
  return edge.kind === "reject" || edge.kind === "timeout";
}
