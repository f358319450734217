import { toolScopeRefusal } from "../../steps/ai/tool-scope.js";
import { diagnosticAt } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

const GUIDANCE =
  "offer only tools that read, or set scope: write (which needs an approval before the step)";

/**
 * A read-only `ai` step offers the model only tools that read. Where a tool's name says it runs
 * commands or changes something, that is known here; a configured tool's descriptor is checked
 * again when the step runs.
 */
export const aiToolScope: FileRule<"ai-tool-scope"> = {
  code: "ai-tool-scope",
  layer: "templates",
  severity: "error",
  summary: "a read-only ai step offers the model a tool that can write or run commands",
  guidance: GUIDANCE,
  check({ doc, graph }) {
    const out: Finding<"ai-tool-scope">[] = [];
    for (const s of graph.steps) {
      const step = s.step;
      if (step.type !== "ai" || step.scope === "write") continue;
      step.tools?.forEach((tool, i) => {
        const why = toolScopeRefusal(tool, "read-only", undefined);
        if (why === undefined) return;
        out.push(
          diagnosticAt(
            doc,
            "ai-tool-scope",
            [...s.path, "tools", i],
            `${tool} may change things (${why}), but the step's scope is read-only`,
            GUIDANCE,
            { found: tool },
          ),
        );
      });
    }
    return out;
  },
};
