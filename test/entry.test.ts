import { Probot, ProbotOctokit } from "probot";
import { afterEach, describe, expect, it, vi } from "vitest";
import playbookBot, { deriveStateSecret, readAppConfig, validateSource } from "../src/index.js";

describe("the package entry", () => {
  afterEach(() => vi.unstubAllEnvs());

  it("default-exports the Probot app function, which refuses to load without a webhook secret", async () => {
    vi.stubEnv("WEBHOOK_SECRET", "");
    vi.stubEnv("APP_ID", "1");
    const probot = new Probot({
      appId: 1,
      githubToken: "test",
      Octokit: ProbotOctokit,
      logLevel: "fatal",
    });
    await expect(
      probot.load(playbookBot, { cwd: process.cwd(), addHandler: () => {} }),
    ).rejects.toThrow(/WEBHOOK_SECRET is not set/);
  });

  it("loads with a secret and registers its routes: liveness, then readiness and metrics", async () => {
    vi.stubEnv("WEBHOOK_SECRET", "s");
    vi.stubEnv("APP_ID", "7");
    const handlers: unknown[] = [];
    const probot = new Probot({
      appId: 7,
      githubToken: "test",
      Octokit: ProbotOctokit,
      logLevel: "fatal",
    });
    await probot.load(playbookBot, {
      cwd: process.cwd(),
      addHandler: (h) => void handlers.push(h),
    });
    expect(handlers.map((h) => (h as { name: string }).name)).toEqual(["healthz", "routes"]);
  });

  it("reads its settings from the environment", () => {
    expect(() => readAppConfig({ WEBHOOK_SECRET: "x", APP_ID: "abc" })).toThrow(/APP_ID must be/);
    expect(readAppConfig({ WEBHOOK_SECRET: "x", APP_ID: "3", APP_SLUG: "pb" })).toEqual({
      appId: 3,
      webhookSecret: "x",
      stateSecret: deriveStateSecret("x"),
      botLogin: "pb[bot]",
    });
    expect(
      readAppConfig({ WEBHOOK_SECRET: "x", APP_ID: "3", STATE_SECRET: "own" }).stateSecret,
    ).toBe("own");
    expect(deriveStateSecret("x")).not.toBe(deriveStateSecret("y"));
  });

  it("exports the validation library", () => {
    expect(
      validateSource("p.yaml", "apiVersion: playbook-bot/v1\nid: x\n").diagnostics[0]?.rule,
    ).toBe("steps-and-nodes");
  });
});
