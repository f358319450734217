/**
 * Values that start a command's word. Most programs read a word that starts with `-` as an
 * option wherever it stands (`find "$v"` with `-delete`, `git clone "$v"` with
 * `--upload-pack=…`), so such a value must not start with `-` unless `--` comes before it in the
 * command (checked at run time, see `ValueGuard` in `scripts.ts`). A value that is the command's
 * name chooses the program to run: that is code, refused when the script is converted.
 */

import { commandWords, type CommandWord, type WordSource } from "./command-words.js";
import { isWord, lead } from "./sed-script.js";

export interface OptionPlaces {
  /** Each splice that starts an argument word, with the program that reads it. */
  operands: Map<number, string>;
  /** Splices that start a command's name. */
  names: number[];
  /** Variables whose expansion starts an argument word (`find "$dir"`): their values are checked too. */
  variables: Set<string>;
}

/** Words before a command's name: reserved words of bash's grammar. */
const KEYWORDS = new Set(["if", "then", "elif", "else", "do", "while", "until", "!", "time", "{"]);
/** `name=`, `name[i]=`, `name+=`: an assignment before the command's name. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/;
/**
 * Commands whose arguments no option runs or writes anything from (`echo -e`), that read no
 * options at all (`for`, `case`), or whose values another reader checks (`sed`, `jq`, see
 * `program-places.ts`).
 */
const EXEMPT = new Set(["echo", "test", "[", "[[", ":", "true", "false", "for", "select", "case"]);
const OWN_READER = new Set(["sed", "gsed", "jq"]);
/** Programs that read `-delete`, `-exec` … as their expression even after `--`. */
const EXPRESSION_AFTER_DASHES = new Set(["find"]);

/** What the author can do about a value that starts with `-` before a program. */
export function optionFix(program: string): string {
  return EXPRESSION_AFTER_DASHES.has(program)
    ? "write ./ before it, or make the value not start with -"
    : "put -- before it, or make the value not start with -";
}

/** The splices at the start of a command's words, from the commands that start at `starts`. */
export function optionPlaces(src: WordSource, starts: number[]): OptionPlaces {
  const out: OptionPlaces = { operands: new Map(), names: [], variables: new Set() };
  for (const start of starts) {
    const words = commandWords(src, start);
    let k = 0;
    while (k < words.length && (KEYWORDS.has(wordText(words[k]!)) || isAssignment(words[k]!))) k++;
    const name = words[k];
    if (!name) continue;
    const head = name.pieces[0];
    if (head && "splice" in head) out.names.push(head.splice);
    const program = name.pieces.length === 1 ? lead(name).replace(/^.*\//, "") : "the program";
    if (EXEMPT.has(program) || OWN_READER.has(program)) continue;
    // bash's printf reads options only before its format; the words after it are data.
    const last = program === "printf" ? formatIndex(words, k) : words.length - 1;
    for (let j = k + 1; j <= last; j++) {
      const w = words[j]!;
      if (isWord(w, "--") && !EXPRESSION_AFTER_DASHES.has(program)) break;
      wordStart(src, w, program, out);
    }
  }
  return out;
}

/** `$name` or `${name…}` at the start of an expansion's text. */
const VARIABLE = /^\$\{?([A-Za-z_][A-Za-z0-9_]*)/;

/**
 * What starts an argument word: each value before the first literal character (`{{a}}{{b}}` with
 * an empty `a` puts `b` first), or a variable's expansion.
 */
function wordStart(src: WordSource, w: CommandWord, program: string, out: OptionPlaces): void {
  for (const piece of w.pieces) {
    if ("text" in piece) {
      if (piece.text !== "") return;
    } else if ("splice" in piece) {
      if (!out.operands.has(piece.splice)) out.operands.set(piece.splice, program);
    } else {
      const name = VARIABLE.exec(src.text.slice(piece.opaque.start, piece.opaque.end))?.[1];
      if (name !== undefined) out.variables.add(name);
      return;
    }
  }
}

function wordText(w: CommandWord): string {
  return w.pieces.length === 1 ? lead(w) : "";
}

function isAssignment(w: CommandWord): boolean {
  return ASSIGNMENT.test(lead(w));
}

/** Where printf's format is: the first word after its options (`-v name`). */
function formatIndex(words: CommandWord[], k: number): number {
  let j = k + 1;
  while (j < words.length && lead(words[j]!).startsWith("-") && !isWord(words[j]!, "--"))
    j += isWord(words[j]!, "-v") ? 2 : 1;
  if (j < words.length && isWord(words[j]!, "--")) j++;
  return Math.min(j, words.length - 1);
}
