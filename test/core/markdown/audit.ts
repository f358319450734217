import { expect } from "vitest";
import type { Nodes, Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";

/** Markdown as a GFM parser (GitHub's dialect) reads it. */
export function parse(markdown: string): Root {
  return fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
}

/**
 * What GitHub would make live in text, stricter than GitHub itself: an `@` directly followed by
 * a login character (a mention, a team, an e-mail autolink), `#` followed by a digit (`#12`,
 * `owner/repo#12`), or `GH-12`.
 */
export const LIVE_MENTION = /@[A-Za-z0-9_-]/;
export const LIVE_REFERENCE = /#[0-9]|\bGH-[0-9]/i;

/** HTML the renderers write themselves; nothing else may parse as HTML. */
export const OWN_HTML = [
  /^<details><summary>[^<>]*<\/summary>$/,
  /^<\/details>$/,
  /^<!-- playbook-bot:(state|alert) [A-Za-z0-9_.:\- ]+ -->$/,
];

export interface Audit {
  tree: Root;
  html: string[];
  links: string[];
  /** Text of each paragraph, heading or cell (code and links stand as a space). */
  text: string[];
  /** The text of each link. */
  linkText: string[];
  tables: { columns: number; rows: number[] }[];
}

const PHRASING_PARENTS = new Set(["paragraph", "heading", "tableCell"]);

/** Everything a comment parses into that matters for what GitHub would make of it. */
export function audit(markdown: string): Audit {
  const tree = parse(markdown);
  const out: Audit = { tree, html: [], links: [], text: [], linkText: [], tables: [] };
  // GitHub looks for mentions in each run of text; code and links end a run.
  const flatten = (n: Nodes, acc: { text: string }): void => {
    if (n.type === "text") {
      acc.text += n.value;
      return;
    }
    if (n.type === "inlineCode" || n.type === "break") {
      acc.text += " ";
      return;
    }
    if (n.type === "image" || n.type === "imageReference")
      throw new Error(`an image: ${JSON.stringify(n)}`);
    if (n.type === "html") out.html.push(n.value);
    if (n.type === "link") {
      out.links.push(n.url);
      const label = { text: "" };
      for (const c of n.children) flatten(c, label);
      out.linkText.push(label.text);
      acc.text += " ";
      return;
    }
    if ("children" in n) for (const c of n.children as Nodes[]) flatten(c, acc);
  };
  const walk = (n: Nodes): void => {
    if (
      [
        "image",
        "imageReference",
        "linkReference",
        "definition",
        "footnoteReference",
        "footnoteDefinition",
      ].includes(n.type)
    )
      throw new Error(`unexpected ${n.type}: ${JSON.stringify(n)}`);
    if (n.type === "html") out.html.push(n.value);
    if (n.type === "table")
      out.tables.push({
        columns: n.align?.length ?? 0,
        rows: n.children.map((r) => r.children.length),
      });
    if (PHRASING_PARENTS.has(n.type)) {
      const acc = { text: "" };
      for (const c of (n as Extract<Nodes, { children: unknown }>).children as Nodes[])
        flatten(c, acc);
      out.text.push(acc.text);
      return;
    }
    if ("children" in n) for (const c of n.children as Nodes[]) walk(c);
  };
  walk(tree);
  return out;
}

export interface Expect {
  /** Mentions that are meant to be live (`@bob`), found as whole words. */
  mentions?: string[];
  /** Issue references that are meant to be live (`#7`). */
  references?: string[];
  /** How many `<details>` sections the renderer writes. */
  details?: number;
  /** The hidden markers the renderer writes (state or alert blocks). */
  markers?: number;
  /** Thread anchors allowed as link destinations. */
  anchors?: boolean;
}

/** Asserts that a rendered comment is inert apart from what the renderer writes on purpose. */
export function expectInert(markdown: string, want: Expect = {}): Audit {
  const a = audit(markdown);
  const context = `in:\n${markdown}`;
  // Only the renderer's own HTML, with details balanced.
  for (const h of a.html)
    expect(
      OWN_HTML.some((re) => re.test(h)),
      `html ${JSON.stringify(h)} ${context}`,
    ).toBe(true);
  let depth = 0;
  let opened = 0;
  for (const h of a.html) {
    if (h.startsWith("<details>")) {
      depth++;
      opened++;
    } else if (h === "</details>") depth--;
    expect(depth, context).toBeGreaterThanOrEqual(0);
  }
  expect(depth, context).toBe(0);
  if (want.details !== undefined) expect(opened, context).toBe(want.details);
  const markers = a.html.filter((h) => h.startsWith("<!--")).length;
  expect(markers, context).toBe(want.markers ?? 0);
  // A raw search of the body (as the bot does for its markers) finds only the real ones.
  expect(markdown.split("<!--").length - 1, context).toBe(markers);
  // Links only to http(s) (or an anchor in the thread, where allowed).
  for (const url of a.links)
    expect(
      /^https?:\/\//i.test(url) || (want.anchors === true && /^#issuecomment-[0-9]+$/.test(url)),
      `link ${url} ${context}`,
    ).toBe(true);
  // No live mention or reference in text, except those meant.
  const allowedMention = new RegExp(
    `(^|[^A-Za-z0-9_-])(${(want.mentions ?? []).map((m) => m.replace(/[/]/g, "\\/")).join("|") || "(?!)"})(?![A-Za-z0-9_/-])`,
    "g",
  );
  const allowedReference = new RegExp(
    `(^|[^A-Za-z0-9_/])(${(want.references ?? []).join("|") || "(?!)"})(?![0-9])`,
    "g",
  );
  for (const t of [...a.text, ...a.linkText]) {
    const rest = t.replace(allowedMention, "$1");
    expect(LIVE_MENTION.test(rest), `mention in ${JSON.stringify(t)} ${context}`).toBe(false);
  }
  for (const t of a.text) {
    const rest = t.replace(allowedMention, "$1").replace(allowedReference, "$1");
    expect(LIVE_REFERENCE.test(rest), `reference in ${JSON.stringify(t)} ${context}`).toBe(false);
  }
  // Every table row has the header's cells.
  for (const t of a.tables) for (const r of t.rows) expect(r, context).toBe(t.columns);
  return a;
}
