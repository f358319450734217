import { describe, expect, it } from "vitest";
import type { AdhocLog } from "../../../src/runtime/run-service/adhoc-log.js";
import type { AiAdapter } from "../../../src/runtime/ai.js";
import type { RunState } from "../../../src/core/engine/state.js";
import type { FileProposal, GitHubPort } from "../../../src/runtime/github-port.js";
import type { EffectOutcome } from "../../../src/runtime/effects.js";
import {
  REPOSITORY_PLAYBOOKS,
  systematise,
  type SystematiseContext,
} from "../../../src/runtime/run-service/systematise.js";
import { Driver, WRITER, bundle, load, yaml } from "../../core/engine/helpers.js";

const GATED = yaml`
  apiVersion: playbook-bot/v1
  id: gated
  steps:
    - id: approve
      type: checkpoint
      message: Go?
      approvers: { permission: write }
    - id: done
      type: end
`;

const AT = "2026-03-01T09:00:00.000Z";

/** A log of work by hand with one finding and one note, written at `at`. */
function handWork(at = AT): AdhocLog {
  return {
    entries: [
      { kind: "record", event: "c-1", actor: "alice", at, key: "disk_pct", value: "97" },
      { kind: "note", event: "c-2", actor: "alice", at, text: "rotated the WAL archive by hand" },
    ],
    dropped: 0,
  };
}

/** A run of `gated` approved by a writer and finished; its id differs by its start time. */
function approvedRun(minute: number): RunState {
  const d = new Driver(bundle(GATED), [], new Date(Date.UTC(2026, 2, 1, 10, minute)));
  d.start();
  d.drive();
  d.command("approve", WRITER);
  d.drive();
  expect(d.run.status).toBe("completed");
  return d.run;
}

interface Asked {
  proposals: { issue: number; key: string; proposal: FileProposal }[];
}

function context(
  over: Partial<SystematiseContext> = {},
  answer?: EffectOutcome<"pull_request">,
): SystematiseContext & Asked {
  const proposals: Asked["proposals"] = [];
  const port = {
    ...(answer
      ? {
          proposeFiles: async (issue: number, key: string, proposal: FileProposal) => {
            proposals.push({ issue, key, proposal });
            return answer;
          },
        }
      : {}),
  } as unknown as GitHubPort;
  return {
    port,
    repo: { owner: "octo", name: "hello" },
    issue: { number: 4, title: "Disk full on db-1" },
    known: [],
    sourceOf: () => undefined,
    runs: [],
    adhoc: { entries: [], dropped: 0 },
    otherRuns: async () => [],
    proposals,
    ...over,
  };
}

const REFUSED: EffectOutcome<"pull_request"> = {
  ok: false,
  error: { code: "GH-PERMISSION", message: "Resource not accessible by integration", guidance: "" },
};

describe("/systematise <id> when no pull request can be opened", () => {
  it("refuses on a host that cannot open pull requests (no port for it), after drafting", async () => {
    const ctx = context({ adhoc: handWork() });
    const r = await systematise(ctx, "disk-full", "key-1");
    expect(r).toEqual({ outcome: "refused", reason: "this host cannot open pull requests" });
  });

  it("passes GitHub's refusal on, having asked for the drafted file", async () => {
    const ctx = context({ adhoc: handWork() }, REFUSED);
    const r = await systematise(ctx, "disk-full", "key-2");
    expect(r).toEqual({ outcome: "refused", reason: "Resource not accessible by integration" });
    expect(ctx.proposals).toHaveLength(1);
    expect(ctx.proposals[0]).toMatchObject({ issue: 4, key: "key-2" });
    expect(ctx.proposals[0]?.proposal.files[0]?.path).toBe(`${REPOSITORY_PLAYBOOKS}disk-full.yml`);
    // The issue had no labels: the draft still names the issue.
    expect(ctx.proposals[0]?.proposal.title).toBe("Playbook disk-full, drafted from #4");
  });

  it("keeps the draft's own wording when the model fails", async () => {
    const ai: AiAdapter = {
      name: "broken-model",
      // eslint-disable-next-line require-yield
      async *invoke() {
        throw new Error("model unavailable");
      },
    };
    const ok: EffectOutcome<"pull_request"> = {
      ok: true,
      outputs: { number: 12, url: "https://github.com/octo/hello/pull/12" },
    } as unknown as EffectOutcome<"pull_request">;
    const ctx = context({ adhoc: handWork(), ai }, ok);
    const r = await systematise(ctx, "disk-full", "key-3");
    expect(r.outcome).toBe("accepted");
    expect(r.body).toContain("Drafted the playbook `disk-full` from this issue: #12");
    expect(ctx.proposals[0]?.proposal.files[0]?.content).toContain("id: disk-full");
  });
});

describe("/systematise (improve) refusals and answers", () => {
  it("refuses when no playbook ran on the issue, or the run has no playbook", async () => {
    const none = await systematise(context(), undefined, "k");
    expect(none).toEqual({
      outcome: "refused",
      reason: "no playbook ran on this issue: name the new one, `/systematise <id>`",
    });
    const run = approvedRun(0);
    const empty = await systematise(
      context({ runs: [{ run: { ...run, stack: [] } }] }),
      undefined,
      "k",
    );
    expect(empty.reason).toMatch(/^no playbook ran on this issue/);
  });

  it("refuses a playbook that is not a file of .github/playbooks/, or whose file is unknown", async () => {
    const run = approvedRun(0);
    const playbook = load(GATED);
    const known = [{ id: "gated", playbook }];
    const library = await systematise(
      context({
        runs: [{ run, playbook }],
        known,
        sourceOf: () => ({ file: "playbooks/gated.yaml", source: GATED }),
      }),
      undefined,
      "k",
    );
    expect(library).toEqual({
      outcome: "refused",
      reason:
        "the playbook 'gated' is not a file of this repository's .github/playbooks/, so no change of it can be proposed here",
    });
    const unknown = await systematise(
      context({ runs: [{ run, playbook }], known }),
      undefined,
      "k",
    );
    expect(unknown.reason).toContain("is not a file of this repository's");
    // Its file is there but it is not among the known playbooks.
    const unlisted = await systematise(
      context({
        runs: [{ run, playbook }],
        sourceOf: () => ({ file: ".github/playbooks/gated.yaml", source: GATED }),
      }),
      undefined,
      "k",
    );
    expect(unlisted.reason).toContain("is not a file of this repository's");
  });

  it("answers with the problems when the playbook's file does not validate", async () => {
    const run = approvedRun(0);
    const playbook = load(GATED);
    const broken = `${GATED}  - { id: extra, type: comit }\n`;
    const r = await systematise(
      context({
        runs: [{ run, playbook }],
        known: [{ id: "gated", playbook }],
        sourceOf: () => ({ file: ".github/playbooks/gated.yaml", source: broken }),
      }),
      undefined,
      "k",
    );
    expect(r.outcome).toBe("accepted");
    expect(r.body).toMatch(/^No change of `gated` is proposed:/);
    expect(r.body).toContain("The playbook does not validate as it is: nothing is proposed.");
  });

  it("gives advice, not a change, when the runs read show nothing to change", async () => {
    const run = approvedRun(0);
    const playbook = load(GATED);
    // A run of another playbook from another issue: read, but not counted.
    const other = approvedRun(5);
    const elsewhere = { ...other, stack: other.stack.map((f) => ({ ...f, playbook: "other" })) };
    const ctx = context(
      {
        runs: [{ run, playbook }],
        known: [{ id: "gated", playbook }],
        sourceOf: () => ({ file: ".github/playbooks/gated.yaml", source: GATED }),
        // Work by hand before the run started is not given to it.
        adhoc: handWork("2026-03-01T08:00:00.000Z"),
        otherRuns: async () => [{ run: elsewhere, issue: 9 }],
      },
      REFUSED,
    );
    const r = await systematise(ctx, undefined, "k");
    expect(r.outcome).toBe("accepted");
    expect(r.body).toMatch(/^No change of `gated` is proposed:/);
    expect(r.body).toContain("1 run of other playbooks was not counted.");
    expect(ctx.proposals).toEqual([]);
  });

  it("passes GitHub's refusal of the improvement's pull request on", async () => {
    const runs = [approvedRun(0), approvedRun(1), approvedRun(2)];
    const playbook = load(GATED);
    const ctx = context(
      {
        runs: runs.map((run) => ({ run, playbook })).reverse(),
        known: [{ id: "gated", playbook }],
        sourceOf: () => ({ file: ".github/playbooks/gated.yaml", source: GATED }),
        // Work by hand after the runs started: given to them.
        adhoc: handWork("2026-03-01T11:00:00.000Z"),
      },
      REFUSED,
    );
    const r = await systematise(ctx, undefined, "k-improve");
    expect(r).toEqual({ outcome: "refused", reason: "Resource not accessible by integration" });
    expect(ctx.proposals).toHaveLength(1);
    const asked = ctx.proposals[0]!.proposal;
    expect(asked.branch).toBe("playbook-bot/improve-gated");
    expect(asked.files[0]?.path).toBe(".github/playbooks/gated.yaml");
    expect(asked.files[0]?.content).not.toContain("type: checkpoint");
    expect(asked.body).toContain("from 3 of its runs");
    expect(asked.body).toContain("lower-approval approve: approved in each of the 3 runs");
  });
});
