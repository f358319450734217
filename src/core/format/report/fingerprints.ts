// Fingerprints that let code scanning tell one result from another across runs, whatever lines
// were added or removed above it.

const MASK = (1n << 64n) - 1n;
const BASE = 37n;
const WINDOW = 100;
/** BASE^WINDOW mod 2^64: what the character leaving the window weighs. */
const LEAVING = (() => {
  let w = 1n;
  for (let i = 0; i < WINDOW; i++) w = (w * BASE) & MASK;
  return w;
})();
const TAB = 9;
const LF = 10;
const CR = 13;
const SPACE = 32;
const END = 0xffff;

/**
 * `primaryLocationLineHash` of every line of a text, as GitHub computes it (the `upload-sarif`
 * action's fingerprints.ts, which the code scanning documentation points producers to): a rolling
 * hash of the 100 characters from each line's start on, spaces and tabs left out and line
 * endings read as `\n`, then `:n` for the n-th line with the same hash. Index 0 is line 1.
 * Equal to GitHub's own value, so `upload-sarif` keeps it, and an upload through the API matches
 * alerts as an upload through the action does.
 */
export function lineHashes(text: string): string[] {
  const window = new Array<number>(WINDOW).fill(0);
  // The line starting at each window position, or -1.
  const starts = new Array<number>(WINDOW).fill(-1);
  const seen = new Map<string, number>();
  const out: string[] = [];
  let hash = 0n;
  let index = 0;
  let line = 0;
  let atLineStart = true;
  let afterCR = false;

  const emit = () => {
    const value = hash.toString(16);
    const n = (seen.get(value) ?? 0) + 1;
    seen.set(value, n);
    out[(starts[index] as number) - 1] = `${value}:${n}`;
    starts[index] = -1;
  };
  const push = (c: number) => {
    const leaving = window[index] as number;
    window[index] = c;
    hash = (BASE * hash + BigInt(c) - LEAVING * BigInt(leaving)) & MASK;
    index = (index + 1) % WINDOW;
  };
  const read = (code: number) => {
    let c = code;
    if (c === SPACE || c === TAB || (afterCR && c === LF)) {
      afterCR = false;
      return;
    }
    afterCR = c === CR;
    if (c === CR) c = LF;
    if (starts[index] !== -1) emit();
    if (atLineStart) {
      atLineStart = false;
      starts[index] = ++line;
    }
    if (c === LF) atLineStart = true;
    push(c);
  };

  for (let i = 0; i < text.length; i++) read(text.charCodeAt(i));
  read(END);
  for (let i = 0; i < WINDOW; i++) {
    if (starts[index] !== -1) emit();
    push(0);
  }
  return out;
}

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;

/** FNV-1a (64 bits) of the parts, each ended by a NUL: a short, stable digest without I/O. */
export function digest(parts: readonly string[]): string {
  let h = FNV_OFFSET;
  for (const part of parts) {
    for (let i = 0; i <= part.length; i++) {
      h ^= BigInt(i < part.length ? part.charCodeAt(i) : 0);
      h = (h * FNV_PRIME) & MASK;
    }
  }
  return h.toString(16).padStart(16, "0");
}

/** A message without the line and column numbers some messages cite: they move with edits. */
export function withoutPositions(message: string): string {
  return message.replace(/\b(lines?|columns?)\s+\d+/gi, "$1 N");
}
