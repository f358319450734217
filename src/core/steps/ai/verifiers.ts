import type { Value } from "../../engine/state.js";

/**
 * Checks an `ai` step may name with `verify:`. They are functions in the bot's code, registered
 * by name; a playbook only names one, so nothing from a playbook ever runs as code. A check gets
 * the step's outputs and the findings it was expected to report, and says what is wrong (or
 * nothing).
 */
export interface Verifier {
  summary: string;
  check(outputs: Record<string, Value>, expectedFindings: readonly string[]): string | undefined;
}

const VERIFIERS = new Map<string, Verifier>([
  [
    "non-empty",
    {
      summary: "the answer has text",
      check: (o) =>
        typeof o.text === "string" && o.text.trim() !== "" ? undefined : "the answer is empty",
    },
  ],
  [
    "json",
    {
      summary: "the answer is one JSON value",
      check: (o) => {
        try {
          JSON.parse(typeof o.text === "string" ? o.text : "");
          return undefined;
        } catch {
          return "the answer is not JSON";
        }
      },
    },
  ],
  [
    "findings-complete",
    {
      summary: "every expected finding was reported",
      check: (o, expected) => {
        const missing = expected.filter((k) => o[`finding.${k}`] === undefined);
        return missing.length === 0 ? undefined : `findings not reported: ${missing.join(", ")}`;
      },
    },
  ],
]);

/** Adds a check under a name, for an application that embeds the bot (a name is never replaced). */
export function registerVerifier(name: string, verifier: Verifier): void {
  if (VERIFIERS.has(name)) throw new Error(`a verifier named ${name} is already registered`);
  VERIFIERS.set(name, verifier);
}

export function verifierNamed(name: string): Verifier | undefined {
  return VERIFIERS.get(name);
}

export function verifierNames(): string[] {
  return [...VERIFIERS.keys()].sort();
}
