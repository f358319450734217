/**
 * A playbook author's own Markdown (an end's advice, such as Triagent's terminal advice) as blocks
 * of a comment, so that its paragraphs, lists, emphasis and code keep their form.
 */
import type { Nodes, PhrasingContent } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { code, text, type Block } from "./comment.js";

/** A link GitHub would turn into a cross-reference: an issue, pull request or discussion. */
const GITHUB_THREAD =
  /^https?:\/\/(?:www\.)?github\.com\/[^/\s]+\/[^/\s]+\/(?:issues|pull|discussions)(?:[/?#]|$)/i;

/**
 * The author's Markdown, read as CommonMark (no tables, and a bare URL is no link). The comment
 * builder hardens whatever the tree holds (HTML is text, mentions and `#12` are broken, links go to
 * http(s) only); a link into a GitHub thread is shown as its address, never made.
 */
export function authorMarkdown(value: string): Block[] {
  return withoutThreadLinks(fromMarkdown(value)).children;
}

function withoutThreadLinks<T extends Nodes>(node: T): T {
  if (!("children" in node)) return node;
  const children = (node.children as Nodes[]).flatMap((child): Nodes[] => {
    if (child.type !== "link" || !GITHUB_THREAD.test(child.url)) return [withoutThreadLinks(child)];
    const shown = [code(child.url)];
    const label = child.children.map((c) => withoutThreadLinks(c) as PhrasingContent);
    const sameAsUrl =
      label.length === 1 && label[0]?.type === "text" && label[0].value === child.url;
    return sameAsUrl ? shown : [...label, text(" ("), ...shown, text(")")];
  });
  return { ...node, children } as T;
}
