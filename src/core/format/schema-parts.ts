/**
 * The pieces the playbook schema is written with, shared by `schema.ts` and the step kinds'
 * fragments (`src/core/steps/<kind>/schema.ts`). It imports only `schema-docs.ts`, so that a
 * fragment can use it without reaching the schema that is built from the fragments.
 */
import { documented, documentedEnum, texts, type Doc, type Json } from "./schema-docs.js";

export const PERMISSIONS = ["read", "triage", "write", "maintain", "admin"] as const;

export const ref = (name: string): Json => ({ $ref: `#/definitions/${name}` });
/** A reference with a doc of its own: what this place means, beside what the definition is. */
export const refDoc = (name: string, doc: Doc | string): Json => documented(ref(name), doc);
export const ids = (doc: Doc | string): Json => texts(doc, ref("id"));
export const tools = (doc: Doc | string): Json => texts(doc, ref("tool"));
export const flag = (doc: Doc | string): Json => documented({ type: "boolean" }, doc);
/**
 * A value of one of several types, written as `anyOf` rather than a type list, which Ajv's strict
 * mode (and so SchemaStore's check) refuses; the validator compiles it back to the type list.
 */
export const typeChoice = (...types: string[]): Json => ({
  anyOf: types.map((type) => ({ type })),
});

/** The documented enum of permissions, for every field that names a least role. */
const PERMISSION_DOCS: Record<(typeof PERMISSIONS)[number], string> = {
  read: "Anyone who can read the repository.",
  triage: "Triage access or more: may manage issues and pull requests.",
  write: "Write access or more: may push to the repository.",
  maintain: "Maintain access or more: may manage the repository without its sensitive settings.",
  admin: "Admin access: full control of the repository.",
};
export const permission = (doc: Doc | string): Json =>
  documented(documentedEnum(PERMISSIONS, PERMISSION_DOCS), doc);
