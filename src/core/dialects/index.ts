import { catalyst } from "./catalyst/dialect.js";
import { cortex } from "./cortex/dialect.js";
import { NO_SIBLINGS, type Dialect, type Siblings } from "./dialect.js";
import { mindscape } from "./mindscape/dialect.js";
import { runbook } from "./runbook/dialect.js";
import { triagent } from "./triagent/dialect.js";

export type { Dialect, DialectId, DialectLoad, DialectResult, Siblings } from "./dialect.js";
export { ConvertedDocument, NO_SIBLINGS } from "./dialect.js";

/**
 * Every dialect, registered here and nowhere else (one line each): validation, `run`,
 * `simulate`, `test`, the Action, the app's discovery and `import` read this list. The first
 * dialect that recognises a file loads it.
 */
export const DIALECTS: readonly Dialect[] = [triagent, runbook, cortex, catalyst, mindscape];

/** A v1 playbook says so on a line of its own; such a file is never a dialect's. */
const V1 = /^\s*apiVersion\s*:\s*["']?playbook-bot\//m;

/** The dialect a file is written in, or undefined for a v1 playbook (or a file none knows). */
export function dialectOf(file: string, text: string): Dialect | undefined {
  if (V1.test(text)) return undefined;
  return DIALECTS.find((d) => d.recognise(file, text));
}

/**
 * Whether a file is only part of another dialect file (a sidecar, a paired file): not loaded on
 * its own. `siblings` (the files beside it, when known) tell a pair kept in one folder.
 */
export function isDialectPart(file: string, siblings: Siblings = NO_SIBLINGS): boolean {
  return DIALECTS.some((d) => d.isPart?.(file, siblings) ?? false);
}
