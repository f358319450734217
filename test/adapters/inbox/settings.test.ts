import { describe, expect, it } from "vitest";
import {
  InboxConfigError,
  MemoryInbox,
  openInbox,
  RedisInbox,
  readInboxSettings,
} from "../../../src/adapters/inbox/index.js";

describe("the inbox's settings (INBOX_*)", () => {
  it("has defaults, takes seconds for the times, and opens Redis only with REDIS_URL", async () => {
    expect(readInboxSettings({})).toEqual({
      claimAfterMs: 30_000,
      worker: { concurrency: 8, maxAttempts: 8, retryBaseMs: 1_000, retryCapMs: 300_000 },
      route: { maxBytes: 2 * 2 ** 20, maxUnverifiedBytes: 16 * 2 ** 20, bodyTimeoutMs: 15_000 },
    });
    const redis = { url: "redis://127.0.0.1:1", prefix: "pb:" };
    const set = readInboxSettings(
      {
        INBOX_CONCURRENCY: "2",
        INBOX_MAX_ATTEMPTS: "3",
        INBOX_RETRY_BASE: "0.5",
        INBOX_RETRY_CAP: "60",
        INBOX_CLAIM_TIMEOUT: "1.5",
        WEBHOOK_MAX_BYTES: "1048576",
        WEBHOOK_UNVERIFIED_BYTES: "4194304",
        WEBHOOK_BODY_TIMEOUT: "5",
      },
      redis,
    );
    expect(set).toEqual({
      redis,
      claimAfterMs: 1_500,
      worker: { concurrency: 2, maxAttempts: 3, retryBaseMs: 500, retryCapMs: 60_000 },
      route: { maxBytes: 2 ** 20, maxUnverifiedBytes: 4 * 2 ** 20, bodyTimeoutMs: 5_000 },
    });
    expect(openInbox(readInboxSettings({}))).toBeInstanceOf(MemoryInbox);
    const shared = openInbox(set);
    expect(shared).toBeInstanceOf(RedisInbox);
    await shared.close();
  });

  it("refuses a value that is not a positive number, naming the variable", () => {
    for (const [name, value] of [
      ["INBOX_CONCURRENCY", "0"],
      ["INBOX_MAX_ATTEMPTS", "many"],
      ["INBOX_CLAIM_TIMEOUT", "-1"],
      ["WEBHOOK_MAX_BYTES", "lots"],
    ] as const) {
      expect(() => readInboxSettings({ [name]: value })).toThrow(InboxConfigError);
      expect(() => readInboxSettings({ [name]: value })).toThrow(
        `${name} must be a positive number, not '${value}'.`,
      );
    }
  });
});
