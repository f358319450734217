import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AppConfigError, loadDotEnv, startMode } from "../../../src/adapters/github-app/config.js";

describe("how npm start begins", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pb-start-"));
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves with an app id and a key, given inline, by path or as the folder's one .pem file", () => {
    expect(startMode({ APP_ID: "7", PRIVATE_KEY: "-----BEGIN…" }, dir)).toBe("serve");
    writeFileSync(join(dir, "app.pem"), "key");
    expect(startMode({ APP_ID: "7", PRIVATE_KEY_PATH: "app.pem" }, dir)).toBe("serve");
    expect(startMode({ APP_ID: "7" }, dir)).toBe("serve");
  });

  it("starts the playground with neither an app id nor a key, or the setup flow when asked; neither in production", () => {
    expect(startMode({}, dir)).toBe("playground");
    expect(startMode({}, dir, true)).toBe("setup");
    expect(() => startMode({ NODE_ENV: "production" }, dir)).toThrow(
      /is offered with NODE_ENV=production/,
    );
    expect(() => startMode({ NODE_ENV: "production" }, dir, true)).toThrow(/setup flow/);
  });

  it("refuses half a configuration, saying what is missing", () => {
    const refusal = (env: NodeJS.ProcessEnv) => {
      try {
        startMode(env, dir);
      } catch (err) {
        expect(err).toBeInstanceOf(AppConfigError);
        return (err as Error).message;
      }
      return "started";
    };
    expect(refusal({ APP_ID: "7" })).toMatch(/no private key/);
    expect(refusal({ APP_ID: "7", PRIVATE_KEY_PATH: "missing.pem" })).toMatch(
      /missing\.pem, which does not exist/,
    );
    expect(refusal({ PRIVATE_KEY: "k" })).toMatch(/APP_ID is not/);
    // Two .pem files: which one is meant is not guessed.
    writeFileSync(join(dir, "a.pem"), "a");
    writeFileSync(join(dir, "b.pem"), "b");
    expect(refusal({ APP_ID: "7" })).toMatch(/no private key/);
  });

  it("reads .env beneath the environment, and says when there is none", () => {
    expect(loadDotEnv(dir)).toBe("absent");
    writeFileSync(join(dir, ".env"), "PB_START_TEST_A=from-file\nPB_START_TEST_B=from-file\n");
    vi.stubEnv("PB_START_TEST_A", "from-environment");
    vi.stubEnv("PB_START_TEST_B", undefined);
    expect(loadDotEnv(dir)).toBe("loaded");
    expect(process.env.PB_START_TEST_A).toBe("from-environment");
    expect(process.env.PB_START_TEST_B).toBe("from-file");
  });
});
