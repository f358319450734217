/**
 * The little Markdown the schema's descriptions and the hover text are written in, as DOM nodes:
 * paragraphs, `- ` lists, fenced examples, `inline code`, **bold** and [links](…) shown as their
 * text. Nothing is parsed as HTML: every piece of text becomes a text node.
 */

/** Inline Markdown: code spans, bold and links (their text only), the rest as text. */
export function inlineNodes(text: string): Node[] {
  const out: Node[] = [];
  const pattern = /(`+)([^]*?[^`])\1(?!`)|\*\*([^*]+)\*\*|\[([^\]]+)\]\([^)\s]*\)/g;
  let at = 0;
  for (const m of text.matchAll(pattern)) {
    if (m.index > at) out.push(document.createTextNode(text.slice(at, m.index)));
    if (m[2] !== undefined) {
      const code = document.createElement("code");
      code.textContent = m[2].trim() === "" ? m[2] : m[2].replace(/^ (.*) $/, "$1");
      out.push(code);
    } else if (m[3] !== undefined) {
      const bold = document.createElement("strong");
      bold.textContent = m[3];
      out.push(bold);
    } else out.push(document.createTextNode(m[4] ?? ""));
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push(document.createTextNode(text.slice(at)));
  return out;
}

/** Fenced blocks (an example), then blocks separated by blank lines: a paragraph, or a list. */
export function markdownNodes(markdown: string): HTMLElement {
  const box = document.createElement("div");
  box.className = "pb-markdown";
  const parts = markdown.split(/^```[^\n]*\n([^]*?)^```[ \t]*$/m);
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      const pre = document.createElement("pre");
      pre.textContent = part.replace(/\n$/, "");
      box.append(pre);
    } else box.append(...textBlocks(part));
  });
  return box;
}

/** Blocks separated by blank lines: a paragraph, or a list when every line starts with `- `. */
function textBlocks(markdown: string): HTMLElement[] {
  const out: HTMLElement[] = [];
  for (const block of markdown.split(/\n\s*\n/)) {
    const lines = block.split("\n").filter((l) => l.trim() !== "");
    if (lines.length === 0) continue;
    if (lines.every((l) => /^\s*[-*] /.test(l))) {
      const list = document.createElement("ul");
      for (const l of lines) {
        const item = document.createElement("li");
        item.append(...inlineNodes(l.replace(/^\s*[-*] /, "")));
        list.append(item);
      }
      out.push(list);
    } else {
      const p = document.createElement("p");
      p.append(...inlineNodes(lines.join(" ")));
      out.push(p);
    }
  }
  return out;
}
