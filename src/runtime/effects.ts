import type { PlaybookError } from "../core/engine/errors.js";
import type { Effect, EffectKind, EffectOutputs } from "../core/engine/events.js";
import type { RunState, Value } from "../core/engine/state.js";

/**
 * What performing an effect came to. `EffectOutcome<K>` carries the outputs kind K promises;
 * plain `EffectOutcome` (an effect of any kind, as the engine takes results) its outputs by name.
 */
export type EffectOutcome<K extends EffectKind = EffectKind> =
  | { ok: true; outputs: EffectKind extends K ? Record<string, Value> : EffectOutputs<K> }
  | { ok: false; error: PlaybookError };

/**
 * Performs the engine's effects. Every implementation is idempotent by `effect.key`: asked
 * twice for one key, it finds what the first call did instead of doing it again.
 */
export interface EffectPerformer {
  perform(effect: Effect, run: RunState): Promise<EffectOutcome>;
}

/** Performs the effects of one kind, returning that kind's outputs. */
export type EffectHandler<K extends EffectKind> = (
  effect: Effect<K>,
  run: RunState,
) => Promise<EffectOutcome<K>>;

/**
 * An adapter's effects, one handler per kind. Adapters write theirs as a typed object literal, so
 * one that lacks a kind, or returns another kind's outputs, does not compile.
 */
export type EffectHandlers = { [K in EffectKind]: EffectHandler<K> };

/** Performs an effect with the handler for its kind. */
export function performWith<K extends EffectKind>(
  handlers: EffectHandlers,
  effect: Effect<K>,
  run: RunState,
): Promise<EffectOutcome<K>> {
  return handlers[effect.kind](effect, run);
}

/** The number of the run's issue, which effects act on unless told otherwise (0: none). */
export function runIssue(run: RunState): number {
  return Number(run.context.issue?.number ?? 0);
}

/** The trailer that marks a commit as made for one effect, so a retry finds it. */
export function runTrailer(key: string): string {
  return `Playbook-Run: ${key}`;
}

/** The hidden marker that marks an issue as made for one effect. */
export function issueMarker(key: string): string {
  return `<!-- playbook-bot:effect ${key} -->`;
}
