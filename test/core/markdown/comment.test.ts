import { describe, expect, it } from "vitest";
import type { Root } from "mdast";
import {
  anchorLink,
  checklist,
  code,
  codeBlock,
  details,
  emphasis,
  escapeHtml,
  heading,
  issueRef,
  lines,
  link,
  list,
  mention,
  neutralize,
  paragraph,
  quote,
  raw,
  renderMarkdown,
  rule,
  safeUrl,
  strong,
  table,
  teamMention,
  text,
  untrusted,
} from "../../../src/core/markdown/index.js";
import { expectInert, parse } from "./audit.js";

const Z = "\u200b";

describe("neutralize", () => {
  it("breaks mentions, e-mail autolinks, references and HTML comment markers", () => {
    expect(neutralize("@user @org/team a@b.c @ x @-y")).toBe(
      `@${Z}user @${Z}org/team a@${Z}b.c @${Z} x @${Z}-y`,
    );
    // Even an @ before markup: the serializer may form emphasis around what follows it.
    expect(neutralize("@**- **")).toBe(`@${Z}**- **`);
    expect(neutralize("#12 acme/repo#3 GH-4 gh-5 # x #a")).toBe(
      `#${Z}12 acme/repo#${Z}3 GH-${Z}4 gh-${Z}5 # x #a`,
    );
    expect(neutralize("<!-- x --> y --!> <!---->")).toBe(
      `<!${Z}-- x -${Z}-> y -${Z}-!> <!${Z}---${Z}->`,
    );
    expect(neutralize("a\r\nb\rc\0")).toBe("a\nb\nc\ufffd");
  });

  it("is idempotent and leaves other text alone", () => {
    for (const s of ["@a #1 <!-- -->", "plain text, é 🚀", "", "--- >"])
      expect(neutralize(neutralize(s))).toBe(neutralize(s));
    expect(neutralize("plain text: 3 < 4 > 2 & done")).toBe("plain text: 3 < 4 > 2 & done");
  });

  it("leaves no comment marker whatever surrounds it", () => {
    for (const s of ["<!--", "<!---", "<!--->", "--->", "<<!--!--", "-->-->", "<!<!----"]) {
      const out = neutralize(s);
      expect(out).not.toContain("<!--");
      expect(out).not.toMatch(/--!?>/);
    }
  });
});

describe("inline builders", () => {
  it("text is escaped Markdown and neutralised; untrusted is the same builder", () => {
    expect(untrusted).toBe(text);
    const md = renderMarkdown(
      paragraph("*a* _b_ `c` [d](http://e) ![f](g) <b>h</b> <!-- i --> @j #1 | k"),
    );
    expect(md).toBe(
      `\\*a\\* \\_b\\_ \\\`c\\\` \\[d]\\(http:${Z}//e) !\\[f]\\(g) \\<b>h\\</b> \\<!${Z}-- i -${Z}-> @${Z}j #${Z}1 | k`,
    );
    // Read back, it is all one text node.
    const p = parse(md).children[0];
    expect(p?.type).toBe("paragraph");
    expect(p && "children" in p && p.children.map((c) => c.type)).toEqual(["text"]);
    expectInert(md);
  });

  it("strong, emphasis and code", () => {
    expect(renderMarkdown(paragraph(strong("a ", emphasis("b")), " ", code("c`d")))).toBe(
      "**a _b_** ``c`d``",
    );
    expect(renderMarkdown(paragraph(code("multi\nline <!-- x -->")))).toBe(
      `\`multi line <!${Z}-- x -->\``,
    );
  });

  it("links only to http(s); the URL reads back as given, a ')' included", () => {
    const url = "https://grafana.example/d/x?var=a)b&from=(now-1h)";
    const md = renderMarkdown(paragraph(link(url, "dash ] board")));
    expect(md).toBe(`[dash \\] board](https://grafana.example/d/x?var=a\\)b\\&from=\\(now-1h\\))`);
    expect(expectInert(md).links).toEqual([url]);
    for (const bad of [
      "javascript:alert(1)",
      "data:text/html,x",
      "//evil.example",
      "/relative",
      "x",
    ]) {
      const out = renderMarkdown(paragraph(link(bad, "label")));
      expect(expectInert(out).links).toEqual([]);
      expect(out).toContain("label");
    }
    // Spaces and angle brackets are written percent-encoded.
    expect(safeUrl("https://e.example/a b<c>")).toBe("https://e.example/a%20b%3Cc%3E");
    expect(safeUrl("HTTP://E.example/x")).toBe("HTTP://E.example/x");
    expect(safeUrl("ftp://x/y")).toBeUndefined();
    expect(safeUrl(`https://x/${"a".repeat(5000)}`)).toBeUndefined();
    // Without a label, the URL is the label (an autolink).
    expect(renderMarkdown(paragraph(link("https://r.example/disk")))).toBe(
      "<https://r.example/disk>",
    );
  });

  it("anchors in the thread, only made of safe characters", () => {
    expect(renderMarkdown(paragraph(anchorLink("issuecomment-12", "here")))).toBe(
      "[here](#issuecomment-12)",
    );
    expect(renderMarkdown(paragraph(anchorLink("x)(javascript:alert(1)", "here")))).toBe("here");
  });

  it("mentions and references only where meant, for valid names", () => {
    expect(renderMarkdown(paragraph("cc ", mention("bob"), " ", teamMention("acme/sre")))).toBe(
      "cc @bob @acme/sre",
    );
    expect(
      renderMarkdown(
        paragraph(mention("bad login"), " ", mention("-x"), " ", mention("a".repeat(40))),
      ),
    ).toBe(`@${Z}bad login @${Z}-x @${Z}${"a".repeat(40)}`);
    expect(renderMarkdown(paragraph(teamMention("acme"), " ", teamMention("acme/s re")))).toBe(
      `@${Z}acme @${Z}acme/s re`,
    );
    expect(renderMarkdown(paragraph("see ", issueRef(7)))).toBe("see #7");
    expect(
      renderMarkdown(paragraph(issueRef(0), " ", issueRef(1.5), " ", issueRef(Number.NaN))),
    ).toBe(`\\#${Z}0 #${Z}1.5 #NaN`);
  });

  it("an intended mention or reference does not run into the text beside it", () => {
    // `acme/repo` + `#7` would be another repository's issue; `@bob` + `-x` another user.
    expect(renderMarkdown(paragraph("acme/repo", issueRef(7), "9"))).toBe(`acme/repo${Z}#7${Z}9`);
    expect(renderMarkdown(paragraph(mention("bob"), "-x/y"))).toBe(`@bob${Z}-x/y`);
    expect(renderMarkdown(paragraph(mention("bob"), ", ", mention("carol")))).toBe("@bob, @carol");
  });

  it("adjacent text cannot assemble a mention or a marker", () => {
    const md = renderMarkdown(
      paragraph("<!-", "- playbook-bot:state x -", "->", " @", "user #", "1"),
    );
    expect(md).not.toContain("<!--");
    expectInert(md);
  });
});

describe("block builders", () => {
  it("headings, lines, quotes and rules", () => {
    expect(
      renderMarkdown(
        heading(3, "A\nB #1"),
        lines(["one ", strong("two")], ["- three"]),
        quote(paragraph(strong("T:"), " a\nb")),
        rule(),
      ),
    ).toBe(`### A B #${Z}1\n\none **two**\n\\- three\n\n> **T:** a\n> b\n\n---`);
  });

  it("code blocks take a fence longer than their content and keep Mermaid arrows", () => {
    const md = renderMarkdown(codeBlock("a --> b\n```\n<!-- x -->\n", "mermaid"));
    expect(md).toBe(`\`\`\`\`mermaid\na --> b\n\`\`\`\n<!${Z}-- x -->\n\`\`\`\``);
    const back = parse(md).children[0];
    expect(back).toMatchObject({ type: "code", lang: "mermaid" });
    expect(renderMarkdown(codeBlock("x", "bad lang`"))).toBe("```\nx\n```");
  });

  it("lists and task lists, with inline or block items", () => {
    expect(
      renderMarkdown(
        paragraph("Next:"),
        list(["a", [code("b"), " c"], { content: [paragraph("d"), paragraph("e")] }]),
      ),
    ).toBe("Next:\n- a\n- `b` c\n- d\n\n  e");
    expect(
      renderMarkdown(
        checklist([
          { checked: true, content: "done" },
          { checked: false, content: ["- [x] not a nested task"] },
        ]),
      ),
    ).toBe("- [x] done\n- [ ] \\- \\[x] not a nested task");
    expect(renderMarkdown(list(["one", "two"], true))).toBe("1. one\n2. two");
  });

  it("tables keep their columns whatever the cells hold", () => {
    const md = renderMarkdown(
      table(["a", "b"], [["x|y\nz", code("c|d")], ["only one"], ["1", "2", "dropped"]]),
    );
    expect(md).toBe("| a | b |\n| - | - |\n| x\\|y z | `c\\|d` |\n| only one | |\n| 1 | 2 |");
    const a = expectInert(md);
    expect(a.tables).toEqual([{ columns: 2, rows: [2, 2, 2, 2] }]);
  });

  it("details: the builder's own tags, an escaped summary, Markdown inside", () => {
    const md = renderMarkdown(
      ...details('Why </summary></details><img src=x> "@x" & #1', paragraph("</details> body")),
      paragraph("after"),
    );
    expect(md).toBe(
      `<details><summary>Why &lt;/summary&gt;&lt;/details&gt;&lt;img src=x&gt; &quot;@${Z}x&quot; &amp; #${Z}1</summary>\n\n\\</details> body\n\n</details>\n\nafter`,
    );
    expectInert(md, { details: 1 });
    expect(escapeHtml("a\n\nb")).toBe("a b");
  });

  it("raw takes only a hidden marker of app-made tokens", () => {
    const marker = `<!-- playbook-bot:alert ${"ab".repeat(32)} -->`;
    expect(renderMarkdown(paragraph("x"), raw(marker))).toBe(`x\n\n${marker}`);
    for (const bad of [
      "<b>x</b>",
      "<!-- x --> <img src=x>",
      "<!-- a -- b -->",
      "<!-- @user <x> -->",
      "<!--x-->",
      "<!-- line\nbreak -->",
    ])
      expect(() => raw(bad)).toThrow(/hidden marker/);
  });

  it("a tree built by hand is made safe too", () => {
    const tree: Root = {
      type: "root",
      children: [
        { type: "html", value: "<img src=x onerror=alert(1)>" },
        {
          type: "paragraph",
          children: [
            { type: "image", url: "http://x/y.png", alt: "alt @me" },
            { type: "text", value: " " },
            { type: "link", url: "javascript:alert(1)", children: [{ type: "text", value: "go" }] },
            { type: "text", value: " " },
            { type: "html", value: "<script>" },
          ],
        },
      ],
    };
    const md = renderMarkdown(...tree.children);
    expect(md).toBe(
      `\\<img src=x onerror=alert(1)>\n\nalt @${Z}me go (\`javascript:alert(1)\`) \\<script>`,
    );
    expectInert(md);
  });
});
