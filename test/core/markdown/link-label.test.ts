import { describe, expect, it } from "vitest";
import { link, paragraph, renderMarkdown } from "../../../src/core/markdown/comment.js";

/**
 * An alert's `links` (the triage issue) carry a label and a destination from the sender: a label
 * that is itself an address must not show one address and go to another.
 */
const md = (url: string, label?: string) =>
  renderMarkdown(paragraph(label === undefined ? link(url) : link(url, label))).replace(
    /\u200b/g,
    "",
  );

describe("a link whose label is an address", () => {
  it("on another host: the label is text and the destination is shown", () => {
    const out = md("https://evil.example/login", "https://grafana.example.com/d/errors");
    expect(out).not.toMatch(/\[https:\/\/grafana\.example\.com[^\]]*\]\(https:\/\/evil\.example/);
    expect(out).toBe("https://grafana.example.com/d/errors (<https://evil.example/login>)");
    expect(md("https://evil.example/", "see grafana.example.com")).toContain(
      "(<https://evil.example/>)",
    );
  });
  it("on the same host, or no address at all: an ordinary link", () => {
    expect(md("https://grafana.example.com/d/x", "grafana.example.com dashboard")).toBe(
      "[grafana.example.com dashboard](https://grafana.example.com/d/x)",
    );
    expect(md("https://evil.example/login", "Grafana dashboard")).toBe(
      "[Grafana dashboard](https://evil.example/login)",
    );
  });
});
