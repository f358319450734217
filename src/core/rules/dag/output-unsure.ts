import type { PlaybookGraph } from "../../format/graph.js";
import { formatPath } from "../../format/source.js";
import { memberOf, needsLists } from "../analysis/dag.js";
import { dominatorsOf } from "../analysis/graph.js";
import { references } from "../analysis/references.js";
import { locate, type DocumentContext } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/** Why a step's output may be missing where a template uses it, with the fix; undefined if it is there. */
function whyUnsure(
  ctx: DocumentContext,
  graph: PlaybookGraph,
  user: string,
  target: string,
): { why: string; hint: string } | undefined {
  const outer = graph.enclosing(user);
  // A sibling branch: both steps sit in branches of one parallel step, in different branches.
  for (const place of graph.enclosing(target)) {
    const mine = outer.find((p) => p.parallel === place.parallel);
    if (mine && mine.branch !== place.branch)
      return {
        why: `'${target}' runs in branch '${place.branch}' of '${place.parallel}', beside branch '${mine.branch}' where this step runs, so it may not have run yet`,
        hint: `use its output after '${place.parallel}' (with join: all), or move both steps into one branch`,
      };
  }
  // After a join that does not wait for every branch (or lets branches fail).
  const dominators = dominatorsOf(ctx).get(user);
  for (const place of graph.enclosing(target)) {
    if (outer.some((p) => p.parallel === place.parallel) || !dominators?.has(place.parallel))
      continue;
    const step = graph.byId.get(place.parallel)?.step;
    if (step?.type !== "parallel") continue;
    const join = step.join ?? "all";
    const branches = Object.keys(step.branches).length;
    const partial = join === "any" || (typeof join === "object" && join.count < branches);
    if (partial || step.on_branch_failure === "continue") {
      const said = partial
        ? `goes on after ${join === "any" ? "any one branch" : `${(join as { count: number }).count} branches`}`
        : "goes on when branches fail (on_branch_failure: continue)";
      return {
        why: `'${place.parallel}' ${said}, so branch '${place.branch}' (with '${target}') may have been cancelled or failed`,
        hint: `use join: all with on_branch_failure: fail, or read '${place.parallel}' outputs (completed, first) instead`,
      };
    }
  }
  // Steps of one needs: list: the output is there only when the step is among the needs.
  for (const list of needsLists(ctx)) {
    const a = memberOf(graph, list, user);
    const b = memberOf(graph, list, target);
    if (a === undefined || b === undefined || a === b) continue;
    if (!graph.transitiveNeeds(a).has(b))
      return {
        why: `'${b}' is not among the needs of '${a}' (nor their needs), so it may not have run yet`,
        hint: `add '${b}' to the needs: of '${a}'`,
      };
  }
  return undefined;
}

/** A template uses outputs only of steps that have surely run, side by side included. */
export const outputUnsure: FileRule<"output-unsure"> = {
  code: "output-unsure",
  layer: "templates",
  severity: "error",
  summary: "a template uses an output of a step that may not have run (a branch, a join, needs:)",
  requires: "sound-graph",
  check(ctx) {
    const out: Finding<"output-unsure">[] = [];
    for (const { resolution, scope, at, raw } of references(ctx)) {
      if (resolution.kind !== "step-output" || scope.stepId === undefined) continue;
      if (resolution.target.id === scope.stepId) continue;
      const unsure = whyUnsure(ctx, ctx.graph, scope.stepId, resolution.target.id);
      if (!unsure) continue;
      out.push({
        rule: "output-unsure",
        ...locate(ctx.doc, at),
        message: `${formatPath(at)}: '${raw}' is used in step '${scope.stepId}', but ${unsure.why}`,
        hint: unsure.hint,
      });
    }
    return out;
  },
};
