/**
 * Values inside the arguments of programs that read an argument as code of their own: `sed`'s
 * program (whose `e` and `w` run and write), `jq`'s filter (which reads the environment with
 * `env` and `$ENV`, and files with `input_filename` and `$__loc__`), and a `git` configuration
 * key that names a command (`git -c core.sshCommand=…`, `git config core.pager …`). A value that
 * lands where it can be escaped for its place is; elsewhere it is refused.
 */

import type { Range } from "./bash-flow.js";
import { commandWords, type CommandWord, type WordSource } from "./command-words.js";
import {
  isWord,
  lead,
  leadingOperands,
  sedPlaces,
  startsUnknown,
  type Place,
  type ProgramPlaces,
} from "./sed-script.js";

export interface ProgramSource extends WordSource {
  commands: { name: string; end: number }[];
}

/** What a refusal says: the program, and what the value would be there. */
export const PROGRAM_TEXT: Record<string, string> = {
  sed: "is in sed's program text where it could end its place (sed's e and w commands run and write): put it in an s command's pattern or replacement (s/…/{{x}}/), an address's pattern or an a/i/c text, where it is escaped",
  jq: 'is in jq\'s filter outside a string (the filter could read the environment): put it in a string ("{{x}}"), where it is escaped, or pass it with --arg',
  git: "is in a git setting that runs a command or names a program (core.sshCommand, core.pager, an alias, …): set only user.*, author.*, committer.*, init.defaultBranch, color.* or advice.* from a value",
};

/** Each splice inside such a program's arguments, with what to do with it (by program). */
export function programPlaces(src: ProgramSource): {
  places: Map<number, Place & { program: string }>;
  opaque: Range[];
} {
  const places = new Map<number, Place & { program: string }>();
  const opaque: Range[] = [];
  for (const c of src.commands) {
    const words = commandWords(src, c.end);
    const found: ProgramPlaces =
      c.name === "sed" ? sedPlaces(words) : c.name === "jq" ? jqPlaces(words) : gitPlaces(words);
    for (const [i, p] of found.places) if (!places.has(i)) places.set(i, { ...p, program: c.name });
    opaque.push(...found.opaque);
  }
  return { places, opaque };
}

/** jq's options that take one or two words (`--arg name value` gives a value as data). */
const JQ_ARGUMENTS: Record<string, number> = {
  "--arg": 2,
  "--argjson": 2,
  "--slurpfile": 2,
  "--rawfile": 2,
  "--indent": 1,
  "-L": 1,
  "--from-file": 1,
  "-f": 1,
};

/** Where each splice in a `jq` command lands: the filter is its first operand (unless `-f`). */
function jqPlaces(words: CommandWord[]): ProgramPlaces {
  const places = new Map<number, Place>();
  const opaque: Range[] = [];
  const operands: CommandWord[] = [];
  const filters: CommandWord[] = [];
  let fromFile = false;
  for (let k = 0, options = true; k < words.length; k++) {
    const w = words[k]!;
    const text = lead(w);
    if (options && isWord(w, "--")) options = false;
    else if (options && text.startsWith("-") && text.length > 1) {
      fromFile ||= text === "-f" || text === "--from-file";
      k += JQ_ARGUMENTS[text] ?? 0;
    } else if (options && k > 0 && startsUnknown(words[k - 1]!)) filters.push(w);
    else operands.push(w);
  }
  // After a word known only at run time (`$opts`), the next word may be the filter.
  if (!fromFile && operands.length) filters.unshift(operands.shift()!);
  for (const filter of filters) new JqFilter(filter, places, opaque).read();
  leadingOperands(operands, words, places);
  return { places, opaque };
}

/** A jq filter's strings (with `\( )` interpolations) and comments; a value in a string is escaped. */
class JqFilter {
  /** For each open interpolation, its parenthesis depth. */
  private readonly stack: number[] = [];
  private depth = 0;
  private inString = false;
  private comment = false;

  constructor(
    private readonly word: CommandWord,
    private readonly places: Map<number, Place>,
    private readonly opaque: Range[],
  ) {}

  read(): void {
    let lost = false;
    let escaped = false;
    for (const p of this.word.pieces) {
      if ("text" in p) {
        for (const c of p.text) escaped = this.char(c, escaped);
        continue;
      }
      if ("opaque" in p) {
        lost = true;
        this.opaque.push(p.opaque);
      } else
        this.places.set(
          p.splice,
          this.inString && !lost && !escaped
            ? { escape: { chars: '"', newline: "\\n" } }
            : { refuse: "program" },
        );
      escaped = false;
    }
  }

  /** Reads one character; returns whether the next one is escaped by a `\`. */
  private char(c: string, escaped: boolean): boolean {
    if (this.comment) {
      this.comment = c !== "\n";
      return false;
    }
    if (this.inString) {
      if (escaped) {
        if (c === "(") {
          this.stack.push(this.depth);
          this.inString = false;
        }
        return false;
      }
      if (c === '"') this.inString = false;
      return c === "\\";
    }
    if (c === '"') this.inString = true;
    else if (c === "#") this.comment = true;
    else if (c === "(") this.depth++;
    else if (c === ")") {
      if (this.stack.length && this.stack[this.stack.length - 1] === this.depth) {
        this.stack.pop();
        this.inString = true;
      } else this.depth--;
    }
    return false;
  }
}

/** Settings whose value is data; every other key may name a command, a program, a file or a URL. */
const DATA_SETTING = /^(?:user|author|committer|color|advice)\.[^=]*$|^init\.defaultbranch$/i;

/** `git -c key=value …` and `git config [options] key value`: a value in a key or a command setting. */
function gitPlaces(words: CommandWord[]): ProgramPlaces {
  const places = new Map<number, Place>();
  const refuse = (w?: CommandWord) => {
    for (const p of w?.pieces ?? []) if ("splice" in p) places.set(p.splice, { refuse: "program" });
  };
  let k = 0;
  for (; k < words.length && lead(words[k]!).startsWith("-"); k++) {
    const text = lead(words[k]!);
    if (text === "-c") {
      const setting = words[++k];
      if (setting && !DATA_SETTING.test(keyOf(setting))) refuse(setting);
    } else if (text === "-C") k++;
  }
  if (words[k] && isWord(words[k]!, "config")) {
    let key = words
      .slice(k + 1)
      .findIndex((w) => !lead(w).startsWith("-") && !/^(?:set|get)$/.test(lead(w)));
    key = key === -1 ? -1 : key + k + 1;
    if (key !== -1 && !DATA_SETTING.test(keyOf(words[key]!))) words.slice(key).forEach(refuse);
  }
  return { places, opaque: [] };
}

/** A setting's key (`key=value` or `key`), or "" where a value or an expansion is in it. */
function keyOf(w: CommandWord): string {
  const text = lead(w);
  const eq = text.indexOf("=");
  if (eq !== -1) return text.slice(0, eq);
  return w.pieces.length === 1 ? text : "";
}
