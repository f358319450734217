import { compileContractSchema } from "../../format/response-schema.js";
import { diagnosticAt } from "../context.js";
import type { FileRule, Finding } from "../rule.js";

/** A step's input_schema and output_schema are JSON Schemas the engine can check data with. */
export const contractSchema: FileRule<"contract-schema"> = {
  code: "contract-schema",
  layer: "templates",
  severity: "error",
  summary: "a step's input_schema or output_schema is not a valid JSON Schema",
  check({ doc, graph }) {
    const out: Finding<"contract-schema">[] = [];
    for (const s of graph.steps) {
      for (const field of ["input_schema", "output_schema"] as const) {
        const schema = s.step[field];
        if (schema === undefined) continue;
        const compiled = compileContractSchema(schema);
        if (compiled.ok) continue;
        out.push(
          diagnosticAt(
            doc,
            "contract-schema",
            [...s.path, field],
            `not a valid JSON Schema: ${compiled.error}`,
            "fix the schema (JSON Schema draft 2020-12); unknown keywords are refused",
          ),
        );
      }
    }
    return out;
  },
};
