/**
 * Comments as a Markdown syntax tree. Every string handed to a builder ends up in a text or code
 * node, which the serializer escapes; what Markdown escaping leaves live on GitHub (mentions,
 * issue references, HTML comment markers) is broken with a zero-width space. Live mentions and
 * references, raw HTML and links exist only where a dedicated builder makes them.
 */
import type {
  Blockquote,
  Code,
  Emphasis,
  Heading,
  Html,
  InlineCode,
  List,
  ListItem,
  Nodes,
  Paragraph,
  PhrasingContent,
  Root,
  RootContent,
  Strong,
  Table,
  TableCell,
  TableRow,
  Text,
  ThematicBreak,
} from "mdast";
import { toMarkdown, type Handle, type Options, type SafeConfig } from "mdast-util-to-markdown";
import { gfmToMarkdown } from "mdast-util-gfm";
import { LruMap } from "../util/lru.js";

declare module "mdast" {
  interface TextData {
    /** A mention or issue reference meant to be live; only `mention`, `team` and `issueRef` set it. */
    playbookIntended?: true;
  }
  interface HtmlData {
    /** HTML written by this module (details tags, hidden markers); any other HTML becomes text. */
    playbookTrusted?: true;
  }
}

export type Inline = PhrasingContent;
export type Block = RootContent;
/** A string is text (neutralised); arrays are flattened. */
export type InlineLike = Inline | string | readonly InlineLike[];
export type BlockLike = Block | readonly BlockLike[];

const ZWSP = "\u200b";

/** A GitHub login, as GitHub allows them. */
export const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
/** A team as `org/slug`. */
export const TEAM = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/**
 * What Markdown escaping alone leaves live on GitHub, made inert: `@user` and `@org/team`
 * mentions (and `a@b.c` autolinks), `#12`, `owner/repo#12` and `GH-12` references, bare URLs
 * (GitHub links `https://…` and `www.…` in text even when escaped, and a link to an issue is a
 * reference too; links come only from `link`), and HTML comment markers (the bot finds its state
 * and alert markers by searching the raw body). Idempotent.
 */
export function neutralize(value: string): string {
  return neutralizeText(value, true);
}

/** `neutralize`, but bare URLs may stay as they are (in a link's text, nothing links again). */
function neutralizeText(value: string, urls: boolean): string {
  const out = value
    .replace(/\r\n?/g, "\n")
    .replace(/\0/g, "\ufffd")
    // Every @ is broken off what follows: even text that only becomes a name once the comment is
    // rendered (emphasis the serializer forms around it) never mentions anyone.
    .replace(/@(?!\u200b)/g, `@${ZWSP}`)
    .replace(/#(?=[0-9])/g, `#${ZWSP}`)
    .replace(/(gh)-(?=[0-9])/gi, `$1-${ZWSP}`)
    .replace(/<!--/g, `<!${ZWSP}--`)
    .replace(/--(?=!?>)/g, `-${ZWSP}-`);
  return urls
    ? out.replace(/(https?):(?=\/\/)/gi, `$1:${ZWSP}`).replace(/(www)\./gi, `$1${ZWSP}.`)
    : out;
}

/**
 * Code keeps its text (GitHub links nothing in code, and a Mermaid chart needs its `-->`) but
 * never opens an HTML comment, which a search of the raw body could take for a marker.
 */
function neutralizeCode(value: string): string {
  return value.replace(/\r\n?/g, "\n").replace(/\0/g, "\ufffd").replace(/<!--/g, `<!${ZWSP}--`);
}

function flat(value: string): string {
  return value.replace(/\s*[\r\n]+\s*/g, " ");
}

/** Text for HTML (a details summary): neutralised, escaped, on one line. */
export function escapeHtml(value: string): string {
  return flat(neutralize(value))
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

const ANCHOR = /^#[A-Za-z0-9_-]{1,100}$/;

// ---- inline builders ----

/** Text from anywhere (people, alerts, playbooks, the app): escaped and neutralised. */
export function text(value: string): Text {
  return { type: "text", value: neutralize(value) };
}

/** The same as `text`; the name says that the value comes from outside. */
export const untrusted = text;

function inlines(children: readonly InlineLike[]): Inline[] {
  const out: Inline[] = [];
  for (const c of children) {
    if (typeof c === "string") out.push(text(c));
    else if (Array.isArray(c)) out.push(...inlines(c as readonly InlineLike[]));
    else out.push(c as Inline);
  }
  return out;
}

function blocks(children: readonly BlockLike[]): Block[] {
  const out: Block[] = [];
  for (const c of children) {
    if (Array.isArray(c)) out.push(...blocks(c as readonly BlockLike[]));
    else out.push(c as Block);
  }
  return out;
}

export function strong(...children: InlineLike[]): Strong {
  return { type: "strong", children: inlines(children) };
}

export function emphasis(...children: InlineLike[]): Emphasis {
  return { type: "emphasis", children: inlines(children) };
}

/** Inline code (ids, commands); one line. */
export function code(value: string): InlineCode {
  return { type: "inlineCode", value: flat(neutralizeCode(value)) };
}

/** The destination when `url` is an absolute http(s) URL fit for a link, else undefined. */
export function safeUrl(url: string): string | undefined {
  if (url.length > 4096) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
  // As written when plainly written (so it reads back the same), otherwise the parsed form, which
  // has no spaces, angle brackets or control characters; `|` is encoded so that no table reads a
  // cell boundary into it.
  const plain =
    /^https?:\/\/[^\s<>"`|\\]+$/i.test(url) &&
    ![...url].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
  if (plain) return url;
  return parsed.href.replace(/\|/g, "%7C");
}

/**
 * A link, only to an http(s) URL; any other destination is shown as text beside the label, so a
 * `javascript:` or relative URL never becomes clickable.
 */
export function link(url: string, ...label: InlineLike[]): Inline | Inline[] {
  // Without a label the URL is the label; in a link's text it is not broken (an autolink).
  const children: Inline[] = label.length ? inlines(label) : [{ type: "text", value: url }];
  const href = safeUrl(url);
  if (href === undefined) return [...children, text(" ("), code(url), text(")")];
  return { type: "link", url: href, children };
}

/** A link within the thread (`#issuecomment-123`): an anchor made of safe characters only. */
export function anchorLink(anchor: string, ...label: InlineLike[]): Inline | Inline[] {
  const children = inlines(label);
  if (!ANCHOR.test(`#${anchor}`)) return children;
  return { type: "link", url: `#${anchor}`, children };
}

function intended(value: string): Text {
  return { type: "text", value, data: { playbookIntended: true } };
}

/** A live `@login` for a validated login (an approver named by a playbook); anything else is inert. */
export function mention(login: string): Text {
  return LOGIN.test(login) ? intended(`@${login}`) : text(`@${login}`);
}

/** A live `@org/team` for a validated team; anything else is inert. */
export function teamMention(team: string): Text {
  return TEAM.test(team) ? intended(`@${team}`) : text(`@${team}`);
}

/** A live `#N` reference to an issue or pull request of this repository. */
export function issueRef(n: number): Text {
  return Number.isSafeInteger(n) && n > 0 ? intended(`#${n}`) : text(`#${String(n)}`);
}

// ---- block builders ----

export function paragraph(...children: InlineLike[]): Paragraph {
  return { type: "paragraph", children: inlines(children) };
}

/** A paragraph of lines (one line each in GitHub comments). */
export function lines(...rows: InlineLike[][]): Paragraph {
  const children: Inline[] = [];
  rows.forEach((row, i) => {
    if (i > 0) children.push({ type: "text", value: "\n" });
    children.push(...inlines(row));
  });
  return { type: "paragraph", children };
}

export function heading(depth: 1 | 2 | 3 | 4 | 5 | 6, ...children: InlineLike[]): Heading {
  return { type: "heading", depth, children: inlines(children) };
}

export function quote(...children: BlockLike[]): Blockquote {
  return { type: "blockquote", children: blocks(children) as Blockquote["children"] };
}

/** A code block's language, as a fence's info string may name it. */
const LANG = /^[A-Za-z0-9_+-]{1,30}$/;

/** A fenced code block; the fence is longer than any run of backticks in the value. */
export function codeBlock(value: string, lang?: string): Code {
  const node: Code = { type: "code", value: neutralizeCode(value).replace(/\n+$/, "") };
  if (lang !== undefined && LANG.test(lang)) node.lang = lang;
  return node;
}

export interface Item {
  content: InlineLike | BlockLike[];
  /** A task list item: `[x]` or `[ ]`. */
  checked?: boolean;
}

function listItem(item: Item | InlineLike): ListItem {
  const it: Item =
    typeof item === "object" && item !== null && !Array.isArray(item) && "content" in item
      ? (item as Item)
      : { content: item as InlineLike };
  const content = it.content;
  const isBlocks =
    Array.isArray(content) &&
    content.length > 0 &&
    content.every((c) => typeof c === "object" && !Array.isArray(c) && isBlock(c as Nodes));
  const children = isBlocks
    ? (blocks(content as BlockLike[]) as ListItem["children"])
    : [paragraph(content as InlineLike)];
  const node: ListItem = { type: "listItem", spread: false, children };
  if (it.checked !== undefined) node.checked = it.checked;
  return node;
}

const BLOCK_TYPES = new Set([
  "paragraph",
  "heading",
  "thematicBreak",
  "blockquote",
  "list",
  "table",
  "html",
  "code",
]);

function isBlock(n: Nodes): boolean {
  return BLOCK_TYPES.has(n.type);
}

/** A tight bullet list (or numbered, with `ordered`); items are inline content or blocks. */
export function list(items: readonly (Item | InlineLike)[], ordered = false): List {
  return { type: "list", ordered, spread: false, children: items.map(listItem) };
}

/** A task list: `- [x] done`, `- [ ] to do`. */
export function checklist(items: readonly { checked: boolean; content: InlineLike }[]): List {
  return list(items.map((i) => ({ checked: i.checked, content: i.content })));
}

export type Cell = InlineLike;

/**
 * A GFM table. Every row has the header's number of cells (missing ones are empty, extra ones
 * dropped); cell text is kept on one line and `|` is escaped by the serializer.
 */
export function table(
  header: readonly Cell[],
  rows: readonly (readonly Cell[])[],
  align?: readonly ("left" | "right" | "center" | null)[],
): Table {
  const width = header.length;
  const row = (cells: readonly Cell[]): TableRow => ({
    type: "tableRow",
    children: Array.from({ length: width }, (_, i): TableCell => ({
      type: "tableCell",
      children: inlines([cells[i] ?? ""]),
    })),
  });
  return {
    type: "table",
    align: Array.from({ length: width }, (_, i) => align?.[i] ?? null),
    children: [row(header), ...rows.map(row)],
  };
}

export function rule(): ThematicBreak {
  return { type: "thematicBreak" };
}

function trustedHtml(value: string): Html {
  return { type: "html", value, data: { playbookTrusted: true } };
}

/**
 * A collapsed section. The tags are written here, the summary is escaped text, and the content
 * is Markdown blocks, so text cannot open or close a `<details>` of its own.
 */
export function details(summary: string, ...children: BlockLike[]): Block[] {
  return [
    trustedHtml(`<details><summary>${escapeHtml(summary)}</summary>`),
    ...blocks(children),
    trustedHtml("</details>"),
  ];
}

const HIDDEN_MARKER = /^<!-- [A-Za-z0-9:._/=+-]+(?: [A-Za-z0-9:._/=+-]+)* -->$/;

/**
 * A hidden marker written by this app (a state block, an alert or effect marker). Never pass it
 * text from people, alerts or playbooks: only app-generated tokens (ids, hashes, signed state).
 * Anything that is not one HTML comment of such tokens throws.
 */
export function raw(marker: string): Html {
  if (!HIDDEN_MARKER.test(marker) || marker.slice(4, -4).includes("--"))
    throw new Error("raw() takes only a hidden marker made of app-generated tokens");
  return trustedHtml(marker);
}

// ---- serializing ----

/**
 * Text as the serializer escapes it, remembered: escaping runs every unsafe pattern over the text
 * (most of a comment's rendering time), and a status comment says the same things again and again
 * (headers, step ids, statuses). The escaped text depends only on the text, the constructs around
 * it, the characters and nodes on either side and what must be encoded, so those are the key.
 */
const escapedTexts = new LruMap<string, string>(5000);
let remembering = true;

/** Whether escaped text is remembered (on by default); tests compare with the serializer's own. */
export function rememberEscapedText(on: boolean): void {
  remembering = on;
  escapedTexts.clear();
}

const rememberedText: Handle = (node, parent, state, info) => {
  const siblings = (parent?.children ?? []) as Nodes[];
  // As the serializer's text handler finds them (no index: neither).
  const index = state.indexStack.at(-1) ?? Number.NaN;
  const beforeNode = siblings[index - 1];
  const afterNode = siblings[index + 1];
  const value = (node as Text).value;
  // As the serializer's own text handler escapes it.
  const escape = () => state.safe(value, { ...info, beforeNode, afterNode });
  if (!remembering) return escape();
  const key = [
    state.stack.join(" "),
    info.before,
    info.after,
    // Handlers may pass characters to encode along with the surroundings.
    (info as SafeConfig).encode?.join("") ?? "",
    beforeNode?.type ?? "",
    afterNode?.type ?? "",
    value,
  ].join("\0");
  let escaped = escapedTexts.get(key);
  if (escaped === undefined) {
    escaped = escape();
    escapedTexts.set(key, escaped);
  }
  return escaped;
};

const OPTIONS: Options = {
  handlers: { text: rememberedText },
  bullet: "-",
  bulletOther: "*",
  emphasis: "_",
  strong: "*",
  fence: "`",
  fences: true,
  listItemIndent: "one",
  rule: "-",
  extensions: [gfmToMarkdown({ tablePipeAlign: false })],
  // GitHub renders `$…$` and `$$…$$` as math: text could look like large, coloured words of the
  // bot's own. Every `$` in text (paragraphs, headings, table cells, a link's text) is escaped.
  unsafe: [
    {
      character: "$",
      inConstruct: "phrasing",
      notInConstruct: ["destinationLiteral", "destinationRaw", "titleApostrophe", "titleQuote"],
    },
  ],
  // A bullet list follows the line that introduces it ("Next actions:") without a blank line.
  join: [
    (left, right) =>
      left.type === "paragraph" &&
      right.type === "list" &&
      !right.ordered &&
      left.children.at(-1)?.type === "text" &&
      /:$/.test((left.children.at(-1) as Text).value)
        ? 0
        : undefined,
  ],
};

type Parent = Extract<Nodes, { children: unknown }>;

const BOUNDARY = /[A-Za-z0-9_/-]/;
const FLOW_PARENTS = new Set(["root", "blockquote", "listItem"]);

/**
 * Make a tree safe to post, whoever built it: adjacent text is joined and neutralised (so two
 * harmless halves cannot form a mention or marker), code loses HTML comment markers, HTML not
 * written by this module becomes text, images become their alt text, links go to http(s) only,
 * and table cells stay on one line.
 */
function harden(node: Nodes, inCell: boolean, inLink = false): Nodes {
  switch (node.type) {
    case "text":
      return node;
    case "inlineCode": {
      // An empty code span is written as a bare "``", which would pair with a later one.
      const value = flat(neutralizeCode(node.value));
      return value === "" ? text("") : { ...node, value };
    }
    case "code": {
      // A fence's info string is kept only when it is a language name (never `<!--`).
      const fenced: Code = { type: "code", value: neutralizeCode(node.value) };
      if (node.lang && LANG.test(node.lang)) fenced.lang = node.lang;
      return fenced;
    }
    case "html":
      return node.data?.playbookTrusted ? node : text(node.value);
    case "image":
    case "imageReference":
      return text(node.alt ?? "");
    case "break":
      return inCell ? text(" ") : node;
    default:
      break;
  }
  if (!("children" in node)) return node;
  const parent = node as Parent;
  const cell = inCell || parent.type === "tableCell" || parent.type === "heading";
  const kids: Nodes[] = [];
  for (const child of parent.children as Nodes[]) {
    if (child.type === "link") {
      const href = safeUrl(child.url) ?? (ANCHOR.test(child.url) ? child.url : undefined);
      const label = hardenChildren(child.children, cell, href !== undefined);
      if (href === undefined) kids.push(...label, text(" ("), code(child.url), text(")"));
      else if (namesAnotherHost(plainText(child.children), href)) {
        // The label stays as text and the destination is shown, as the link itself.
        const shown = hardenChildren([{ type: "text", value: href }], cell, true);
        kids.push(...hardenChildren(child.children, cell, false), text(" ("));
        kids.push({ type: "link", url: href, children: shown }, text(")"));
      } else kids.push({ type: "link", url: href, children: label });
      continue;
    }
    if (child.type === "linkReference") {
      kids.push(...hardenChildren(child.children, cell, false));
      continue;
    }
    if (child.type === "definition" || child.type === "footnoteDefinition") continue;
    if (child.type === "html" && !child.data?.playbookTrusted && FLOW_PARENTS.has(parent.type)) {
      kids.push(paragraph(child.value));
      continue;
    }
    if (child.type === "footnoteReference") {
      kids.push(text(`[^${child.identifier}]`));
      continue;
    }
    kids.push(harden(child, cell, inLink));
  }
  return { ...parent, children: joinText(kids, cell, inLink) } as Nodes;
}

/** The words of inline content, without the zero-width spaces that neutralising put in. */
function plainText(nodes: readonly Nodes[]): string {
  return nodes
    .map((n) =>
      "value" in n && typeof n.value === "string"
        ? n.value
        : "children" in n
          ? plainText(n.children as Nodes[])
          : "",
    )
    .join("")
    .replace(/\u200b/g, "");
}

/** Host names and URLs as a link's label may show them (`grafana.example.com`, `https://…`). */
const SHOWN_HOST = /(?:\b[a-z][a-z0-9+.-]*:\/\/)?((?:[a-z0-9-]+\.)+[a-z]{2,})(?![a-z0-9-])/gi;

/**
 * Whether a link's label reads as an address on another host than the link goes to, so that it
 * would show one address and go to another (`[https://grafana.example.com](https://evil.example)`).
 */
function namesAnotherHost(label: string, href: string): boolean {
  let host: string;
  try {
    host = new URL(href, "https://github.com").hostname.toLowerCase();
  } catch {
    return true;
  }
  const bare = (h: string) => h.toLowerCase().replace(/^www\./, "");
  for (const m of label.matchAll(SHOWN_HOST)) if (bare(m[1] ?? "") !== bare(host)) return true;
  return false;
}

function hardenChildren(children: readonly Inline[], inCell: boolean, inLink: boolean): Inline[] {
  const parent = harden(
    { type: "paragraph", children: [...children] },
    inCell,
    inLink,
  ) as Paragraph;
  return parent.children;
}

/** Join runs of ordinary text, neutralise them, and keep intended mentions from running into text. */
function joinText(kids: Nodes[], inCell: boolean, inLink: boolean): Nodes[] {
  const out: Nodes[] = [];
  for (const k of kids) {
    const prev = out[out.length - 1];
    if (
      k.type === "text" &&
      !k.data?.playbookIntended &&
      prev?.type === "text" &&
      !prev.data?.playbookIntended
    ) {
      prev.value += k.value;
      continue;
    }
    out.push(k.type === "text" ? { ...k } : k);
  }
  for (let i = 0; i < out.length; i++) {
    const k = out[i] as Nodes;
    if (k.type !== "text") continue;
    if (!k.data?.playbookIntended) {
      k.value = neutralizeText(k.value, !inLink);
      if (inCell) k.value = flat(k.value);
      continue;
    }
    const before = out[i - 1];
    const after = out[i + 1];
    if (before?.type === "text" && BOUNDARY.test(before.value.slice(-1))) before.value += ZWSP;
    if (after?.type === "text" && BOUNDARY.test(after.value.slice(0, 1)))
      after.value = ZWSP + after.value;
  }
  return out;
}

/** The Markdown of a comment built from blocks (GFM: tables, task lists), without a final newline. */
export function renderMarkdown(...children: BlockLike[]): string {
  const root: Root = { type: "root", children: blocks(children) };
  return toMarkdown(harden(root, false) as Root, OPTIONS).replace(/\n$/, "");
}
