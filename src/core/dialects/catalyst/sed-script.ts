/**
 * Where a value lands in a sed program (GNU sed's syntax). sed runs commands and writes files from
 * its program text (the `e` command and flag, `w`, `r`), so a value there must stay in its place:
 * in an `s` command's pattern or replacement, an address's pattern, or an `a`/`i`/`c` text it is
 * escaped for that place (the delimiter in use, `\`, `&`, newline, and in a pattern the regular
 * expression's operators, so it matches itself); anywhere else it is refused.
 */

import type { Range } from "./bash-flow.js";
import type { CommandWord, Piece } from "./command-words.js";

/** How a value is written where it lands: characters to escape with `\`, and what a newline becomes. */
export interface Escape {
  chars: string;
  newline: string;
}

/** What happens to a splice inside a program's arguments. */
export type Place =
  | { escape: Escape }
  | { refuse: string }
  /** A word that starts with the value: a leading `-` would make it an option. */
  | { operand: true };

export interface ProgramPlaces {
  places: Map<number, Place>;
  /** Expansions inside program text (`$name`, `$( )`): values that reach them are refused too. */
  opaque: Range[];
}

/** A word's literal text up to its first splice or expansion. */
export function lead(w: CommandWord): string {
  const head = w.pieces[0];
  return head && "text" in head ? head.text : "";
}

/** Whether the word starts with text known only at run time (`$x`, `$(…)`): it may be an option. */
export function startsUnknown(w: CommandWord): boolean {
  const head = w.pieces[0];
  return head !== undefined && "opaque" in head;
}

/** Whether the word is all literal text equal to `text`. */
export function isWord(w: CommandWord, text: string): boolean {
  return w.pieces.length === 1 && lead(w) === text;
}

/** An option's argument: the rest of the word after `from` characters of its text, or the next word. */
function optionArgument(words: CommandWord[], k: number, from: number): CommandWord | undefined {
  const w = words[k]!;
  const rest = [{ text: lead(w).slice(from) }, ...w.pieces.slice(1)];
  const attached = rest.filter((p) => !("text" in p) || p.text !== "");
  return attached.length ? { pieces: attached, start: w.start } : words[k + 1];
}

interface SedOption {
  /** What its argument is: program text, a program file, or a number. */
  takes?: "program" | "file" | "number";
  /** Where the argument starts in the word (its length when it is the next word). */
  at: number;
  ere: boolean;
}

/** The option a word starts with (`-ne`, `-i.bak`, `--expression=…`), or undefined for an operand. */
function sedOption(word: string): SedOption | undefined {
  if (word.startsWith("--")) {
    const eq = word.indexOf("=");
    const name = eq === -1 ? word : word.slice(0, eq);
    const at = eq === -1 ? word.length : eq + 1;
    const ere = name === "--regexp-extended";
    if (name === "--expression") return { takes: "program", at, ere };
    if (name === "--file") return { takes: "file", at, ere };
    if (name === "--line-length") return { takes: "number", at, ere };
    return { at, ere };
  }
  if (!word.startsWith("-") || word.length < 2) return undefined;
  let ere = false;
  for (let j = 1; j < word.length; j++) {
    const c = word[j]!;
    if (c === "E" || c === "r") ere = true;
    // `-i` takes the rest of the word as a backup suffix: `-ie` is the suffix `e`.
    else if (c === "i") return { at: word.length, ere };
    else if (c === "e") return { takes: "program", at: j + 1, ere };
    else if (c === "f" || c === "l")
      return { takes: c === "f" ? "file" : "number", at: j + 1, ere };
  }
  return { at: word.length, ere };
}

/** The program's arguments as GNU sed reads them (it takes options after operands too). */
function sedArguments(words: CommandWord[]) {
  const programs: CommandWord[] = [];
  const operands: CommandWord[] = [];
  let ere = false;
  let named = false;
  for (let k = 0, options = true; k < words.length; k++) {
    const w = words[k]!;
    if (options && isWord(w, "--")) options = false;
    const option = options && !isWord(w, "--") ? sedOption(lead(w)) : undefined;
    if (!option) {
      // After a word known only at run time (`$opts`: maybe `-n`, maybe `-e`), the next may be the program.
      if (options && k > 0 && startsUnknown(words[k - 1]!)) programs.push(w);
      else if (!isWord(w, "--")) operands.push(w);
      continue;
    }
    ere ||= option.ere;
    if (!option.takes) continue;
    // A value as a program file or a line length stays a word.
    const arg = optionArgument(words, k, option.at);
    if (arg === words[k + 1]) k++;
    if (option.takes !== "number") named = true;
    if (arg && option.takes === "program") programs.push(arg);
  }
  // Without -e or -f, the first operand is the program.
  if (!named && operands.length) programs.push(operands.shift()!);
  return { programs, operands, ere };
}

/** Where each splice in a `sed` command's arguments lands. */
export function sedPlaces(words: CommandWord[]): ProgramPlaces {
  const places = new Map<number, Place>();
  const opaque: Range[] = [];
  const { programs, operands, ere } = sedArguments(words);
  for (const program of programs) new SedParser(program.pieces, ere, places, opaque).parse();
  leadingOperands(operands, words, places);
  return { places, opaque };
}

/** A value that starts a program's operand could be an option unless `--` came before. */
export function leadingOperands(
  operands: CommandWord[],
  words: CommandWord[],
  places: Map<number, Place>,
): void {
  const dashes = words.findIndex((w) => isWord(w, "--"));
  for (const w of operands) {
    const head = w.pieces[0];
    if (
      head &&
      "splice" in head &&
      (dashes === -1 || words.indexOf(w) < dashes) &&
      !places.has(head.splice)
    )
      places.set(head.splice, { operand: true });
  }
}

type Item = string | { splice: number } | { opaque: Range };

/** The program's characters, with splices and run-time expansions as single items. */
function items(pieces: Piece[]): Item[] {
  const out: Item[] = [];
  for (const p of pieces) {
    if ("text" in p) out.push(...p.text);
    else out.push(p);
  }
  return out;
}

const REGEX_OPERATORS = "\\.[*^$";
const ERE_OPERATORS = "+?(){}|";

/** A small reader of GNU sed's program syntax: commands, addresses, and their parts. */
class SedParser {
  private readonly items: Item[];
  private i = 0;

  constructor(
    pieces: Piece[],
    private readonly ere: boolean,
    private readonly places: Map<number, Place>,
    private readonly opaque: Range[],
  ) {
    this.items = items(pieces);
  }

  parse(): void {
    while (this.i < this.items.length) {
      if (!this.command()) return this.lose();
    }
  }

  /** The rest of the program cannot be read: its values are refused, its expansions noted. */
  private lose(): void {
    for (const item of this.items.slice(this.i)) {
      if (typeof item === "string") continue;
      if ("splice" in item) this.places.set(item.splice, { refuse: "program" });
      else this.opaque.push(item.opaque);
    }
  }

  private get cur(): Item | undefined {
    return this.items[this.i];
  }

  /** Reads one command (with its addresses); false where the text cannot be read further. */
  private command(): boolean {
    this.skip(/[\s;}{]/);
    if (this.i >= this.items.length) return true;
    if (this.cur === "#") return this.toLineEnd();
    if (!this.address()) return false;
    this.skip(/[ \t]/);
    if (this.cur === ",") {
      this.i++;
      this.skip(/[ \t]/);
      if (!this.address()) return false;
    }
    this.skip(/[ \t!]/);
    const c = this.cur;
    if (typeof c !== "string") return false;
    this.i++;
    if (c === "s") return this.substitute();
    if (c === "y") {
      const d = this.delimiter();
      return d !== undefined && this.part("y", d) && this.part("y", d);
    }
    if ("aic".includes(c)) return this.text();
    if ("rRwWe:bTtv".includes(c)) return this.toLineEnd(c === ":" || c === "v" || /[bTt]/.test(c));
    if ("lqQL".includes(c)) return this.skip(/[0-9 \t]/) || true;
    return "{}=dDgGhHnNpPxzF".includes(c);
  }

  private skip(re: RegExp): boolean {
    while (typeof this.cur === "string" && re.test(this.cur)) this.i++;
    return true;
  }

  /** An address: a line number, `$`, `first~step`, `+N`, `/re/` or `\cREc` (with `I`/`M`). */
  private address(): boolean {
    const c = this.cur;
    if (typeof c !== "string") return true;
    if (/[0-9$+~]/.test(c)) return this.skip(/[0-9$+~]/);
    if (c !== "/" && c !== "\\") return true;
    this.i += c === "\\" ? 1 : 0;
    const d = this.delimiter();
    const ok = d !== undefined && this.part("regex", d);
    this.skip(/[IM]/);
    return ok;
  }

  /** `s/re/replacement/flags`: the flags run to the end of the command, `w file` to the line's. */
  private substitute(): boolean {
    const d = this.delimiter();
    if (d === undefined || !this.part("regex", d) || !this.part("replacement", d)) return false;
    while (typeof this.cur === "string" && !/[\n;}#]/.test(this.cur)) {
      if (this.cur === "w") return this.toLineEnd();
      this.i++;
    }
    if (this.cur !== undefined && typeof this.cur !== "string") return false;
    return true;
  }

  /**
   * One delimited part (the delimiter is the item at the cursor). A value inside is escaped for
   * the part; one in a bracket expression, after a `\`, or in `y` is refused.
   */
  private part(kind: "regex" | "replacement" | "y", delim: string): boolean {
    let bracket = false;
    for (; this.i < this.items.length; this.i++) {
      const c = this.cur!;
      if (typeof c !== "string") {
        if ("opaque" in c) return false;
        this.places.set(
          c.splice,
          bracket || kind === "y" ? { refuse: "program" } : { escape: this.escape(kind, delim) },
        );
      } else if (c === "\\") {
        const next = this.items[++this.i];
        if (next !== undefined && typeof next !== "string") {
          if ("opaque" in next) return false;
          this.places.set(next.splice, { refuse: "program" });
        }
      } else if (bracket) {
        if (c === delim) return false;
        if (c === "[" && /[:.=]/.test(String(this.items[this.i + 1]))) this.classEnd();
        else if (c === "]") bracket = false;
      } else if (c === "[" && kind === "regex") {
        bracket = true;
        if (this.items[this.i + 1] === "^") this.i++;
        if (this.items[this.i + 1] === "]") this.i++;
      } else if (c === delim) {
        this.i++;
        return true;
      }
    }
    return true;
  }

  /** The delimiter at the cursor (any character but `\\` and newline), passed over. */
  private delimiter(): string | undefined {
    const d = this.cur;
    this.i++;
    return typeof d === "string" && d !== "\\" && d !== "\n" ? d : undefined;
  }

  /** Past `[:alpha:]`, `[.x.]`, `[=x=]` inside a bracket expression (to before its `]`). */
  private classEnd(): void {
    const kind = this.items[this.i + 1];
    for (this.i += 2; this.i < this.items.length; this.i++)
      if (this.cur === kind && this.items[this.i + 1] === "]") {
        this.i++;
        return;
      }
  }

  private escape(kind: "regex" | "replacement" | "y", delim: string): Escape {
    if (kind === "replacement") return { chars: unique(`\\&${delim}`), newline: "\\\n" };
    return {
      chars: unique(`${REGEX_OPERATORS}${this.ere ? ERE_OPERATORS : ""}${delim}`),
      newline: "\\n",
    };
  }

  /** `a`, `i`, `c`: the text runs to the first newline not escaped; a value in it is escaped. */
  private text(): boolean {
    this.skip(/[ \t]/);
    if (this.cur === "\\" && this.items[this.i + 1] === "\n") this.i += 2;
    for (; this.i < this.items.length && this.cur !== "\n"; this.i++) {
      const c = this.cur!;
      if (typeof c !== "string") {
        if ("opaque" in c) return false;
        const after = this.items[this.i - 1] === "\\";
        this.places.set(
          c.splice,
          after ? { refuse: "program" } : { escape: { chars: "\\", newline: "\\\n" } },
        );
      } else if (c === "\\") this.i++;
    }
    return true;
  }

  /** A file name, label or command to the end of the line (a label also ends at `;`): no value there. */
  private toLineEnd(label = false): boolean {
    for (
      ;
      this.i < this.items.length && this.cur !== "\n" && !(label && this.cur === ";");
      this.i++
    ) {
      const c = this.cur!;
      if (typeof c === "string") continue;
      if ("opaque" in c) return false;
      this.places.set(c.splice, { refuse: "program" });
    }
    return true;
  }
}

function unique(chars: string): string {
  return [...new Set(chars)].join("");
}
