import nock from "nock";
import { Probot, ProbotOctokit } from "probot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPlaybookBot } from "../../../src/adapters/github-app/app.js";
import { MemoryTraceLog } from "../../../src/adapters/coordination/trace-log.js";
import { runSeed } from "../../../src/core/trace/build.js";
import type { TraceLog } from "../../../src/runtime/ports.js";
import { spanIdOf, storedRun, traceIdOf } from "../../../src/runtime/trace.js";
import { FakeGitHub } from "../../helpers/fake-github.js";
import { RELEASE, TEAM } from "./fixtures.js";
import {
  APP_ID,
  CONFIG,
  EXAMPLE_REPO,
  Harness,
  OWNER,
  REPO,
  makeClock,
  readStatus,
  type Handler,
} from "./harness.js";

/** The harness, with the app given a trace log of the test's. */
class TracedHarness extends Harness {
  constructor(
    fake: FakeGitHub,
    clock: () => Date,
    readonly trace: TraceLog,
  ) {
    super(fake, clock);
  }

  override async start(): Promise<this> {
    const probot = new Probot({
      appId: APP_ID,
      githubToken: "test",
      Octokit: ProbotOctokit.defaults((o: Record<string, unknown>) => ({
        ...o,
        retry: { enabled: false },
        throttle: { enabled: false },
      })),
      logLevel: "fatal",
    });
    const bot = createPlaybookBot({
      config: CONFIG,
      clock: this.clock,
      wakeUps: false,
      reconcile: false,
      trace: this.trace,
    });
    await probot.load(bot, { cwd: process.cwd(), addHandler: (_h: Handler) => undefined });
    this.probot = probot;
    this.close = bot.close;
    return this;
  }
}

let fake: FakeGitHub;
const SCOPE = `${OWNER}/${REPO}`;

function runOf(i: number) {
  const read = readStatus(fake.statusComments(1)[i]);
  if (!read.ok) throw new Error(read.detail);
  return read.run;
}

beforeEach(() => {
  nock.disableNetConnect();
  fake = new FakeGitHub({
    ...EXAMPLE_REPO,
    clock: makeClock(),
    files: {
      ".github/playbooks/team.yaml": TEAM,
      ".github/playbooks/release.yaml": RELEASE,
    },
  }).install();
  fake.permissions.set("alice", "write");
  fake.permissions.set("bob", "read");
  fake.permissions.set("carol", "maintain");
  fake.teams.set(`${OWNER}/core`, new Set(["bob"]));
  fake.openIssue("Issue", "", "alice");
});
afterEach(() => fake.uninstall());

describe("the app's trace", () => {
  it("keeps every act of a run per repository, and a handed-off run in the same trace", async () => {
    const log = new MemoryTraceLog();
    const h = await new TracedHarness(fake, makeClock(), log).start();
    await h.comment(1, "alice", "/run team");
    // The initiator may not approve her own run: refused by the engine, recorded.
    await h.comment(1, "alice", "/approve");
    await h.comment(1, "bob", "/approve");
    const first = runOf(0);
    const second = runOf(1);
    expect(first.status).toBe("completed");
    expect(second.stack[0]?.playbook).toBe("release");

    // Kept under the repository: the same run id elsewhere is another run.
    expect(log.read(first.id).records).toEqual([]);
    const records = log.read(`${SCOPE}:${first.id}`).records;
    expect(records.map((r) => [r.event, r.actor, r.target, r.outcome])).toEqual([
      ["start", "alice", "run", "success"],
      ["continue", "playbook-bot", "step gate", "escalation"],
      ["/approve", "alice", "step gate", "refused"],
      ["/approve", "bob", "step gate", "success"],
      ["continue", "playbook-bot", "step done", "success"],
      ["continue", "playbook-bot", "run", "success"],
    ]);
    expect(records[2]?.authority).toMatchObject({ claim: "write", by: "alice", granted: false });
    expect(records[3]?.authority).toMatchObject({ by: "bob", granted: true });
    const handoff = records[4];
    expect(handoff).toMatchObject({
      tool: "playbook",
      delegation: { playbook: "release", mode: "handoff" },
    });
    expect(records.every((r) => r.trace_id === traceIdOf(first.id))).toBe(true);

    // The release run carries on the team run's trace, under the step that handed off.
    expect(second.origin).toEqual({
      run: first.id,
      root: first.id,
      key: `${first.id}/handoff/release`,
    });
    const next = log.read(`${SCOPE}:${second.id}`).records;
    expect(next[0]).toMatchObject({ event: "start", actor: "alice", playbook: "release" });
    expect(next.every((r) => r.trace_id === traceIdOf(first.id))).toBe(true);
    const span = storedRun(runSeed(second));
    expect(span.parent_span_id).toBe(handoff?.span_id);
    expect(span.span_id).toBe(spanIdOf(JSON.stringify(["run", second.id])));
    expect(span.origin_run_id).toBe(first.id);
    await h.close();
  });

  it("goes on when its trace log fails", async () => {
    let tried = 0;
    const broken: TraceLog = {
      append: async () => {
        tried++;
        throw new Error("trace store down");
      },
      read: async () => ({ records: [], dropped: 0 }),
    };
    const h = await new TracedHarness(fake, makeClock(), broken).start();
    await h.comment(1, "alice", "/run team");
    await h.comment(1, "bob", "/approve");
    expect(tried).toBeGreaterThan(3);
    expect(runOf(0).status).toBe("completed");
    expect(runOf(1).status).toBe("waiting");
    await h.close();
  });
});
