import { parseArgs } from "./inputs.js";
import type { CommandArgs } from "./events.js";
import { didYouMean } from "../util/suggest.js";
import { code, list, paragraph, renderMarkdown, strong } from "../markdown/comment.js";

export const COMMANDS = [
  "run",
  "approve",
  "reject",
  "choose",
  "record",
  "note",
  "call",
  "retry",
  "cancel",
  "status",
  "trace",
  "systematise",
  "systematize",
  "help",
] as const;
export type CommandWord = (typeof COMMANDS)[number];

export type ParsedCommand =
  | { kind: "command"; name: CommandWord; args: CommandArgs; line: number }
  | { kind: "unknown"; word: string; suggestion: string; line: number };

/** At most this many commands are taken from one comment. */
export const MAX_COMMANDS_PER_COMMENT = 10;

/**
 * Slash commands in a comment body. A command starts its own line (up to three spaces of
 * indent), outside fenced code (a list item's too), block quotes, HTML comments and `<pre>`,
 * `<script>`, `<style>` and `<textarea>` blocks, and matches a whole word: `/approvex` is not
 * `/approve` (it is reported as unknown, with a suggestion, and never runs). Where GitHub might
 * show a line as code or hide it, it is no command: a fence closes only on a line of its marks
 * alone, and `<!--` inside a fence is code, not a comment that could hide the fence.
 */
export function parseCommands(body: string): ParsedCommand[] {
  const out: ParsedCommand[] = [];
  let fence: { mark: string; column: number } | null = null;
  let closer: RegExp | null = null; // the end of an HTML comment or a raw block
  const lines = body.split(/\r?\n/);
  for (let i = 0; i < lines.length && out.length < MAX_COMMANDS_PER_COMMENT; i++) {
    let line = lines[i] as string;
    const fenceMark = /^(\s*(?:(?:[-+*]|\d{1,9}[.)])\s+)*)(`{3,}|~{3,})(.*)$/.exec(line);
    if (fenceMark) {
      const column = columns(fenceMark[1] as string);
      const mark = fenceMark[2] as string;
      const only = /^\s*$/.test(fenceMark[3] as string);
      if (fence === null) fence = { mark, column };
      else if (column < fence.column)
        fence = { mark, column }; // a new fence after the list item
      else if (only && mark[0] === fence.mark[0] && mark.length >= fence.mark.length)
        fence = column <= fence.column + 3 ? null : fence;
      continue;
    }
    // Inside an HTML comment or a raw block, until its end; a fence there counts all the same
    // (`<!--` in a code span is no comment), so a line counts only outside both.
    if (closer) {
      if (closer.test(line)) closer = null;
      continue;
    }
    if (fence !== null) continue;
    if (/^ {0,3}<(pre|script|style|textarea)(\s|>|$)/i.test(line)) {
      if (!/<\/(pre|script|style|textarea)>/i.test(line))
        closer = /<\/(pre|script|style|textarea)>/i;
      continue;
    }
    // A comment closed on its line is blanked; one left open hides the rest until its end.
    line = blankClosedComments(line);
    const open = line.indexOf("<!--");
    if (open !== -1) {
      closer = /-->/;
      line = line.slice(0, open);
    }
    const m = /^ {0,3}\/([A-Za-z][A-Za-z0-9_-]*)(.*)$/.exec(line);
    if (!m) continue;
    const word = (m[1] as string).toLowerCase();
    const rest = m[2] as string;
    if (rest !== "" && !/^\s/.test(rest)) continue; // `/approve/x` is a path, not a command
    if ((COMMANDS as readonly string[]).includes(word)) {
      out.push({ kind: "command", name: word as CommandWord, args: parseArgs(rest), line: i + 1 });
    } else {
      // Only a likely typo is answered; `/tmp is full` is prose, not a command.
      const suggestion = didYouMean(word, COMMANDS);
      if (suggestion) out.push({ kind: "unknown", word, suggestion, line: i + 1 });
    }
  }
  return out;
}

/** The line with each HTML comment that closes on it blanked (one pass: linear in the line). */
function blankClosedComments(line: string): string {
  let out = "";
  let from = 0;
  for (;;) {
    const open = line.indexOf("<!--", from);
    const close = open === -1 ? -1 : line.indexOf("-->", open + 4);
    if (close === -1) return out + line.slice(from);
    out += line.slice(from, open) + " ".repeat(close + 3 - open);
    from = close + 3;
  }
}

/** Where a line's text starts, in columns (a tab moves to the next multiple of four). */
function columns(prefix: string): number {
  let n = 0;
  for (const c of prefix) n = c === "\t" ? n + 4 - (n % 4) : n + 1;
  return n;
}

const HELP: [string, string][] = [
  [
    "/run <playbook> [key=value …]",
    "start a playbook (needs triage access unless the playbook says otherwise)",
  ],
  [
    "/approve [run-id] [step] [note] [key=value …]",
    "approve the step that waits (name its run where its request for approval says so, the step when several wait)",
  ],
  ["/reject [run-id] [step] [reason]", "reject the step that waits (name it when several wait)"],
  ["/choose <branch>", "pick a branch of an investigation step"],
  [
    "/record key=value …",
    "record findings (with nothing waiting: kept as work done by hand on this issue)",
  ],
  ["/note <text>", "note what you did by hand; kept as this issue's trace"],
  [
    "/call <n>",
    "have the bot make suggested call n of the step that waits (where its tool is configured)",
  ],
  ["/retry", "retry a failed or stalled step"],
  ["/cancel", "cancel the run"],
  ["/status", "show where the run stands"],
  ["/trace [json|otlp]", "the whole trace of this issue's runs and work by hand"],
  [
    "/systematise [id]",
    "draft playbook <id> from this issue's work, or (without an id) improve the playbook that ran here; proposed in a pull request, never merged",
  ],
  ["/help", "this list"],
];

export const HELP_TEXT = renderMarkdown(
  paragraph(strong("Playbook Bot commands"), " (each on its own line):"),
  list(HELP.map(([command, what]) => [code(command), ` — ${what}`])),
);
