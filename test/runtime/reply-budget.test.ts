import { describe, expect, it } from "vitest";
import {
  REPLY_BUDGET,
  markedReply,
  outsiderStartsSince,
  repliesSince,
  replyMarker,
} from "../../src/runtime/run-service/reply-budget.js";
import { renderMarkdown, paragraph } from "../../src/core/markdown/comment.js";
import { renderStatusComment } from "../../src/runtime/run-service/status-comment.js";
import { sampleRun } from "./state/fixtures.js";

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

describe("the runs outsiders started, counted from the bot's status comments", () => {
  const now = Date.parse("2026-12-02T04:00:00Z");
  const at = (msAgo: number) => new Date(now - msAgo).toISOString();
  const seal = { key: Buffer.alloc(32, 7), issue: 1, comment: "1" };
  const status = (initiator: string, permission?: "read" | "triage" | "admin") => {
    const run = { ...sampleRun(), initiator, initiatorPermission: permission };
    if (permission === undefined) delete run.initiatorPermission;
    return renderStatusComment(run, () => undefined, seal);
  };

  it("spends a start of someone without a role above read, within the window only", () => {
    const own = [
      { body: status("Mallory", "read"), created_at: at(60_000) },
      { body: status("eve"), created_at: at(120_000) },
      { body: status("mallory", "read"), created_at: at(REPLY_BUDGET.windowMs) },
      { body: status("tom", "triage"), created_at: at(1_000) },
      { body: status("ada", "admin"), created_at: at(1_000) },
      { body: markedReply("a reply", "mallory"), created_at: at(1_000) },
      { body: null, created_at: at(1_000) },
    ];
    expect(outsiderStartsSince(own, now)).toEqual([
      { login: "eve", at: now - 120_000 },
      { login: "mallory", at: now - 60_000 },
    ]);
  });
});
