/**
 * Text (from a playbook file, its name or an input) as one plain log line that the runner does
 * not read as a workflow command: it processes `::name ...::` at the start of a line (after
 * leading whitespace) and the older `##[name ...]` anywhere in one. Line breaks and other
 * control characters become visible escapes, so a value cannot start a line of its own.
 */
export function plainLine(text: string): string {
  const one = text
    .replace(/\r/g, "\\r")
    .replace(/\n/g, "\\n")
    .replace(
      /(?!\t)[\p{Cc}\p{Zl}\p{Zp}]/gu,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    )
    .replace(/##\[/g, "##\\[");
  return /^\s*::/.test(one) ? one.replace(/::/, "\\::") : one;
}
