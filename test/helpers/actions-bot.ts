import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll } from "vitest";
import { runBot } from "../../src/entries/action/bot.js";
import { FakeGitHub } from "./fake-github.js";
import { EXAMPLE_REPO } from "../entries/app/harness.js";
import { workflowEvents } from "./workflow-events.js";

/** What a describe block of the Actions bot (`mode: bot`, in this process) works with. */
export interface ActionsBot {
  /** GitHub, as the workflow's token sees it (the GitHub Actions app, id 15368). */
  readonly fake: FakeGitHub;
  /** Every line the bot logged, in order. */
  readonly lines: string[];
  /** The folder the runner's event files are written in. */
  readonly dir: string;
  /** The repository as an event names it. */
  repository(): Record<string, unknown>;
  /** One workflow run for an event, as the runner starts it: the payload in a file; its exit code. */
  run(
    eventName: string,
    payload: Record<string, unknown>,
    env?: NodeJS.ProcessEnv,
  ): Promise<number>;
  /** `issue_comment.created` for a comment already on its issue. */
  commentEvent(commentId: number): Record<string, unknown>;
  /** `issues.labeled` for a label `by` added to an issue. */
  labeledEvent(issue: number, label: string, by: string): Record<string, unknown>;
}

export interface ActionsBotOptions {
  /** The workflow's `state-secret` input. */
  secret: string;
  /** The default branch's files. */
  files: Record<string, string>;
  /** People's roles on the repository. */
  roles: Record<string, string>;
  /** The time every workflow run is started at (read at each run). */
  clock: () => Date;
}

/**
 * The Actions runtime in this process, one workflow run per event, with no store kept between
 * runs: a fake GitHub served on loopback for the describe block, and the runner's environment.
 */
export function useActionsBot(o: ActionsBotOptions): ActionsBot {
  let fake: FakeGitHub | undefined;
  let api: { url: string; close: () => Promise<void> } | undefined;
  let dir = "";
  let runs = 0;
  const lines: string[] = [];
  beforeAll(async () => {
    fake = new FakeGitHub({
      ...EXAMPLE_REPO,
      appId: 15368,
      appSlug: "github-actions",
      clock: o.clock,
      files: o.files,
    });
    for (const [who, role] of Object.entries(o.roles)) fake.permissions.set(who, role);
    api = await fake.serve();
    dir = mkdtempSync(join(tmpdir(), "pb-actions-bot-"));
  });
  afterAll(async () => {
    await api?.close();
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });
  const github = () => fake ?? expectStarted();
  const events = workflowEvents(github);
  const { repository } = events;
  return {
    get fake() {
      return github();
    },
    lines,
    get dir() {
      return dir;
    },
    repository,
    run(eventName, payload, env = {}) {
      const eventPath = join(dir, `event-${++runs}.json`);
      writeFileSync(eventPath, JSON.stringify({ ...payload, repository: repository() }));
      return runBot({
        env: {
          GITHUB_EVENT_NAME: eventName,
          GITHUB_EVENT_PATH: eventPath,
          GITHUB_API_URL: `${api!.url}/`,
          GITHUB_RUN_ID: String(runs),
          GITHUB_TOKEN: "ghs_fromtheenvironment",
          PLAYBOOK_THROTTLE: "off",
          "INPUT_STATE-SECRET": o.secret,
          ...env,
        },
        log: (line) => lines.push(line),
        clock: o.clock,
      });
    },
    commentEvent: events.commented,
    labeledEvent: events.labeled,
  };
}

function expectStarted(): never {
  throw new Error("the Actions bot's GitHub is served from beforeAll: use it inside a test");
}
