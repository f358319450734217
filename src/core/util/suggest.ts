import { distance } from "fastest-levenshtein";

/** The closest candidate to a misspelt word, if it is close enough to be a likely typo. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const allowed = Math.max(1, Math.floor(Math.max(word.length, 3) / 3));
  return bestDistance <= allowed ? best : undefined;
}

/** "a, b or c" for messages. */
export function oneOf(values: readonly string[]): string {
  return values.join(", ");
}
