import { diagnosticAt } from "../../rules/context.js";
import type { FileRule, Finding } from "../../rules/rule.js";

/**
 * A script's text is never templated (a value from an issue must not become shell syntax), so
 * `{{ … }}` in it would reach the shell as written: say so, and show the way values get in.
 */
export const scriptTemplated: FileRule<"script-templated"> = {
  code: "script-templated",
  layer: "templates",
  severity: "warning",
  summary: "a script's text holds a template, which is never filled in",
  check({ doc, graph }) {
    const out: Finding<"script-templated">[] = [];
    for (const s of graph.steps) {
      if (s.step.type !== "script" || !/\$\{\{|\{\{/.test(s.step.run)) continue;
      out.push(
        diagnosticAt(
          doc,
          "script-templated",
          [...s.path, "run"],
          "the script's text is passed to the shell as written: '{{ … }}' is not filled in there",
          'pass values as environment variables: env: { PACKAGE: "{{ inputs.package }}" }, then use "$PACKAGE"',
        ),
      );
    }
    return out;
  },
};
