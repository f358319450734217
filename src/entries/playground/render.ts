/**
 * Comments as the playground's page shows them: Markdown (GitHub's flavour, line breaks kept) to
 * HTML the way GitHub renders a thread — HTML written in a comment is parsed, then everything outside
 * GitHub's allowed set (scripts, event handlers, `javascript:` links, styles, HTML comments) is
 * dropped by hast-util-sanitize's GitHub schema. Comments are people's text (and the bot's,
 * which quotes people): nothing in them may run in the page.
 */
import { raw } from "hast-util-raw";
import { defaultSchema, sanitize } from "hast-util-sanitize";
import { toHtml } from "hast-util-to-html";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { newlineToBreak } from "mdast-util-newline-to-break";
import { toHast } from "mdast-util-to-hast";
import { gfm } from "micromark-extension-gfm";

/** Comments longer than GitHub allows are cut before rendering (GitHub refuses them anyway). */
const MAX_COMMENT_CHARS = 65_536;

/** A comment's Markdown as safe HTML. */
export function commentHtml(markdown: string): string {
  const text =
    markdown.length > MAX_COMMENT_CHARS ? markdown.slice(0, MAX_COMMENT_CHARS) : markdown;
  const mdast = fromMarkdown(text, {
    extensions: [gfm()],
    mdastExtensions: [gfmFromMarkdown()],
  });
  // GitHub keeps a comment's line breaks (a status comment's lines are separate lines).
  newlineToBreak(mdast);
  const hast = raw(toHast(mdast, { allowDangerousHtml: true }));
  return toHtml(sanitize(hast, defaultSchema));
}
