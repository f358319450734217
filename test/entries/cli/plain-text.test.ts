import { afterEach, describe, expect, it } from "vitest";
import {
  checklist,
  code,
  codeBlock,
  details,
  heading,
  link,
  list,
  mention,
  paragraph,
  quote,
  raw,
  renderMarkdown,
  rule,
  strong,
  text,
} from "../../../src/core/markdown/index.js";
import { markdownToPlain, spansToPlain } from "../../../src/entries/cli/plain-text.js";
import { cleanup, FIXED_ID, makeRepo, runIn, write } from "../../helpers/git-repo.js";
import { runCli } from "../../helpers/cli.js";

afterEach(cleanup);

/** Marks Markdown would read: bold, code, links, escapes, entities. */
const MARKUP = /\*\*|`|\]\(|\\[*_`[\]]|&#?\w+;/;

describe("markdownToPlain", () => {
  it("keeps the words of bold, code and links and drops their marks", () => {
    const md = renderMarkdown(
      paragraph("Run ", strong("Hello, world"), " waits: reply ", code("/approve"), "."),
      paragraph("See ", link("https://example.com/runs/1", "the run"), "."),
    );
    expect(md).toContain("**Hello, world**");
    expect(markdownToPlain(md)).toBe(
      "Run Hello, world waits: reply /approve.\nSee the run (https://example.com/runs/1).",
    );
  });

  it("shows values with Markdown characters as written, not as escaped", () => {
    const value = "a *b* _c_ [d](e) <f> & `g` #1 \\h";
    const md = renderMarkdown(paragraph(text(value)));
    expect(md).not.toContain(value);
    expect(markdownToPlain(md)).toBe(value);
  });

  it("writes lists, checklists, quotes, code blocks, headings and rules as plain lines", () => {
    const md = renderMarkdown(
      heading(3, "Steps"),
      list(["first", "second"], true),
      checklist([
        { checked: true, content: "done" },
        { checked: false, content: "to do" },
      ]),
      quote(paragraph("/approve now")),
      codeBlock("line one\nline two"),
      rule(),
      list(["only"]),
    );
    expect(markdownToPlain(md).split("\n")).toEqual([
      "Steps",
      "1. first",
      "2. second",
      "- [x] done",
      "- [ ] to do",
      "│ /approve now",
      "    line one",
      "    line two",
      "—",
      "- only",
    ]);
  });

  it("keeps a hard line break, and shows an image without text as nothing", () => {
    expect(markdownToPlain("one\\\ntwo ![](x.png)")).toBe("one\ntwo ");
  });

  it("indents a list item's later lines under its first", () => {
    expect(markdownToPlain("- one\n\n  more of one\n- two\n")).toBe("- one\n  more of one\n- two");
  });

  it("leaves out hidden markers and tags, keeps a summary's words", () => {
    const md = renderMarkdown(
      raw("<!-- playbook-bot:run 1 -->"),
      ...details("Flowchart", paragraph("inside")),
    );
    expect(markdownToPlain(md)).toBe("Flowchart\ninside");
  });

  it("shows a bare link once, an image by its text, and inline HTML as its words", () => {
    expect(markdownToPlain("<https://example.com> ![a chart](c.png) <b>bold</b>")).toBe(
      "https://example.com a chart bold",
    );
    expect(markdownToPlain("[](https://example.com)\n\n[x]: https://example.com")).toBe(
      "https://example.com",
    );
  });

  it("makes mentions and control characters inert on a terminal", () => {
    const md = renderMarkdown(paragraph(mention("octocat"), " ", text("evil\u001b[31mred")));
    const plain = markdownToPlain(md);
    expect(plain).toBe("@octocat evil\\u001b[31mred");
    expect(plain).not.toContain("\u001b");
  });
});

describe("spansToPlain", () => {
  it("drops the code and bold marks of a reason, and keeps whatever a value holds", () => {
    expect(spansToPlain("**gate** is not waiting: use `/approve` *here*")).toBe(
      "gate is not waiting: use /approve *here*",
    );
    expect(spansToPlain("@local-cli cannot approve")).toBe("@local-cli cannot approve");
  });
});

const GATE = `apiVersion: playbook-bot/v1
id: gate
name: The **gate**
description: A checkpoint whose message has marks.
steps:
  - id: ask
    type: checkpoint
    description: Ask.
    message: Ship \`v2\` to **production**? See [the plan](https://example.com/plan).
  - id: done
    type: end
    description: Done.
    advice: Shipped \`v2\`.
`;

describe("terminal output of a local run", () => {
  it("prints the engine's messages without Markdown marks", async () => {
    const repo = makeRepo();
    write(repo, ".github/playbooks/gate.yaml", GATE);
    const r = await runIn(repo, "gate", [], { mode: "autonomous", dryRun: true });
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Run ${FIXED_ID} of The **gate** started by @local-cli.`);
    // The author's `code` and **bold** marks in a checkpoint's message are read as Markdown on
    // GitHub, so here they go; the rest of it (a link, the name) is text there and stays as written.
    expect(r.out).toContain(
      "⏸ ask waits for approval: Ship v2 to production? See [the plan](https://example.com/plan).\n",
    );
    expect(r.out).toContain("Reply /approve or /reject <reason>.");
    expect(r.out).toContain("  Shipped v2.\n");
    const own = r.out
      .replaceAll("The **gate**", "")
      .replaceAll("[the plan](https://example.com/plan)", "");
    expect(own).not.toMatch(MARKUP);
  });

  it("keeps the thread's Markdown in simulate, which prints the comments as GitHub gets them", async () => {
    const r = await runCli([
      "simulate",
      "playbooks/dependency-bump.yaml",
      "--events",
      "examples/simulations/dependency-bump.events.yaml",
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\*\*[^*\n]+\*\*/);
  });
});
