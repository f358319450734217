import { NO_SIBLINGS, dialectOf, isDialectPart, type Siblings } from "./index.js";

export { PLAYBOOK_FOLDERS } from "./folders.js";

/** Extensions a v1 playbook (or a YAML dialect file) has. */
const YAML_FILE = /\.ya?ml$/i;
/** Extensions other systems keep playbooks in: taken only when a dialect recognises the file. */
const DIALECT_FILE = /\.(json|md)$/i;

/**
 * Whether a file found in a playbook folder is a playbook to load: a YAML file, or a JSON or
 * Markdown file a dialect recognises — never a dialect's sidecar, which loads with its playbook,
 * and never a step's template file. `siblings` are the files beside it, when the caller can read
 * them (a Mindscape SOP beside its spec is part of the spec).
 */
export function isPlaybookFile(
  path: string,
  text: () => string,
  siblings: Siblings = NO_SIBLINGS,
): boolean {
  if (isDialectPart(path, siblings) || /(^|\/)templates\//.test(path)) return false;
  if (YAML_FILE.test(path)) return true;
  return DIALECT_FILE.test(path) && dialectOf(path, text()) !== undefined;
}
