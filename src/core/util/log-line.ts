/**
 * Text as lines the runner reads no workflow command from, keeping its line breaks and tabs:
 * other control characters become visible escapes (no terminal sequence passes), and the older
 * `##[name ...]` command, read anywhere in a line, is broken up. A line's start (`::name ...::`)
 * is the caller's to guard: `plainLine` escapes it, an answer printed behind a prefix has none.
 */
export function inertLines(text: string): string {
  return visibleControls(text, "\t\n").replace(/##\[/g, "##\\[");
}

/**
 * Control and line-separator characters other than those `kept`, as visible `\uXXXX` escapes:
 * no terminal sequence passes.
 */
export function visibleControls(text: string, kept: string): string {
  return text.replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, (c) =>
    kept.includes(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * Text (from a playbook file, its name or an input) as one plain log line that the runner does
 * not read as a workflow command: it processes `::name ...::` at the start of a line (after
 * leading whitespace) and the older `##[name ...]` anywhere in one. Line breaks and other
 * control characters become visible escapes, so a value cannot start a line of its own.
 */
export function plainLine(text: string): string {
  const one = inertLines(text.replace(/\r/g, "\\r").replace(/\n/g, "\\n"));
  return /^\s*::/.test(one) ? one.replace(/::/, "\\::") : one;
}

/**
 * Text of any number of lines (a comment's body, a line describing an effect) as a terminal and
 * a GitHub Actions runner may safely be shown it: `inertLines`, and a line that would start with
 * `::` after its leading whitespace has that `::` escaped, so no line is a workflow command.
 */
export function terminalLines(text: string): string {
  return inertLines(text.replace(/\r\n/g, "\n"))
    .split("\n")
    .map((line) => (/^\s*::/.test(line) ? line.replace(/::/, "\\::") : line))
    .join("\n");
}
