import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Effect } from "../../../src/core/engine/events.js";
import type { RunState } from "../../../src/core/engine/state.js";
import { createOnce, pullRequestExists } from "../../../src/adapters/github/create-once.js";
import { OctokitAlertIssues } from "../../../src/adapters/github/alert-issues.js";
import {
  withRequestTimeout,
  type Octokit,
  type OctokitPort,
} from "../../../src/adapters/github/octokit-port.js";
import { issueMarker } from "../../../src/runtime/effects.js";
import { answerLost, FakeGitHub, type Fault } from "../../helpers/fake-github.js";
import {
  EXAMPLE_REPO,
  makeClock,
  OWNER,
  REPO,
  testOctokitClass,
  testPort,
} from "../../entries/app/harness.js";

describe("createOnce", () => {
  const status = (s: number) => Object.assign(new Error(`HTTP ${s}`), { status: s });

  it("after a 5xx looks before creating again, and adopts what it finds", async () => {
    const calls: string[] = [];
    const waits: number[] = [];
    const made = await createOnce({
      create: async () => {
        calls.push("create");
        throw status(502);
      },
      find: async () => {
        calls.push("find");
        return "made by the first attempt";
      },
      sleep: async (ms) => void waits.push(ms),
    });
    expect(made).toBe("made by the first attempt");
    expect(calls).toEqual(["create", "find"]);
    expect(waits).toEqual([1000]);
  });

  it("gives up after the bounded attempts, waiting longer each time", async () => {
    let creates = 0;
    const waits: number[] = [];
    await expect(
      createOnce({
        create: async () => {
          creates++;
          throw status(503);
        },
        find: async () => undefined,
        retry: { attempts: 4, delayMs: 50 },
        sleep: async (ms) => void waits.push(ms),
      }),
    ).rejects.toMatchObject({ status: 503 });
    expect(creates).toBe(4);
    expect(waits).toEqual([50, 100, 200]);
  });

  it("throws a 4xx at once: GitHub made nothing", async () => {
    let finds = 0;
    await expect(
      createOnce({
        create: async () => {
          throw status(403);
        },
        find: async () => {
          finds++;
          return "x";
        },
        sleep: async () => undefined,
      }),
    ).rejects.toMatchObject({ status: 403 });
    expect(finds).toBe(0);
  });

  it("lets a 422 stand unless the conflict names something to adopt", async () => {
    const refused = () =>
      createOnce<string>({
        create: async () => {
          throw status(422);
        },
        find: async () => undefined,
        conflict: async () => undefined,
      });
    await expect(refused()).rejects.toMatchObject({ status: 422 });
    const adopted = await createOnce<string>({
      create: async () => {
        throw status(422);
      },
      find: async () => undefined,
      conflict: async () => "the open one",
    });
    expect(adopted).toBe("the open one");
  });

  it("reads GitHub's 422 for an open pull request of the head from its errors", () => {
    const err = Object.assign(new Error("Validation Failed"), {
      status: 422,
      response: {
        data: {
          message: "Validation Failed",
          errors: [{ message: "A pull request already exists for o:fix." }],
        },
      },
    });
    expect(pullRequestExists(err)).toBe(true);
    expect(pullRequestExists(Object.assign(new Error("No commits between"), { status: 422 }))).toBe(
      false,
    );
  });
});

// What the port reads of a run: the issue, and when the active step began.
const run = {
  context: { issue: { number: 1 } },
  stack: [{ since: "2026-03-01T09:00:00.000Z" }],
} as unknown as RunState;
const effect = (kind: Effect["kind"], params: Record<string, unknown>, key = "r/k/1"): Effect =>
  ({ key, kind, step: "s", params }) as Effect;

/** Probot's Octokit with its retry plugin on, as in production. */
const productionOctokit = (): Octokit =>
  new (testOctokitClass(true))({ auth: { token: "test" } }) as unknown as Octokit;

let fake: FakeGitHub;
let port: OctokitPort;

const posts = (path: RegExp) =>
  fake.requests.filter((r) => r.method === "POST" && path.test(r.path.split("?")[0] ?? ""));

beforeEach(() => {
  nock.disableNetConnect();
  fake = new FakeGitHub({ ...EXAMPLE_REPO, clock: makeClock() }).install();
  fake.openIssue("One", "", "alice");
  port = testPort({ octokit: productionOctokit(), createRetry: { delayMs: 5 } });
});
afterEach(() => fake.uninstall());

describe("comments under Octokit's retries", () => {
  it("posts a comment step's comment once when GitHub made it and answered 502", async () => {
    fake.fault = answerLost((r) => r.method === "POST" && r.path.endsWith("/issues/1/comments"));
    const done = await port.perform(effect("comment", { body: "Looking into it." }), run);
    const comments = [...fake.comments.values()].filter((c) => c.issue === 1);
    expect(comments).toHaveLength(1);
    expect(comments[0]?.body).toContain(issueMarker("r/k/1"));
    expect(done.ok && done.outputs.id).toBe(String(comments[0]?.id));
    // One POST: Octokit's plugin did not send it again, and the port found it instead.
    expect(posts(/\/issues\/1\/comments$/)).toHaveLength(1);
  });

  it("posts a plain comment once (a run's closing message), adopting the app's newest with its body", async () => {
    fake.appComment(1, "Earlier words.");
    fake.fault = answerLost((r) => r.method === "POST" && r.path.endsWith("/issues/1/comments"));
    const c = await port.createComment(1, "Run 20260301-0900-1-abcde completed.");
    const bodies = [...fake.comments.values()].map((x) => x.body);
    expect(bodies).toEqual(["Earlier words.", "Run 20260301-0900-1-abcde completed."]);
    expect(c.id).toBe(String([...fake.comments.keys()][1]));
    expect(c.byThisApp).toBe(true);
  });

  it("looks at the newest pages of a long thread only: at most three requests", async () => {
    for (let i = 0; i < 205; i++) fake.postAs(1, "alice", `comment ${i}`);
    fake.fault = answerLost((r) => r.method === "POST" && r.path.endsWith("/issues/1/comments"));
    const from = fake.requests.length;
    const c = await port.createComment(1, "Waiting for pull request #2 to be merged.");
    const after = fake.requests.slice(from).map((r) => `${r.method} ${r.path}`);
    // The POST (502); the first page, which names the last (3, six comments); the last; the one before.
    expect(after).toEqual([
      "POST /repos/Codertocat/Hello-World/issues/1/comments",
      "GET /repos/Codertocat/Hello-World/issues/1/comments?per_page=100",
      "GET /repos/Codertocat/Hello-World/issues/1/comments?per_page=100&page=3",
      "GET /repos/Codertocat/Hello-World/issues/1/comments?per_page=100&page=2",
    ]);
    expect(c.id).toBe(String([...fake.comments.keys()].at(-1)));
    expect(fake.comments.size).toBe(206);
  });

  it("posts again when the failed attempt made nothing", async () => {
    let failed = false;
    fake.fault = (r) => {
      if (failed || r.method !== "POST") return undefined;
      failed = true;
      return { status: 503 }; // not applied: GitHub made nothing
    };
    await port.createComment(1, "Hello.");
    expect([...fake.comments.values()].map((x) => x.body)).toEqual(["Hello."]);
    expect(posts(/\/issues\/1\/comments$/)).toHaveLength(2);
  });

  it("adopts a comment made by a request whose answer never came (the request timeout)", async () => {
    const octokit = withRequestTimeout(productionOctokit(), 150);
    port = testPort({ octokit, createRetry: { delayMs: 5 } });
    let hung = false;
    fake.hang = (r) => {
      if (hung || r.method !== "POST" || !r.path.endsWith("/issues/1/comments")) return false;
      hung = true;
      return "applied";
    };
    const done = await port.perform(effect("comment", { body: "Still here." }), run);
    expect(done.ok).toBe(true);
    expect([...fake.comments.values()]).toHaveLength(1);
    expect(posts(/\/issues\/1\/comments$/)).toHaveLength(1);
  });

  it("posts a review reply once", async () => {
    fake.pushAs("fix", "A fix", { "a.txt": "a" });
    const pr = fake.openPullAs("alice", "fix", "Fix", "");
    const first = fake.addReviewComment(pr.number, "Why?");
    fake.fault = answerLost((r) => r.method === "POST" && r.path.endsWith("/replies"));
    const done = await port.perform(
      effect("comment", { body: "Because.", issue: pr.number, reply_to: first }),
      run,
    );
    expect(done.ok).toBe(true);
    expect([...fake.reviewComments.values()]).toHaveLength(2);
    expect(posts(/\/replies$/)).toHaveLength(1);
  });
});

describe("issues under Octokit's retries", () => {
  it("opens an issue step's issue once", async () => {
    fake.fault = answerLost((r) => r.method === "POST" && r.path.endsWith(`${REPO}/issues`));
    const done = await port.perform(effect("issue", { title: "Follow up", body: "Later." }), run);
    const follow = [...fake.issues.values()].filter((i) => i.title === "Follow up");
    expect(follow).toHaveLength(1);
    expect(done.ok && done.outputs).toMatchObject({ number: follow[0]?.number, created: true });
  });

  it("opens an alert's triage issue and its comment once", async () => {
    const alerts = new OctokitAlertIssues(
      productionOctokit(),
      OWNER,
      REPO,
      { appId: fake.appId },
      { delayMs: 5 },
    );
    fake.fault = answerLost((r) => r.method === "POST" && r.path.endsWith(`${REPO}/issues`));
    const body = "Disk full.\n\n<!-- playbook-bot:alert 0123 -->";
    const issue = await alerts.createIssue("[alert] Disk full", body, ["alert", "severity:page"]);
    const opened = [...fake.issues.values()].filter((i) => i.title === "[alert] Disk full");
    expect(opened).toHaveLength(1);
    expect(issue.number).toBe(opened[0]?.number);

    fake.fault = answerLost((r) => r.method === "POST" && r.path.endsWith("/comments"));
    const id = await alerts.comment(issue.number, "✅ Resolved.");
    const comments = [...fake.comments.values()].filter((c) => c.issue === issue.number);
    expect(comments.map((c) => String(c.id))).toEqual([id]);
  });
});

describe("pull requests under Octokit's retries", () => {
  const open = (key = "r/k/1") =>
    port.perform(
      effect("pull_request", { head: "fix", title: "Fix", body: "A fix.", labels: ["bot"] }, key),
      run,
    );
  /** The next `GET /pulls` listings of the head answer none: GitHub's lists lag behind its writes. */
  const lagging = (n: number, then?: Fault): Fault => {
    let left = n;
    return (req) => {
      if (req.method === "GET" && /\/pulls\?/.test(req.path) && left > 0) {
        left--;
        return { status: 200, body: [] };
      }
      return then?.(req);
    };
  };

  beforeEach(() => void fake.pushAs("fix", "A fix", { "a.txt": "a" }));

  it("adopts the pull request the first POST opened before it answered 502", async () => {
    fake.fault = answerLost((r) => r.method === "POST" && r.path.endsWith("/pulls"));
    const done = await open();
    expect(fake.pulls.size).toBe(1);
    const pr = [...fake.pulls.values()][0];
    expect(done.ok && done.outputs).toMatchObject({ number: pr?.number, created: true });
    // Created by this effect: its labels are added as for a pull request it opened.
    expect(fake.pullLabels(pr?.number ?? 0)).toEqual(["bot"]);
    expect(posts(/\/pulls$/)).toHaveLength(1);
  });

  it("adopts it through the retry's 422 when the listing does not show it yet", async () => {
    // The look before the first POST and the look after the 502 both miss it.
    fake.fault = lagging(
      2,
      answerLost((r) => r.method === "POST" && r.path.endsWith("/pulls")),
    );
    const done = await open();
    expect(fake.pulls.size).toBe(1);
    expect(posts(/\/pulls$/).map((r) => r.status)).toEqual([502, 422]);
    expect(done.ok && done.outputs).toMatchObject({
      number: [...fake.pulls.keys()][0],
      created: true,
    });
  });

  it("does not adopt another author's pull request a 422 names: a clear failure", async () => {
    const theirs = fake.openPullAs("mallory", "fix", "Mine", "");
    fake.fault = lagging(1);
    const done = await open();
    expect(done.ok).toBe(false);
    if (!done.ok) {
      expect(done.error.code).toBe("GH-CONFLICT");
      expect(done.error.message).toContain(
        `pull request #${theirs.number} from 'fix' is open and was not opened by this app`,
      );
    }
    expect(fake.pulls.size).toBe(1);
  });

  it("does not adopt the app's pull request against another base", async () => {
    fake.pushAs("release", "Release line");
    const other = await port.perform(
      effect("pull_request", { head: "fix", base: "release", title: "Fix" }, "r/k/0"),
      run,
    );
    expect(other.ok).toBe(true);
    fake.fault = lagging(1);
    const done = await open();
    expect(!done.ok && done.error.message).toMatch(/is open against 'release', not 'master'/);
  });
});
