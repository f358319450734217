import { describe, expect, it } from "vitest";
import { cancelStands, cancelsAgainst } from "../../src/runtime/run-service/cancel-guard.js";
import type { ThreadComment } from "../../src/runtime/github-port.js";

const at = "2026-03-01T09:00:00Z";
const status = (id: number): ThreadComment => ({
  id: String(id),
  author: "github-actions[bot]",
  bot: true,
  byThisApp: true,
  body: "### run\n\n<!-- playbook-bot:state x -->",
  createdAt: at,
});
const said = (id: number, author: string, body: string, extra: Partial<ThreadComment> = {}) => ({
  id: String(id),
  author,
  bot: false,
  byThisApp: false,
  body,
  createdAt: at,
  updatedAt: at,
  ...extra,
});

describe("a /cancel as a fact on the thread", () => {
  it("stands against the run whose status comment is the newest before it", () => {
    const thread = [
      status(10),
      said(11, "carol", "/cancel"),
      status(12),
      said(13, "carol", "/cancel"),
    ];
    expect(cancelsAgainst(thread, "10").map((c) => c.id)).toEqual(["11"]);
    expect(cancelsAgainst(thread, "12").map((c) => c.id)).toEqual(["13"]);
  });

  it("not when edited, written by a bot or before the run, or not a /cancel", () => {
    const thread = [
      said(9, "carol", "/cancel"),
      status(10),
      said(11, "carol", "/cancel", { updatedAt: "2026-03-01T09:05:00Z" }),
      { ...said(12, "helper[bot]", "/cancel"), bot: true },
      said(13, "carol", "please /cancel this"),
    ];
    expect(cancelsAgainst(thread, "10")).toEqual([]);
  });

  it("only from someone who may cancel the playbook now", async () => {
    const thread = [status(10), said(11, "bob", "/cancel"), said(12, "carol", "/cancel")];
    const roles: Record<string, "read" | "maintain"> = { bob: "read", carol: "maintain" };
    const port = {
      comments: async () => thread,
      permission: async (login: string) => roles[login],
    };
    const stands = await cancelStands(port, { issue: 1, statusCommentId: "10", cache: {} });
    expect(stands?.code).toBe("PB-CANCELLED");
    expect(stands?.message).toContain("@carol cancelled this run (comment 12)");
    roles.carol = "read";
    expect(
      await cancelStands(port, { issue: 1, statusCommentId: "10", cache: {} }),
    ).toBeUndefined();
  });
});
