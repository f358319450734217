import type { FileReport } from "../rules/validate.js";
import type { PlaybookSummary } from "./completion.js";

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A playbook's id, name and the inputs and outputs it declares, as it is written. */
export function summaryOf(report: FileReport, file: string): PlaybookSummary | undefined {
  const value: unknown = report.playbook ?? report.doc?.value;
  if (!isMap(value) || typeof value.id !== "string") return undefined;
  const out: PlaybookSummary = {
    id: value.id,
    file,
    inputs: isMap(value.inputs) ? Object.keys(value.inputs) : [],
    outputs: isMap(value.outputs) ? Object.keys(value.outputs) : [],
  };
  if (typeof value.name === "string") out.name = value.name;
  if (typeof value.description === "string") out.description = value.description;
  // A dialect's converted document may place its id in another file: keep only our own.
  const span = report.doc?.span(["id"]);
  if (span && !span.file) out.idSpan = span;
  return out;
}
