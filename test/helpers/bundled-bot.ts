import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { RunState } from "../../src/core/engine/state.js";
import { readStatusComment } from "../../src/runtime/run-service/status-comment.js";
import { repositoryStateKey } from "../../src/runtime/state-codec.js";
import type { FakeGitHub } from "./fake-github.js";
import { workflowEvents } from "./workflow-events.js";

/**
 * The Actions runtime as a runner runs it: the bundled `dist/action/index.js` in a child process,
 * with `GITHUB_EVENT_NAME`, `GITHUB_EVENT_PATH` (a real payload from @octokit/webhooks-examples,
 * moved onto the fake), `GITHUB_API_URL` pointing at the fake served on loopback and the
 * `INPUT_*` of `mode: bot`.
 */
const BUNDLE = resolve(import.meta.dirname, "../../dist/action/index.js");
export const BOT_STATE_SECRET = "a-repository-secret-of-some-length";

export interface BundledBot {
  /** One workflow run: the event's payload written where the runner puts it, the bundle started. */
  runAction(
    eventName: string,
    payload: unknown,
    inputs?: Record<string, string>,
  ): Promise<{ code: number; out: string }>;
  /** `issues.labeled`, as GitHub sends it to a workflow (no installation). */
  labeled(issue: number, label: string, by: string): Record<string, unknown>;
  /** `issue_comment.created` for a comment on the fake. */
  commented(commentId: number): Record<string, unknown>;
  /** `issues.opened`, by the issue's author. */
  opened(issue: number, by: string): Record<string, unknown>;
  /** `pull_request.closed` for a pull request on the fake (merged or not, as the fake says). */
  pullClosed(pull: number): Record<string, unknown>;
  /** The runs in the issue's status comments, each seal checked with the workflow's secret. */
  statuses(issue: number): (RunState | undefined)[];
  /** Serves the fake on loopback (in `beforeAll`, once the fake is made). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The bot for a test file: made where its tests are declared, started once `fakeOf()` gives the
 * fake. Its functions stand alone, so a file can take them apart.
 */
export function bundledBot(fakeOf: () => FakeGitHub): BundledBot {
  let api: { url: string; close: () => Promise<void> } | undefined;
  let dir = "";
  let runs = 0;

  const events = workflowEvents(fakeOf);

  return {
    async start() {
      api = await fakeOf().serve();
      dir = mkdtempSync(join(tmpdir(), "pb-bundled-bot-"));
    },
    runAction(eventName, payload, inputs = {}) {
      if (!api) throw new Error("the bundled bot is not started");
      const eventPath = join(dir, `event-${++runs}.json`);
      writeFileSync(eventPath, JSON.stringify(payload));
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        GITHUB_ACTIONS: "true",
        GITHUB_EVENT_NAME: eventName,
        GITHUB_EVENT_PATH: eventPath,
        GITHUB_API_URL: api.url,
        GITHUB_REPOSITORY: `${fakeOf().owner}/${fakeOf().name}`,
        GITHUB_RUN_ID: String(9000 + runs),
        GITHUB_RUN_ATTEMPT: "1",
        GITHUB_OUTPUT: join(dir, "output"),
        GITHUB_STEP_SUMMARY: join(dir, "summary"),
        // The loopback API has no secondary rate limits: writes need not be spaced.
        PLAYBOOK_THROTTLE: "off",
        INPUT_MODE: "bot",
        INPUT_TOKEN: "ghs_workflowtoken",
        "INPUT_STATE-SECRET": BOT_STATE_SECRET,
        ...inputs,
      };
      // Not spawnSync: the GitHub API this child calls is served by this very process.
      return new Promise((done, fail) => {
        const child = spawn(process.execPath, [BUNDLE], { env, stdio: ["ignore", "pipe", "pipe"] });
        let out = "";
        child.stdout.on("data", (c: Buffer) => (out += c.toString()));
        child.stderr.on("data", (c: Buffer) => (out += c.toString()));
        child.on("error", fail);
        child.on("close", (code) => done({ code: code ?? -1, out }));
      });
    },
    labeled: events.labeled,
    commented: events.commented,
    opened: events.opened,
    pullClosed: events.pullClosed,
    statuses(issue) {
      const key = repositoryStateKey(BOT_STATE_SECRET, 0, Number(events.repository().id));
      return fakeOf()
        .statusComments(issue)
        .map((c) => {
          const read = readStatusComment(c.body, { key, issue, comment: String(c.id) });
          return read.ok ? read.run : undefined;
        });
    },
    async close() {
      await api?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
