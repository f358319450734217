/**
 * The words of one simple command as the program receives them, read from a bash script's text:
 * quotes removed, each `{{x}}` splice kept as a marker (it reaches the program as the value,
 * whatever its quoting), and each expansion the text cannot tell (`$name`, `$( )`, `$'…'`) as an
 * opaque piece. Enough to know which argument of `sed` or `jq` a value lands in.
 */

import type { Range } from "./bash-flow.js";

/** Literal text, a splice (by index in the layout's splices), or text only known at run time. */
export type Piece = { text: string } | { splice: number } | { opaque: Range };

export interface CommandWord {
  pieces: Piece[];
  start: number;
}

export interface WordSource {
  text: string;
  splices: Range[];
  substitutions: Range[];
}

/** Where an unquoted character ends the simple command. */
const ENDS = new Set([";", "&", "|", "\n", ")", "`"]);

/** The words after a command's name (from `from`), up to where the command ends; redirections left out. */
export function commandWords(src: WordSource, from: number): CommandWord[] {
  return new WordReader(src).read(from);
}

class WordReader {
  private words: CommandWord[] = [];
  private pieces: Piece[] = [];
  /** Whether a word has begun (an empty quoted word, `""`, is a word with no pieces yet). */
  private started = false;
  private start = 0;
  private quote: "" | '"' | "'" = "";
  private redirect = false;

  constructor(private readonly src: WordSource) {}

  read(from: number): CommandWord[] {
    const t = this.src.text;
    let i = from;
    while (i < t.length) {
      const next = this.step(i);
      if (next === undefined) break;
      i = next;
    }
    this.endWord(i);
    return this.words;
  }

  /** One step from `i`; undefined where the command ends. */
  private step(i: number): number | undefined {
    const t = this.src.text;
    const c = t[i]!;
    const splice = this.src.splices.findIndex((s) => s.start === i);
    if (splice !== -1) return this.add({ splice }, i, this.src.splices[splice]!.end);
    if (this.quote === "'") return c === "'" ? this.unquote(i) : this.char(c, i);
    if (c === "$" || (c === "`" && this.startsSubstitution(i))) return this.expansion(i);
    if (this.quote === '"') {
      if (c === '"') return this.unquote(i);
      if (c === "\\" && /[$`"\\\n]/.test(t[i + 1] ?? ""))
        return t[i + 1] === "\n" ? i + 2 : this.char(t[i + 1]!, i, 2);
      return this.char(c, i);
    }
    if (c === "\\") return t[i + 1] === "\n" ? i + 2 : this.char(t[i + 1] ?? "", i, 2);
    if (c === "'" || c === '"') {
      this.quote = c;
      if (!this.started) this.start = i;
      this.started = true;
      return i + 1;
    }
    // `&>` and `&>>` redirect both outputs; any other `&` ends the command.
    if (c === "&" && t[i + 1] === ">") return this.redirection(i);
    if (ENDS.has(c) || (c === "#" && !this.started)) return undefined;
    if (c === " " || c === "\t") {
      this.endWord(i);
      return i + 1;
    }
    if (c === "<" || c === ">") return this.redirection(i);
    return this.char(c, i);
  }

  private startsSubstitution(i: number): boolean {
    return this.src.substitutions.some((r) => r.start === i);
  }

  private unquote(i: number): number {
    this.quote = "";
    return i + 1;
  }

  private char(c: string, i: number, width = 1): number {
    return this.add({ text: c }, i, i + width);
  }

  private add(piece: Piece, at: number, next: number): number {
    if (!this.started) this.start = at;
    this.started = true;
    const last = this.pieces[this.pieces.length - 1];
    if ("text" in piece && last && "text" in last) last.text += piece.text;
    else this.pieces.push(piece);
    return next;
  }

  /** `$name`, `${…}`, `$( )`, `` `…` ``, `$'…'`: a piece known only at run time. */
  private expansion(i: number): number {
    const t = this.src.text;
    const sub = this.src.substitutions.find((r) => r.start === i);
    let end: number;
    if (sub) end = Math.min(t.length, sub.end + 1);
    else if (t.startsWith("$'", i)) end = ansiEnd(t, i + 2);
    else {
      const name = /\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9#?@*!$-])?/y;
      name.lastIndex = i;
      end = i + name.exec(t)![0].length;
      if (end === i + 1) return this.char("$", i);
    }
    return this.add({ opaque: { start: i, end } }, i, end);
  }

  /** `>`, `>>`, `2>`, `<`, `&>`, `<<<`: the operator and the word after it are not arguments. */
  private redirection(i: number): number {
    const t = this.src.text;
    if (/^[0-9]+$/.test(this.pieceText())) {
      this.pieces = [];
      this.started = false;
    }
    this.endWord(i);
    let j = i;
    while (/[<>&]/.test(t[j] ?? "")) j++;
    while (t[j] === " " || t[j] === "\t") j++;
    this.redirect = true;
    return j;
  }

  private pieceText(): string {
    return this.pieces.map((p) => ("text" in p ? p.text : "\0")).join("");
  }

  private endWord(_at: number): void {
    if (this.quote || !this.started) return;
    const pieces = this.pieces.length ? this.pieces : [{ text: "" }];
    if (!this.redirect) this.words.push({ pieces, start: this.start });
    this.redirect = false;
    this.pieces = [];
    this.started = false;
  }
}

/** Where a `$'…'` that starts at `from` (after the quote) ends. */
function ansiEnd(t: string, from: number): number {
  for (let j = from; j < t.length; j++) {
    if (t[j] === "\\") j++;
    else if (t[j] === "'") return j + 1;
  }
  return t.length;
}
