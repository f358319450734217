import { formatPath, type PathSegment } from "../../format/source.js";
import { locate } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/** Step ids are unique; in nodes mode the key is the id and an explicit id must agree. Rule ids of a decide step are unique too. */
export const stepDuplicateId: FileRule<"step-duplicate-id"> = {
  code: "step-duplicate-id",
  layer: "graph",
  severity: "error",
  summary: "two steps share an id",
  requires: "one-step-form",
  check({ doc, playbook, graph }) {
    const out: Finding<"step-duplicate-id">[] = [];
    for (const s of graph.steps) {
      const at: PathSegment[] = [...s.path, "id"];
      const writtenId = graph.mode === "nodes" ? playbook.nodes?.[s.id]?.id : undefined;
      if (writtenId !== undefined && writtenId !== s.id) {
        out.push({
          rule: "step-duplicate-id",
          ...locate(doc, at),
          message: `${formatPath(at)}: id '${writtenId}' differs from the node's key '${s.id}'`,
          hint: "remove the id field; in a nodes map the key is the id",
        });
      }
      const first = graph.byId.get(s.id);
      if (first && first !== s) {
        const p = doc.span([...first.path, "id"]);
        out.push({
          rule: "step-duplicate-id",
          ...locate(doc, at),
          message: `${formatPath(at)}: step id '${s.id}' is already used at line ${p.line}`,
          found: `'${s.id}'`,
          hint: "give every step its own id",
        });
      }
    }
    for (const s of graph.steps) {
      if (s.step.type !== "decide") continue;
      const seen = new Map<string, number>();
      s.step.rules.forEach((rule, i) => {
        const at: PathSegment[] = [...s.path, "rules", i, "id"];
        const dup = seen.get(rule.id);
        if (dup === undefined) seen.set(rule.id, i);
        else
          out.push({
            rule: "step-duplicate-id",
            ...locate(doc, at),
            message: `${formatPath(at)}: rule id '${rule.id}' is already used by rules[${dup}]`,
            hint: "give every rule its own id",
          });
      });
    }
    return out;
  },
};
