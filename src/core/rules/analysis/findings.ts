import { memoised, type DocumentContext } from "../context.js";

/** Every finding key some step of this playbook expects. */
export const expectedFindings = memoised((ctx: DocumentContext): Set<string> => {
  const out = new Set<string>();
  for (const s of ctx.graph.steps) {
    const step = s.step;
    if (step.type === "investigate" || step.type === "ai")
      for (const f of step.expected_findings ?? []) out.add(f);
  }
  return out;
});
