import type { Nodes, Parents } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { spans } from "../../core/markdown/replies.js";
import { inertLines } from "../../core/util/log-line.js";

/**
 * Text meant for a GitHub comment, as a terminal shows it: the same words without Markdown's
 * marks. Bold and code become their text, a link its label with the address after it, a list
 * item a `-` line, a quote a `│ ` line, and a hidden marker or HTML tag nothing. Control
 * characters other than line breaks and tabs are shown as escapes, so no value inside the text
 * sends a terminal sequence.
 */
export function markdownToPlain(markdown: string): string {
  const blocks = blocksOf(fromMarkdown(markdown));
  return inertLines(blocks.join("\n").replace(/\u200b/g, ""));
}

/**
 * A short app-written string with `` `code` `` and `**bold**` marks (a refusal reason), plain.
 * The zero-width spaces that keep its mentions inert on GitHub are left out here, as they are above.
 */
export function spansToPlain(value: string): string {
  return inertLines(
    spans(value)
      .map(inlineText)
      .join("")
      .replace(/\u200b/g, ""),
  );
}

function blocksOf(parent: Parents): string[] {
  const out: string[] = [];
  for (const node of parent.children) out.push(...blockLines(node));
  return out;
}

function blockLines(node: Nodes): string[] {
  switch (node.type) {
    case "list":
      return node.children.flatMap((item, i) => {
        const bullet = node.ordered ? `${(node.start ?? 1) + i}. ` : "- ";
        const check = item.checked === true ? "[x] " : item.checked === false ? "[ ] " : "";
        const [first = "", ...rest] = blocksOf(item).flatMap((b) => b.split("\n"));
        const indent = " ".repeat(bullet.length);
        return [`${bullet}${check}${first}`, ...rest.map((l) => (l ? indent + l : l))];
      });
    case "blockquote":
      return blocksOf(node)
        .flatMap((b) => b.split("\n"))
        .map((l) => `│ ${l}`.trimEnd());
    case "code":
      return node.value.split("\n").map((l) => (l ? `    ${l}` : l));
    case "thematicBreak":
      return ["—"];
    case "html": {
      const shown = stripTags(node.value);
      return shown.trim() ? [shown] : [];
    }
    case "definition":
      return [];
    default: {
      const text = inlineText(node);
      return text === "" ? [] : [text];
    }
  }
}

/** The text of inline content (and of any block whose text is all it has). */
function inlineText(node: Nodes): string {
  switch (node.type) {
    case "text":
    case "inlineCode":
      return node.value;
    case "break":
      return "\n";
    case "html":
      return stripTags(node.value);
    case "image":
      return node.alt ?? "";
    case "link": {
      const label = node.children.map(inlineText).join("");
      return label === "" || label === node.url ? node.url : `${label} (${node.url})`;
    }
    default:
      return "children" in node ? node.children.map(inlineText).join("") : "";
  }
}

/** HTML the app writes (a `<details>`, a hidden marker) as the words in it. */
function stripTags(html: string): string {
  return html.replace(/<!--[\s\S]*?-->/g, "").replace(/<[^>]*>/g, "");
}
