import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MockAiAdapter } from "../../src/runtime/ai.js";
import { LocalEffects } from "../../src/adapters/local/effects.js";
import { MemoryGitHub } from "../../src/adapters/memory/github.js";
import type { Effect, EffectKind, EffectParams } from "../../src/core/engine/events.js";
import type { RunState } from "../../src/core/engine/state.js";
import { EFFECT_KINDS, EFFECT_OUTPUTS } from "../../src/core/steps/effects.js";
import type { EffectPerformer } from "../../src/runtime/effects.js";
import { EXAMPLE_REPO, makeClock, testPort } from "../entries/app/harness.js";
import { FakeGitHub } from "../helpers/fake-github.js";
import { cleanup, makeRepo } from "../helpers/git-repo.js";
import { sampleRun } from "../runtime/state/fixtures.js";

/** One effect of each kind, with params as the steps build them; each works on the one before. */
const PARAMS: { [K in EffectKind]: EffectParams<K> } = {
  branch: { name: "contract/work", require_new: false },
  commit: {
    branch: "contract/work",
    message: "docs: contract",
    files: [{ path: "docs/contract.md", content: "# Contract\n" }],
    paths: [],
    push: true,
    pull: true,
  },
  pull_request: {
    head: "contract/work",
    title: "Contract",
    draft: false,
    labels: [],
    reviewers: [],
    team_reviewers: [],
  },
  issue: { title: "Follow up", labels: [], assignees: [] },
  label: { add: ["triaged"], remove: [] },
  dispatch: { workflow: "ci.yml", inputs: { n: 1 } },
  comment: { body: "Working on it." },
  ai: {
    prompt: "Summarise",
    tools: [],
    scope: "read-only",
    expected_findings: [],
    expect_files: [],
  },
  close: { reason: "completed" },
  start_playbook: { playbook: "next", inputs: {} },
  script: { shell: "sh", run: 'printf "%s" "$WHO"', env: { WHO: "contract" } },
  tool_call: { calls: [{ number: 1, tool: "db/query", args: { id: 1 }, required: true }] },
};

function effectOf<K extends EffectKind>(kind: K, params: EffectParams<K>): Effect<K> {
  return { key: `contract-run/${kind}/1`, kind, step: kind, params };
}

/**
 * Performs every kind in order, twice with one key (the second finds what the first did), and
 * checks each answer has every output its kind promises.
 */
async function expectEveryOutput(
  performer: EffectPerformer,
  run: RunState,
  refuses: Partial<Record<EffectKind, string>> = {},
): Promise<void> {
  for (const kind of EFFECT_KINDS) {
    const effect = effectOf(kind, PARAMS[kind]);
    for (const attempt of ["first", "again"]) {
      const outcome = await performer.perform(effect, run);
      const refusal = refuses[kind];
      if (refusal !== undefined) {
        expect(outcome, `${kind} (${attempt})`).toMatchObject({
          ok: false,
          error: { code: refusal },
        });
        continue;
      }
      expect(outcome, `${kind} (${attempt})`).toMatchObject({ ok: true });
      const keys = outcome.ok ? Object.keys(outcome.outputs) : [];
      for (const output of EFFECT_OUTPUTS[kind])
        expect(keys, `${kind}.${output} (${attempt})`).toContain(output);
    }
  }
}

afterEach(cleanup);

describe("every effect kind returns the outputs it promises", () => {
  it("in memory", async () => {
    const gh = new MemoryGitHub();
    const issue = gh.openIssue("Contract", "", "alice");
    await expectEveryOutput(gh, { ...sampleRun(), context: { issue: { number: issue.number } } });
  });

  describe("on GitHub through Octokit", () => {
    let fake: FakeGitHub;
    beforeEach(() => {
      nock.disableNetConnect();
      fake = new FakeGitHub({ ...EXAMPLE_REPO, clock: makeClock() }).install();
    });
    afterEach(() => {
      fake.uninstall();
      nock.enableNetConnect();
    });

    it("against the fake GitHub", async () => {
      const issue = fake.openIssue("Contract", "", "alice");
      const run = { ...sampleRun(), context: { issue: { number: issue.number } } };
      // The app runs no scripts, whatever the playbook says.
      await expectEveryOutput(testPort(), run, { script: "PB-SCRIPT-REFUSED" });
    });
  });

  it("locally, with git in a repository and GitHub's kinds printed", async () => {
    const local = new LocalEffects({
      repo: makeRepo(),
      dryRun: false,
      ai: new MockAiAdapter(),
      log: () => undefined,
      allowScripts: true,
    });
    await expectEveryOutput(local, sampleRun());
  });

  it("locally, a script runs only when the operator allowed scripts", async () => {
    const options = { repo: makeRepo(), dryRun: false, ai: new MockAiAdapter(), log: () => {} };
    const effect = effectOf("script", PARAMS.script);
    const refused = await new LocalEffects(options).perform(effect, sampleRun());
    expect(refused).toMatchObject({ ok: false, error: { code: "PB-SCRIPT-REFUSED" } });
    const ran = await new LocalEffects({ ...options, allowScripts: true }).perform(
      effect,
      sampleRun(),
    );
    // The value reached the script through its environment, not through its text.
    expect(ran).toMatchObject({ ok: true, outputs: { exit_code: 0, stdout: "contract" } });
  });

  it("locally in a dry run", async () => {
    const local = new LocalEffects({
      repo: makeRepo(),
      dryRun: true,
      ai: new MockAiAdapter(),
      log: () => undefined,
    });
    await expectEveryOutput(local, sampleRun());
  });
});
