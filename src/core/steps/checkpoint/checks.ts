import { compileResponseSchema } from "../../format/response-schema.js";
import { diagnosticAt } from "../../rules/context.js";
import type { FileRule, Finding } from "../../rules/rule.js";

/** A checkpoint's response_schema is a JSON Schema of an object: the k=v values of /approve. */
export const responseSchema: FileRule<"response-schema"> = {
  code: "response-schema",
  layer: "templates",
  severity: "error",
  summary: "a checkpoint's response_schema is not a valid JSON Schema",
  check({ doc, graph }) {
    const out: Finding<"response-schema">[] = [];
    for (const s of graph.steps) {
      if (s.step.type !== "checkpoint" || s.step.response_schema === undefined) continue;
      const at = [...s.path, "response_schema"];
      const schema = s.step.response_schema;
      if (schema.type !== undefined && schema.type !== "object") {
        out.push(
          diagnosticAt(
            doc,
            "response-schema",
            at,
            "a response_schema describes the k=v values of /approve, so its type must be object",
            "write type: object with properties:",
          ),
        );
        continue;
      }
      const compiled = compileResponseSchema(schema);
      if (!compiled.ok)
        out.push(
          diagnosticAt(
            doc,
            "response-schema",
            at,
            `not a valid JSON Schema: ${compiled.error}`,
            "fix the schema (draft 2020-12)",
          ),
        );
    }
    return out;
  },
};
