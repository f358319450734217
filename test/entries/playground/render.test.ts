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
});
