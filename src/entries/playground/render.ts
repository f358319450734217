/**
 * Comments as the playground's page shows them: Markdown (GitHub's flavour, line breaks kept) to
 * HTML the way GitHub renders a thread — HTML written in a comment is parsed, then everything outside
 * GitHub's allowed set (scripts, event handlers, `javascript:` links, styles, HTML comments) is
 * dropped by hast-util-sanitize's GitHub schema. Comments are people's text (and the bot's,
 * which quotes people): nothing in them may run in the page.
 *
 * The sandbox is not GitHub: a link to the sandbox repository's issue, pull request or comment on
 * github.com (the in-memory GitHub's `html_url`s) leads to it in the page instead, and a link to
 * anything else of the repository (a commit, a branch) is shown as its text. The bot breaks the
 * addresses it writes as text with a zero-width space, so that GitHub links nothing it did not
 * mean to; here they are read as written.
 */
import type { Element, Nodes, Root } from "hast";
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

/** The repository a sandbox shows: links to it on github.com stay in the page. */
export interface SandboxRepository {
  owner: string;
  name: string;
}

/**
 * An address the bot broke with a zero-width space (`https:\u200b//…`, `www\u200b.`), mended; a
 * mention or a reference it broke (`@\u200bcarol`, `#\u200b2`) joined instead, so that a line
 * never breaks inside it (and it still names no one, links nothing).
 */
function mendAddresses(text: string): string {
  return text
    .replace(/\b(https?):\u200b\/\//gi, "$1://")
    .replace(/\b(www)\u200b\./gi, "$1.")
    .replace(/([@#])\u200b/g, "$1\u2060");
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Where a link to the sandbox repository on github.com goes in the page, or null: nowhere. */
function sandboxHref(href: string, repo: SandboxRepository): string | null | undefined {
  const base = `https://github\\.com/${escapeRegExp(repo.owner)}/${escapeRegExp(repo.name)}`;
  if (!new RegExp(`^${base}(?:[/?#]|$)`, "i").test(href)) return undefined;
  const m = new RegExp(
    `^${base}/(issues|pull)/(\\d{1,9})(?:#issuecomment-(\\d{1,12}))?/?$`,
    "i",
  ).exec(href);
  if (!m) return null;
  if (m[3]) return `#issuecomment-${m[3]}`;
  return `#${m[1]?.toLowerCase() === "pull" ? "pull" : "issue"}-${m[2]}`;
}

/** Links to the sandbox repository on github.com made the page's own (see the module's comment). */
function keepInSandbox(node: Root | Element, repo: SandboxRepository): void {
  const kids: Nodes[] = [];
  for (const child of node.children) {
    if (child.type !== "element") {
      kids.push(child);
      continue;
    }
    keepInSandbox(child, repo);
    const href = child.tagName === "a" ? child.properties.href : undefined;
    const target = typeof href === "string" ? sandboxHref(href, repo) : undefined;
    if (target === null) kids.push(...(child.children as Nodes[]));
    else {
      if (target !== undefined) child.properties.href = target;
      kids.push(child);
    }
  }
  node.children = kids as typeof node.children;
}

/** A comment's Markdown as safe HTML; in a sandbox, its links to the repository stay in the page. */
export function commentHtml(markdown: string, sandbox?: SandboxRepository): string {
  const cut = markdown.length > MAX_COMMENT_CHARS ? markdown.slice(0, MAX_COMMENT_CHARS) : markdown;
  const text = sandbox ? mendAddresses(cut) : cut;
  const mdast = fromMarkdown(text, {
    extensions: [gfm()],
    mdastExtensions: [gfmFromMarkdown()],
  });
  // GitHub keeps a comment's line breaks (a status comment's lines are separate lines).
  newlineToBreak(mdast);
  const hast = raw(toHast(mdast, { allowDangerousHtml: true }));
  const safe = sanitize(hast, defaultSchema) as Root;
  if (sandbox) keepInSandbox(safe, sandbox);
  return toHtml(safe);
}
