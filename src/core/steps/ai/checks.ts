import { dominatorsOf } from "../../rules/analysis/graph.js";
import { diagnosticAt } from "../../rules/context.js";
import type { FileRule, Finding } from "../../rules/rule.js";

const GUIDANCE = "add a checkpoint on every path before this step, or set authority: ask-first";

/** An ai step that may write is approved first: a checkpoint on every path to it, or ask-first. */
export const aiWriteUnapproved: FileRule<"ai-write-unapproved"> = {
  code: "ai-write-unapproved",
  layer: "templates",
  severity: "error",
  summary: "an ai step with write scope has no checkpoint or ask-first approval before it",
  guidance: GUIDANCE,
  check(ctx) {
    const { doc, graph } = ctx;
    const out: Finding<"ai-write-unapproved">[] = [];
    for (const s of graph.steps) {
      const step = s.step;
      if (step.type !== "ai" || step.scope !== "write" || step.authority === "ask-first") continue;
      const doms = dominatorsOf(ctx).get(s.id) ?? new Set<string>();
      const approved = [...doms].some(
        (id) => id !== s.id && graph.byId.get(id)?.step.type === "checkpoint",
      );
      if (!approved)
        out.push(
          diagnosticAt(
            doc,
            "ai-write-unapproved",
            [...s.path, "scope"],
            "write scope lets the model change things, but no checkpoint approves it first",
            GUIDANCE,
          ),
        );
    }
    return out;
  },
};
