import type { PlaybookError } from "../core/engine/errors.js";
import type { Effect } from "../core/engine/events.js";
import type { RunState, Value } from "../core/engine/state.js";

export type EffectOutcome =
  { ok: true; outputs: Record<string, Value> } | { ok: false; error: PlaybookError };

/**
 * Performs the engine's effects. Every implementation is idempotent by `effect.key`: asked
 * twice for one key, it finds what the first call did instead of doing it again.
 */
export interface EffectPerformer {
  perform(effect: Effect, run: RunState): Promise<EffectOutcome>;
}

/** The trailer that marks a commit as made for one effect, so a retry finds it. */
export function runTrailer(key: string): string {
  return `Playbook-Run: ${key}`;
}

/** The hidden marker that marks an issue as made for one effect. */
export function issueMarker(key: string): string {
  return `<!-- playbook-bot:effect ${key} -->`;
}
