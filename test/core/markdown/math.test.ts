import { describe, expect, it } from "vitest";
import {
  code,
  heading,
  link,
  paragraph,
  renderMarkdown,
  table,
} from "../../../src/core/markdown/comment.js";

/**
 * GitHub renders `$…$` and `$$…$$` in comments as math (MathJax). Text from people — an echoed
 * command line, an issue title, an alert's summary or labels — must not render as LaTeX: large,
 * coloured words that look like the bot's own verdict.
 */
const HOSTILE = "$\\Huge\\color{green}\\textsf{Approved by the security team}$ and $$x$$";
const LIVE = /(^|[^\\])\$/;

describe("math in text nodes", () => {
  it("a paragraph's, heading's and table cell's text opens no math", () => {
    expect(renderMarkdown(paragraph(HOSTILE))).not.toMatch(LIVE);
    expect(renderMarkdown(heading(2, HOSTILE))).not.toMatch(LIVE);
    expect(renderMarkdown(table(["label"], [[HOSTILE]]))).not.toMatch(LIVE);
  });
  it("a link's text opens no math; its destination and code keep their `$`", () => {
    const md = renderMarkdown(paragraph(link("https://x.example/a$b", HOSTILE), code("$x$")));
    expect(md.replace(/\(https:\/\/x\.example\/a\$b\)/, "").replace("`$x$`", "")).not.toMatch(LIVE);
    expect(md).toContain("(https://x.example/a$b)");
    expect(md).toContain("`$x$`");
  });
});
