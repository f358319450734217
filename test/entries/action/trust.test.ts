import { describe, expect, it } from "vitest";
import { threadCommentOf } from "../../../src/adapters/github-app/payloads.js";
import { ACTIONS_APP_ID, ACTIONS_BOT_LOGIN } from "../../../src/entries/action/bot.js";

/**
 * The Actions bot's own comments: written as github-actions[bot] through the GitHub Actions app
 * (performed_via_github_app 15368), both; the seal on a state in them is checked as it is read.
 */
const config = { appId: ACTIONS_APP_ID, botLogin: ACTIONS_BOT_LOGIN };
const comment = (login: string, type: string, app: number | null) => ({
  id: 1,
  body: "<!-- playbook-bot:state x -->",
  created_at: "2026-03-01T09:00:00Z",
  user: { login, type },
  performed_via_github_app: app === null ? null : { id: app },
});

describe("the Actions bot's own comments", () => {
  it("are github-actions[bot]'s written through the GitHub Actions app", () => {
    expect(
      threadCommentOf(comment(ACTIONS_BOT_LOGIN, "Bot", 15368) as never, config).byThisApp,
    ).toBe(true);
  });

  it("are not the login alone, nor the app alone, nor a person's", () => {
    for (const c of [
      comment(ACTIONS_BOT_LOGIN, "Bot", null),
      comment(ACTIONS_BOT_LOGIN, "Bot", 99),
      comment("other-app[bot]", "Bot", 15368),
      comment("alice", "User", 15368),
    ])
      expect(threadCommentOf(c as never, config).byThisApp).toBe(false);
  });
});
