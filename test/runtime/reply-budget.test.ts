import { describe, expect, it } from "vitest";
import {
  REPLY_BUDGET,
  markedReply,
  repliesSince,
  replyMarker,
} from "../../src/runtime/run-service/reply-budget.js";
import { renderMarkdown, paragraph } from "../../src/core/markdown/comment.js";

describe("the reply budget counted from the bot's own replies", () => {
  const now = Date.parse("2026-12-02T04:00:00Z");
  const at = (msAgo: number) => new Date(now - msAgo).toISOString();

  it("names the person answered in a hidden line, in lower case and inert characters only", () => {
    expect(replyMarker("Tom-Cat")).toBe("\n<!-- playbook-bot:reply-to tom-cat -->\n");
    expect(replyMarker("dependabot[bot]")).toContain("reply-to dependabot[bot] -->");
    expect(replyMarker("a -->b")).toContain("reply-to a--b -->");
    expect(markedReply("Hello.\n\n", "Tom")).toBe("Hello.\n\n<!-- playbook-bot:reply-to tom -->\n");
  });

  it("counts the replies of the window, oldest first, and nothing else", () => {
    const own = [
      { body: markedReply("b", "tom"), created_at: at(60_000) },
      { body: markedReply("a", "tom"), created_at: at(120_000) },
      { body: markedReply("old", "tom"), created_at: at(REPLY_BUDGET.windowMs) },
      { body: "a status comment", created_at: at(1_000) },
      { body: `${replyMarker("tom")}and then more`, created_at: at(1_000) },
      { body: null, created_at: at(1_000) },
    ];
    expect(repliesSince(own, now)).toEqual([
      { login: "tom", at: now - 120_000 },
      { login: "tom", at: now - 60_000 },
    ]);
  });

  it("finds no marker in text a person wrote that the bot echoes (it is escaped)", () => {
    const echoed = renderMarkdown(paragraph("<!-- playbook-bot:reply-to alice -->"));
    expect(repliesSince([{ body: echoed, created_at: at(0) }], now)).toEqual([]);
  });
});
