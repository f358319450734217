import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AppConfigError,
  deriveStateSecret,
  readAppConfig,
} from "../../../src/adapters/github-app/config.js";
import { bundledTier, PlaybookDiscovery } from "../../../src/adapters/github/discovery.js";
import { describeRequests, FakeGitHub } from "../../helpers/fake-github.js";
import { RELEASE, SHIP } from "./fixtures.js";
import { BRANCH, makeClock, OWNER, REPO, testOctokit, EXAMPLE_REPO } from "./harness.js";

const octokit = testOctokit;

const TEMPLATED = `apiVersion: playbook-bot/v1
id: templated
description: Writes a file from a template.
steps:
  - id: branch
    type: branch
    name: t
  - id: commit
    type: commit
    branch: t
    message: m
    files:
      - path: out.md
        template: templates/t.md
`;

describe("playbook discovery", () => {
  let fake: FakeGitHub;
  let now = 0;
  beforeEach(() => {
    nock.disableNetConnect();
    fake = new FakeGitHub({
      ...EXAMPLE_REPO,
      clock: makeClock(),
      files: {
        ".github/playbooks/ship.yaml": SHIP,
        ".github/playbooks/sub/templated.yaml": TEMPLATED,
        ".github/playbooks/sub/templates/t.md": "Hello {{ run.id }}",
        ".github/playbooks/huge.yaml": "x".repeat(1024 * 1024 + 1),
        "src/index.ts": "x",
      },
      orgFiles: { ".github/playbooks/release.yaml": RELEASE, ".github/playbooks/ship.yaml": SHIP },
    }).install();
  });
  afterEach(() => fake.uninstall());

  it("reads the repository, then the organisation's .github, then the bundled library, cached by commit", async () => {
    const d = new PlaybookDiscovery(60_000, () => now);
    const o = octokit();
    const { tiered, commit } = await d.current(o, OWNER, REPO, BRANCH);
    expect(commit).toBe(fake.repo.refs.get(`heads/${BRANCH}`));
    expect(describeRequests(fake.requests).map((r) => r.replace(/[0-9a-f]{40}/, "<sha>"))).toEqual([
      `GET /repos/${OWNER}/${REPO}/git/ref/heads/master`,
      `GET /repos/${OWNER}/${REPO}/git/trees/<sha>`,
      `GET /repos/${OWNER}/${REPO}/git/blobs/<sha>`,
      `GET /repos/${OWNER}/${REPO}/git/blobs/<sha>`,
      `GET /repos/${OWNER}/${REPO}/git/blobs/<sha>`,
      `GET /repos/${OWNER}/.github`,
      `GET /repos/${OWNER}/.github/git/ref/heads/main`,
      `GET /repos/${OWNER}/.github/git/trees/<sha>`,
      `GET /repos/${OWNER}/.github/git/blobs/<sha>`,
      `GET /repos/${OWNER}/.github/git/blobs/<sha>`,
    ]);
    expect(tiered.bundles.get("release")).toBeDefined();
    expect(tiered.bundles.get("hello-world")).toBeDefined();
    const templated = tiered.bundles.get("templated");
    expect(Object.values(templated?.files ?? {})).toContain("Hello {{ run.id }}");
    // Same commit: one request (the ref). The organisation is cached for its TTL.
    const mark = fake.requests.length;
    await d.current(o, OWNER, REPO, BRANCH);
    expect(fake.since(mark)).toHaveLength(1);
    // A new commit, after the TTL: the tree again, and the organisation again.
    const head = fake.repo.refs.get(`heads/${BRANCH}`) as string;
    const c = fake.repo.makeCommit("next", fake.repo.commits.get(head)!.tree, [head]);
    fake.repo.refs.set(`heads/${BRANCH}`, c.sha);
    now = 120_000;
    const mark2 = fake.requests.length;
    await d.current(o, OWNER, REPO, BRANCH);
    expect(describeRequests(fake.since(mark2))).toContain(`GET /repos/${OWNER}/.github`);
  });

  it("has no organisation tier for the .github repository itself or when it is missing", async () => {
    const d = new PlaybookDiscovery();
    const o = octokit();
    const own = await d.at(o, OWNER, ".github", fake.org!.refs.get("heads/main") as string);
    expect(own.bundles.get("release")).toBeDefined();
    fake.fault = ({ path }) => (path === `/repos/${OWNER}/.github` ? { status: 404 } : undefined);
    const d2 = new PlaybookDiscovery();
    const t = await d2.current(o, OWNER, REPO, BRANCH);
    expect(t.tiered.bundles.get("release")).toBeUndefined();
  });

  it("skips a commit whose tree is gone, and fails on other tree errors", async () => {
    const d = new PlaybookDiscovery();
    const o = octokit();
    const none = await d.at(o, "someone", REPO, "f".repeat(40));
    expect(none.bundles.get("hello-world")).toBeDefined();
    fake.fault = ({ path }) => (path.includes("/git/trees/") ? { status: 500 } : undefined);
    await expect(d.at(o, OWNER, REPO, "e".repeat(40))).rejects.toMatchObject({ status: 500 });
  });

  it("reads bundled templates next to the bundled playbooks", async () => {
    const tier = await bundledTier();
    const file = tier.files.find((f) => f.file.endsWith("hello-world.yaml"))?.file as string;
    expect(tier.read(file, "templates/hello.md")).toContain("{{");
    expect(tier.read(file, "templates/missing.md")).toBeUndefined();
  });
});

describe("app configuration", () => {
  it("refuses to start without a webhook secret or a numeric app id", () => {
    expect(() => readAppConfig({})).toThrow(AppConfigError);
    expect(() => readAppConfig({ WEBHOOK_SECRET: "  " })).toThrow(/WEBHOOK_SECRET is not set/);
    expect(() => readAppConfig({ WEBHOOK_SECRET: "s" })).toThrow(/APP_ID/);
    expect(() => readAppConfig({ WEBHOOK_SECRET: "s", APP_ID: "1.5" })).toThrow(/APP_ID/);
  });

  it("derives the state secret from the webhook secret unless given, and the bot login from the slug", () => {
    expect(readAppConfig({ WEBHOOK_SECRET: "s", APP_ID: "7" })).toEqual({
      appId: 7,
      webhookSecret: "s",
      stateSecret: deriveStateSecret("s"),
    });
    expect(deriveStateSecret("s")).not.toBe("s");
    expect(
      readAppConfig({ WEBHOOK_SECRET: "s", APP_ID: "7", STATE_SECRET: " k ", APP_SLUG: "pb" }),
    ).toEqual({ appId: 7, webhookSecret: "s", stateSecret: "k", botLogin: "pb[bot]" });
  });
});

describe("discovery after a push", () => {
  const playbook = (i: number, note = "") => `apiVersion: playbook-bot/v1
id: pb-${i}
description: Playbook ${i}.${note}
steps:
  - id: say
    type: comment
    description: Says hello.
    body: hello
`;
  let fake: FakeGitHub;
  beforeEach(() => {
    nock.disableNetConnect();
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) files[`.github/playbooks/pb-${i}.yaml`] = playbook(i);
    fake = new FakeGitHub({ ...EXAMPLE_REPO, clock: makeClock(), files }).install();
  });
  afterEach(() => fake.uninstall());

  const push = (files: Record<string, string>) => {
    const head = fake.repo.refs.get(`heads/${BRANCH}`) as string;
    const base = fake.repo.trees.get(fake.repo.commits.get(head)?.tree as string) as Map<
      string,
      string
    >;
    const c = fake.repo.makeCommit("push", fake.repo.makeTree(base, files), [head]);
    fake.repo.refs.set(`heads/${BRANCH}`, c.sha);
  };

  it("a push that changes one of 300 playbooks costs the head, the tree and that one blob", async () => {
    const d = new PlaybookDiscovery();
    const o = octokit();
    const first = await d.current(o, OWNER, REPO, BRANCH);
    expect(first.tiered.bundles.get("pb-299")).toBeDefined();
    const blobs = describeRequests(fake.requests).filter((r) => r.includes("/git/blobs/"));
    expect(blobs).toHaveLength(300);

    push({ ".github/playbooks/pb-7.yaml": playbook(7, " Changed.") });
    const mark = fake.requests.length;
    const after = await d.current(o, OWNER, REPO, BRANCH);
    const requests = describeRequests(fake.since(mark)).map((r) =>
      r.replace(/[0-9a-f]{40}/, "<sha>"),
    );
    expect(requests).toEqual([
      `GET /repos/${OWNER}/${REPO}/git/ref/heads/master`,
      `GET /repos/${OWNER}/${REPO}/git/trees/<sha>`,
      `GET /repos/${OWNER}/${REPO}/git/blobs/<sha>`,
    ]);
    expect(after.tiered.bundles.get("pb-7")?.playbook.description).toBe("Playbook 7. Changed.");
    expect(after.tiered.bundles.get("pb-8")?.playbook.description).toBe("Playbook 8.");

    // A push that leaves the playbooks as they were: no blob, and the validated set is reused.
    push({ "src/index.ts": "changed" });
    const mark2 = fake.requests.length;
    const same = await d.current(o, OWNER, REPO, BRANCH);
    expect(describeRequests(fake.since(mark2))).toHaveLength(2);
    expect(same.tiered).toBe(after.tiered);
    expect(d.cacheSizes()).toMatchObject({ commits: 3, contents: 2, blobs: { entries: 301 } });
  });

  it("keeps blob texts within their budget, oldest out first", async () => {
    const { BlobCache } = await import("../../../src/adapters/github/discovery.js");
    const cache = new BlobCache(10);
    cache.set("a", "12345");
    cache.set("b", "123");
    expect(cache.get("a")).toBe("12345");
    cache.set("c", "1234");
    // "b" was the least recently used.
    expect(cache.get("b")).toBeUndefined();
    expect(cache.size).toEqual({ entries: 2, chars: 9 });
    cache.set("huge", "x".repeat(11));
    expect(cache.get("huge")).toBeUndefined();
    cache.set("a", "1");
    expect(cache.size).toEqual({ entries: 2, chars: 5 });
  });
});
