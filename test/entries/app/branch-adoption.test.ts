import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Effect } from "../../../src/core/engine/events.js";
import type { RunState } from "../../../src/core/engine/state.js";
import type { OctokitPort } from "../../../src/adapters/github/octokit-port.js";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { shipApp } from "./fixtures.js";
import {
  BRANCH,
  Harness,
  makeClock,
  OWNER,
  readStatus,
  REPO,
  testPort,
  EXAMPLE_REPO,
} from "./harness.js";

const run = { context: { issue: { number: 1 } } } as unknown as RunState;
const RUN = "20260301-0900-1-abcde";
const effect = (kind: Effect["kind"], params: Record<string, unknown>, key: string): Effect =>
  ({ key, kind, step: kind, params }) as Effect;
const branchAt = (params: Record<string, unknown>, attempt = 1) =>
  effect("branch", params, `${RUN}/branch/${attempt}`);
const commitTo = (branch: string, step = "commit") =>
  effect(
    "commit",
    { branch, message: "docs: ship", files: [{ path: "docs/ship.md", content: "x\n" }] },
    `${RUN}/${step}/1`,
  );

let fake: FakeGitHub;
let port: OctokitPort;

const makePort = (): OctokitPort => testPort();

describe("the branch step on GitHub", () => {
  beforeEach(() => {
    nock.disableNetConnect();
    fake = new FakeGitHub({
      ...EXAMPLE_REPO,
      clock: makeClock(),
    }).install();
    fake.openIssue("Ship it", "", "alice");
    port = makePort();
  });
  afterEach(() => fake.uninstall());

  it("refuses a branch that holds someone else's commit, saying what is there and what to do", async () => {
    const foreign = fake.pushAs(
      "fix/x",
      "sneaky change\n\nPlaybook-Run: 20260301-0900-9-zzzzz/commit/1",
    );
    const r = await port.perform(branchAt({ name: "fix/x" }), run);
    expect(r).toMatchObject({ ok: false, error: { code: "GH-CONFLICT" } });
    if (r.ok) return;
    expect(r.error.message).toContain("'fix/x'");
    expect(r.error.message).toContain(foreign.sha.slice(0, 7));
    expect(r.error.message).toContain("sneaky change");
    expect(r.error.message).toMatch(/delete or rename/);
    expect(r.error.message).toContain("if_exists: new-name");
    // The branch is left as it was.
    expect(fake.repo.refs.get("heads/fix/x")).toBe(foreign.sha);
  });

  it("counts what GitHub's comparison leaves out (over 250 commits) as not this run's", async () => {
    const made = await port.perform(branchAt({ name: "big" }), run);
    expect(made.ok).toBe(true);
    for (let i = 0; i < 251; i++)
      fake.pushAs("big", `step ${i}\n\nPlaybook-Run: ${RUN}/commit/${i + 1}`);
    const r = await port.perform(branchAt({ name: "big" }), run);
    expect(r).toMatchObject({ ok: false, error: { code: "GH-CONFLICT" } });
    if (!r.ok) expect(r.error.message).toContain("has 1 commit more than can be checked");
  });

  it("reuses the branch this run made and committed to (a crash, then the retry)", async () => {
    const made = await port.perform(branchAt({ name: "fix/x" }), run);
    expect(made).toMatchObject({ ok: true, outputs: { name: "fix/x", created: true } });
    const c = await port.perform(commitTo("fix/x"), run);
    expect(c.ok).toBe(true);
    for (const attempt of [1, 2]) {
      const again = await port.perform(branchAt({ name: "fix/x" }, attempt), run);
      expect(again).toEqual({
        ok: true,
        outputs: {
          name: "fix/x",
          sha: fake.repo.refs.get("heads/fix/x"),
          created: false,
          url: `https://github.com/${OWNER}/${REPO}/tree/fix/x`,
        },
      });
    }
    // Someone adds a commit on top: not this run's branch any more.
    fake.pushAs("fix/x", "later");
    expect(await port.perform(branchAt({ name: "fix/x" }), run)).toMatchObject({
      ok: false,
      error: { code: "GH-CONFLICT" },
    });
  });

  it("reuses an existing branch with nothing beyond the base (made in a race, or empty)", async () => {
    fake.repo.refs.set("heads/empty", fake.repo.refs.get(`heads/${BRANCH}`) as string);
    expect(await port.perform(branchAt({ name: "empty" }), run)).toMatchObject({
      ok: true,
      outputs: { name: "empty", created: false },
    });
  });

  it("if_exists: new-name picks the first free name (or the one this run left)", async () => {
    fake.pushAs("fix/x", "someone's work");
    fake.pushAs("fix/x-2", "more of someone's work");
    const r = await port.perform(branchAt({ name: "fix/x", if_exists: "new-name" }), run);
    expect(r).toMatchObject({ ok: true, outputs: { name: "fix/x-3", created: true } });
    await port.perform(commitTo("fix/x-3"), run);
    const again = await port.perform(branchAt({ name: "fix/x", if_exists: "new-name" }, 2), run);
    expect(again).toMatchObject({ ok: true, outputs: { name: "fix/x-3", created: false } });
    expect(fake.branches().sort()).toEqual([BRANCH, "fix/x", "fix/x-2", "fix/x-3"].sort());
  });

  it("if_exists: fail (or require_new) refuses any existing branch", async () => {
    await port.perform(branchAt({ name: "fix/x" }), run);
    for (const params of [{ if_exists: "fail" }, { require_new: true }]) {
      const r = await port.perform(branchAt({ name: "fix/x", ...params }), run);
      expect(r).toMatchObject({ ok: false, error: { code: "GH-CONFLICT" } });
    }
  });
});

describe("a playbook whose branch someone else made first", () => {
  let h: Harness;
  beforeEach(async () => {
    nock.disableNetConnect();
    ({ fake, h } = await shipApp());
  });
  afterEach(() => fake.uninstall());

  it("fails with GH-CONFLICT and opens no pull request carrying the foreign commit", async () => {
    const issue = fake.openIssue("Ship it", "Please ship.", "alice");
    // The ship playbook's branch name is predictable: playbook/ship-<issue>.
    const foreign = fake.pushAs(`playbook/ship-${issue.number}`, "add a backdoor", {
      "src/login.ts": "export const ok = () => true;\n",
    });
    await h.label(issue.number, "playbook:ship", "alice");
    await h.drain();
    await h.comment(issue.number, "carol", "/approve");
    await h.drain();

    for (const pr of fake.pulls.values())
      expect(fake.pullCommits(pr.number).map((c) => c.sha)).not.toContain(foreign.sha);
    expect(fake.pulls.size).toBe(0);
    expect(fake.commitsWith(/^Playbook-Run: /)).toEqual([]);
    const read = readStatus(fake.statusComments(issue.number)[0]);
    if (!read.ok) throw new Error(read.detail);
    const result = read.run.stack[0]?.results.branch;
    expect(result?.status).toBe("failed");
    expect(result?.error?.code).toBe("GH-CONFLICT");
    const said = [...fake.comments.values()].map((c) => c.body).join("\n");
    expect(said).toContain("GH-CONFLICT");
  });
});
