import { describe, expect, it } from "vitest";
import { commentHtml } from "../../../src/entries/playground/render.js";

describe("comments rendered for the playground's page", () => {
  it("renders GitHub's Markdown: tables, task lists, collapsed blocks, line breaks, Mermaid blocks", () => {
    const html = commentHtml(
      [
        "**Status:** waiting",
        "**Waiting for:** /approve",
        "",
        "- [ ] `approve`",
        "",
        "<details><summary>Flowchart</summary>",
        "",
        "```mermaid",
        "flowchart TD",
        "  a --> b",
        "```",
        "",
        "</details>",
        "",
        "| a | b |",
        "| - | - |",
        "| 1 | 2 |",
      ].join("\n"),
    );
    expect(html).toContain("<strong>Status:</strong> waiting<br>");
    expect(html).toContain('<input type="checkbox" disabled>');
    expect(html).toContain("<details><summary>Flowchart</summary>");
    expect(html).toContain('<code class="language-mermaid">flowchart TD');
    expect(html).toContain("<td>1</td>");
  });

  it.each([
    ["a script", "<script>alert(1)</script>hi", /<script/i],
    ["an event handler", '<img src="x" onerror="alert(1)">', /onerror/i],
    ["a javascript: link", "[click](javascript:alert(1))", /javascript:/i],
    ["a javascript: link in HTML", '<a href="javascript:alert(1)">x</a>', /javascript:/i],
    ["an iframe", '<iframe src="https://example.com"></iframe>', /<iframe/i],
    ["a style", '<p style="position:fixed">x</p><style>*{}</style>', /style/i],
    ["a form", '<form action="/api/people"><input name="login"></form>', /<form/i],
    ["an HTML comment (the state block)", "<!-- playbook-bot:state x y -->", /<!--/],
  ])("drops %s", (_, markdown, forbidden) => {
    expect(commentHtml(markdown)).not.toMatch(forbidden);
  });

  it("cuts a comment longer than GitHub allows before rendering it", () => {
    const html = commentHtml("a".repeat(70_000));
    expect(html.length).toBeLessThan(66_000);
  });

  it("leads links to the sandbox repository into the page, mends the addresses the bot broke, and leaves others", () => {
    const repo = { owner: "playground", name: "sandbox" };
    const markdown = [
      "Merged in https:\u200b//github.com/playground/sandbox/pull/2.",
      "[the issue](https://github.com/playground/sandbox/issues/7) and " +
        "[a comment](https://github.com/playground/sandbox/issues/7#issuecomment-1004)",
      "[a commit](https://github.com/playground/sandbox/commit/abc123) on a branch",
      "[elsewhere](https://github.com/someone/else/pull/3), [docs](https://example.com/x)",
      "[a look-alike](https://github.com/playground/sandbox-other/pull/1)",
    ].join("\n");
    const html = commentHtml(markdown, repo);
    expect(html).toContain(
      'Merged in <a href="#pull-2">https://github.com/playground/sandbox/pull/2</a>.',
    );
    expect(html).toContain('<a href="#issue-7">the issue</a>');
    expect(html).toContain('<a href="#issuecomment-1004">a comment</a>');
    // Nothing of the repository's own pages is here but its issues and pull requests: text.
    expect(html).toContain("a commit on a branch");
    expect(html).toContain('<a href="https://github.com/someone/else/pull/3">elsewhere</a>');
    expect(html).toContain('<a href="https://example.com/x">docs</a>');
    expect(html).toContain('<a href="https://github.com/playground/sandbox-other/pull/1">');
    expect(html).not.toContain("\u200b");
    // A mention or a reference the bot broke stays whole on a line, and still links nothing.
    const thread = commentHtml(
      "start by @\u200bcarol, see #\u200b2 and bob@\u200bexample.com",
      repo,
    );
    expect(thread).toBe(
      "<p>start by @\u2060carol, see #\u2060" + "2 and bob@\u2060example.com</p>",
    );
    // Without a sandbox, as GitHub shows it: the broken address stays text.
    expect(commentHtml(markdown)).toContain("https:\u200b//github.com/playground/sandbox/pull/2.");
    expect(commentHtml(markdown)).not.toContain("#pull-2");
  });
});
