import { formatPath, type PathSegment } from "../../format/source.js";
import { findsUnforeseen } from "../../steps/registry.js";
import { didYouMean } from "../../util/suggest.js";
import { expectedFindings } from "../analysis/findings.js";
import { delegates } from "../analysis/graph.js";
import { references } from "../analysis/references.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

const GUIDANCE = "list it in an investigate or ai step's expected_findings";

/**
 * Findings used in decision rules and templates should be expected by some step. A delegated
 * child's findings are visible to the parent, so with a delegate step any key may be expected;
 * so may any finding where the bot calls tools (`run: auto`).
 */
function callsTools(ctx: Parameters<FileRule["check"]>[0]): boolean {
  return ctx.graph.steps.some((s) => findsUnforeseen(s.step));
}

export const findingUnknown: FileRule<"finding-unknown"> = {
  code: "finding-unknown",
  layer: "graph",
  severity: "warning",
  summary: "a finding is used but no step expects it",
  guidance: GUIDANCE,
  requires: "one-step-form",
  check(ctx) {
    const out: Finding<"finding-unknown">[] = [];
    // A tool the bot calls may give any finding: which ones is known only from its result.
    if (delegates(ctx) || callsTools(ctx)) return out;
    const expected = expectedFindings(ctx);
    for (const s of ctx.graph.steps) {
      if (s.step.type !== "decide") continue;
      s.step.rules.forEach((r, i) => {
        for (const key of ["all", "any", "none"] as const) {
          (r[key] ?? []).forEach((f, j) => {
            if (expected.has(f)) return;
            const at: PathSegment[] = [...s.path, "rules", i, key, j];
            const guess = didYouMean(f, [...expected]);
            out.push({
              rule: "finding-unknown",
              ...locate(ctx.doc, at),
              message: `${formatPath(at)}: finding '${f}' is used here but no step expects it${guess ? ` — did you mean '${guess}'?` : ""}`,
              hint: GUIDANCE,
            });
          });
        }
      });
    }
    // Templates are read only over a sound graph, like every reference check.
    if (!ctx.graphSound()) return out;
    for (const r of references(ctx)) {
      if (r.resolution.kind !== "finding" || expected.has(r.resolution.key)) continue;
      out.push({
        rule: "finding-unknown",
        ...locate(ctx.doc, r.at),
        message: `${formatPath(r.at)}: finding '${r.resolution.key}' is used but no step expects it`,
        hint: GUIDANCE,
      });
    }
    return out;
  },
};
