import { ID_PATTERN } from "../../format/schema.js";
import type { SourceDocument } from "../../format/source.js";
import type { PlaybookDocument } from "../../format/types.js";
import type { Finding } from "../rule.js";
import { passesSchema } from "../schema/json-schema.js";

/** A playbook the later layers can check, and which of its steps stand in for failing ones. */
export interface BeyondSchema {
  playbook: PlaybookDocument;
  /** Indexes of the top-level steps set aside for a schema error (each replaced by a stand-in). */
  setAside: number[];
  /**
   * Whether a finding lies inside a step set aside: it is about the stand-in, unless it is about
   * the id or plain `next` the stand-in kept of the step as written.
   */
  isSetAside(finding: { path: string }): boolean;
}

const STEP_AT = /^steps\[(\d+)\](?=$|[.[])/;
const ID = new RegExp(ID_PATTERN);

/**
 * The document as the layers after the schema may check it. Passing the schema, it is the
 * document itself. Failing it only inside top-level steps, each failing step is set aside: a
 * stand-in with its id and plain `next` keeps the other steps' references and templates
 * checkable, while the rules over the graph's edges wait (the stand-in's edges are not the step's).
 * Anything else (a document that is no mapping, errors outside the steps) stops here.
 */
export function beyondSchema(
  doc: SourceDocument,
  findings: readonly Finding<string>[],
): BeyondSchema | undefined {
  const value = doc.value as Record<string, unknown> | null;
  if (findings.length === 0)
    return {
      playbook: value as unknown as PlaybookDocument,
      setAside: [],
      isSetAside: () => false,
    };
  const steps = value && typeof value === "object" ? value.steps : undefined;
  if (!Array.isArray(steps)) return undefined;
  const failing = new Set<number>();
  for (const f of findings) {
    const at = STEP_AT.exec(f.path);
    if (!at) return undefined;
    failing.add(Number(at[1]));
  }
  const repaired = {
    ...value,
    steps: steps.map((s: unknown, i) => (failing.has(i) ? standIn(s, i) : s)),
  };
  if (!passesSchema(repaired)) return undefined;
  const setAside = [...failing].sort((a, b) => a - b);
  // The steps whose stand-in kept their `next` as written.
  const kept = new Set(setAside.filter((i) => "next" in (repaired.steps[i] as object)));
  return {
    playbook: repaired as PlaybookDocument,
    setAside,
    isSetAside: (finding) => {
      const at = STEP_AT.exec(finding.path);
      if (at === null || !failing.has(Number(at[1]))) return false;
      const field = finding.path.slice(at[0].length);
      return !(field === ".id" || (field === ".next" && kept.has(Number(at[1]))));
    },
  };
}

/** A step that keeps what others may name of a failing one: its id and its plain `next`. */
function standIn(step: unknown, index: number): Record<string, unknown> {
  const fields = step && typeof step === "object" ? (step as Record<string, unknown>) : {};
  const id = typeof fields.id === "string" && ID.test(fields.id) ? fields.id : `step-${index + 1}`;
  const next = fields.next;
  return {
    id,
    type: "comment",
    body: "",
    ...(typeof next === "string" && ID.test(next) ? { next } : {}),
  };
}
