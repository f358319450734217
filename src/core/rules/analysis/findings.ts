import { memoised, type DocumentContext } from "../context.js";
import { expectedFindingsOf } from "../../steps/registry.js";

/** Every finding key some step of this playbook expects. */
export const expectedFindings = memoised((ctx: DocumentContext): Set<string> => {
  const out = new Set<string>();
  for (const s of ctx.graph.steps) for (const f of expectedFindingsOf(s.step)) out.add(f);
  return out;
});
