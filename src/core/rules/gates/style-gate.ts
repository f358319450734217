import type { DiagnosticInput } from "../../format/diagnostics.js";
import { formatPath } from "../../format/source.js";
import { stepTitle } from "../../format/graph.js";
import type { GateContext } from "./context.js";

/** Warnings about style: nothing here stops a run, all of it makes playbooks easier to keep. */
export function styleGate(ctx: GateContext): DiagnosticInput[] {
  const { doc, playbook, graph } = ctx;
  const out: DiagnosticInput[] = [];
  const text = JSON.stringify({ ...playbook, inputs: undefined });
  const defaults = JSON.stringify(Object.values(playbook.inputs ?? {}).map((i) => i.default));
  for (const name of Object.keys(playbook.inputs ?? {})) {
    const escaped = name.replace(/[-]/g, "\\-");
    const used = new RegExp(`inputs\\.${escaped}(?![A-Za-z0-9_-])|\\$\\{\\s*${escaped}\\s*\\}`);
    if (!used.test(text) && !used.test(defaults)) {
      const at = ["inputs", name];
      out.push({
        rule: "input-unused",
        path: formatPath(at),
        span: doc.span(at, true),
        message: `${formatPath(at)}: input '${name}' is declared but never used`,
        hint: `use it as {{ inputs.${name} }}, or remove it`,
      });
    }
  }
  for (const s of graph.steps) {
    if (stepTitle(s.step) === s.id && s.step.description === undefined) {
      const at = graph.mode === "nodes" ? s.path : [...s.path, "id"];
      out.push({
        rule: "step-no-description",
        path: formatPath(s.path),
        span: doc.span(at, graph.mode === "nodes"),
        message:
          s.step.type === "branch"
            ? `${formatPath(s.path)}: step '${s.id}' has no description (a branch step's name is the branch it makes)`
            : `${formatPath(s.path)}: step '${s.id}' has neither name nor description`,
        hint: "add a description: people read it in the status comment while the step is current",
      });
    }
  }
  return out;
}
