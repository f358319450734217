import { beforeAll, describe, expect, it } from "vitest";
import type { RunState } from "../../../src/core/engine/state.js";
import {
  readStatusComment,
  renderStatusComment,
} from "../../../src/runtime/run-service/status-comment.js";
import { repositoryStateKey } from "../../../src/runtime/state-codec.js";
import { useActionsBot } from "../../helpers/actions-bot.js";
import type { FakeGitHub } from "../../helpers/fake-github.js";

/**
 * The Actions runtime (`mode: bot`, in this process, as in bot-runtime.test.ts) where anyone who
 * can push a workflow can read `state-secret` and seal any state: an approval counts for a run
 * only when its words name that run, and the reply budget holds across workflow runs.
 */
const SECRET = "a-secret-every-write-user-can-read";

/** A branch, then a maintainer's go, then the effect the go is for. */
const GATED = `apiVersion: playbook-bot/v1
id: gated
name: Gated
description: Prepares a branch, waits for a maintainer, then ships.
steps:
  - id: prepare
    type: branch
    name: playbook/gated-{{ issue.number }}
  - id: approve
    type: checkpoint
    message: Ship it?
    approvers: { permission: maintain }
  - id: ship
    type: comment
    body: Shipped.
  - id: done
    type: end
    status: success
`;

/** A playbook anyone may run: one comment. */
const OPEN = `apiVersion: playbook-bot/v1
id: open
name: Open
description: Anyone may run it.
permissions: { run: read }
steps:
  - id: say
    type: comment
    body: Said.
  - id: done
    type: end
    status: success
`;

/** Two maintainers' gos in a row before the effect. */
const TWICE = `apiVersion: playbook-bot/v1
id: twice
name: Twice
description: Two checkpoints, then ships.
steps:
  - id: first
    type: checkpoint
    message: Really?
    approvers: { permission: maintain }
  - id: second
    type: checkpoint
    message: Really really?
    approvers: { permission: maintain }
  - id: ship
    type: comment
    body: Shipped twice.
  - id: done
    type: end
    status: success
`;

describe("mode: bot: approvals name their run", () => {
  const now = Date.now();
  const bot = useActionsBot({
    secret: SECRET,
    files: {
      ".github/playbooks/gated.yaml": GATED,
      ".github/playbooks/twice.yaml": TWICE,
      ".github/playbooks/open.yaml": OPEN,
      ...Object.fromEntries(
        Array.from({ length: 7 }, (_, i) => [
          `.github/playbooks/open${i}.yaml`,
          OPEN.replace("id: open", `id: open${i}`),
        ]),
      ),
    },
    roles: { alice: "write", carol: "maintain", tom: "triage", bob: "read" },
    clock: () => new Date(now),
  });
  let fake: FakeGitHub;
  beforeAll(() => {
    fake = bot.fake;
  });

  const key = () => repositoryStateKey(SECRET, 0, Number(bot.repository().id));

  /** One workflow run on a comment's creation (its reconcile replays what is unanswered). */
  async function comment(issue: number, who: string, body: string) {
    const c = fake.postAs(issue, who, body);
    expect(await bot.run("issue_comment", bot.commentEvent(c.id))).toBe(0);
    return c;
  }
  const runsOn = (issue: number) =>
    fake.statusComments(issue).map((c) => {
      const read = readStatusComment(c.body, { key: key(), issue, comment: String(c.id) });
      if (!read.ok) throw new Error(read.reason);
      return { comment: c, run: read.run };
    });
  const reactionsOn = (id: number) =>
    fake.reactions.filter((r) => r.commentId === id).map((r) => r.content);
  const saying = (issue: number, text: string) =>
    [...fake.comments.values()].filter((c) => c.issue === issue && c.body.includes(text));

  /** A failed run (GitHub refused its branch), then a run waiting at the checkpoint. */
  async function failedThenWaiting() {
    const issue = fake.openIssue("Ship", "", "alice");
    fake.fault = ({ method, path }) =>
      method === "POST" && path.includes("/git/refs") ? { status: 404 } : undefined;
    await comment(issue.number, "alice", "/run gated");
    fake.fault = undefined;
    await comment(issue.number, "alice", "/run gated");
    const [failed, waiting] = runsOn(issue.number);
    expect(failed?.run.status).toBe("failed");
    expect(waiting?.run.stack[0]?.current).toBe("approve");
    return { issue: issue.number, failed: failed!, waiting: waiting! };
  }

  it("asks for the approval with the command to copy, answers a bare /approve with it, and takes the named one", async () => {
    const { issue, waiting } = await failedThenWaiting();
    const id = waiting.run.id;
    expect(saying(issue, "waits for approval")[0]?.body).toContain(`\`/approve ${id}\``);

    const bare = await comment(issue, "carol", "/approve looks good");
    expect(reactionsOn(bare.id)).toEqual(["eyes", "-1"]);
    const told = saying(issue, "here an approval names the run it is for");
    expect(told).toHaveLength(1);
    expect(told[0]?.body).toContain(`\`/approve ${id} looks good\``);
    expect(runsOn(issue)[1]?.run.stack[0]?.current).toBe("approve");

    // Another run's id (the failed one's) is no approval of this one.
    const other = await comment(issue, "carol", `/approve ${runsOn(issue)[0]?.run.id}`);
    expect(reactionsOn(other.id)).toContain("-1");
    expect(saying(issue, "Shipped.")).toHaveLength(0);

    // The id as written in capitals is the same id.
    const named = await comment(issue, "carol", `/approve ${id.toUpperCase()} looks good`);
    expect(reactionsOn(named.id)).toEqual(["eyes", "rocket"]);
    const after = runsOn(issue)[1]!.run;
    expect(after.status).toBe("completed");
    expect(after.stack[0]?.results.approve?.outputs?.note).toBe("looks good");
    expect(saying(issue, "Shipped.")).toHaveLength(1);

    // The finished run's id: nothing waits there any more; nor for a bare /approve.
    const late = await comment(issue, "carol", `/approve ${id}`);
    expect(reactionsOn(late.id)).toContain("-1");
    await comment(issue, "carol", "/approve");
    expect(saying(issue, "nothing on this issue waits for /approve")).toHaveLength(1);
    expect(saying(issue, "Shipped.")).toHaveLength(1);
  }, 60_000);

  /**
   * A write user seals the failed run's status comment with a state past the checkpoint that
   * names the maintainer's approval of the other run, then has it carried on (`/retry`).
   */
  it.each([
    ["the approved run's id", (approved: RunState) => approved.id],
    ["its own id", (_: RunState, own: RunState) => own.id],
  ])(
    "counts no approval of another run for a state a write user sealed under %s",
    async (_, idOf) => {
      const { issue, failed, waiting } = await failedThenWaiting();
      await comment(issue, "carol", `/approve ${waiting.run.id}`);
      const approved = runsOn(issue)[1]!.run;
      expect(approved.status).toBe("completed");
      expect(saying(issue, "Shipped.")).toHaveLength(1);

      const forged = structuredClone(approved);
      forged.id = idOf(approved, failed.run);
      forged.status = "running";
      // What the run remembers handling goes too, so no event of the approved run is refused.
      forged.recentEvents = [];
      const frame = forged.stack[0]!;
      frame.current = "ship";
      frame.phase = "pending";
      delete frame.results.ship;
      delete frame.results.done;
      fake.editAs(
        failed.comment.id,
        renderStatusComment(forged, () => undefined, {
          key: key(),
          issue,
          comment: String(failed.comment.id),
        }),
      );
      await comment(issue, "alice", "/retry");
      expect(saying(issue, "Shipped.")).toHaveLength(1);
      expect(runsOn(issue)[0]?.run.error?.code).toBe("GH-PERMISSION");
    },
    60_000,
  );

  it("gives no vote to a waiting state a write user sealed under another run's id, and says so", async () => {
    const { issue, failed, waiting } = await failedThenWaiting();
    const id = waiting.run.id;
    fake.editAs(
      failed.comment.id,
      renderStatusComment(waiting.run, () => undefined, {
        key: key(),
        issue,
        comment: String(failed.comment.id),
      }),
    );
    await comment(issue, "carol", "/approve");
    const [told] = saying(issue, "here an approval names the run it is for");
    expect(told?.body).toContain(`\`/approve ${id}\``);
    expect(told?.body).toContain(
      `no approval counts for \`${id}\` (status comment ${failed.comment.id})`,
    );
    // The named run takes the vote, its copy none: a /reject naming it keeps its reason.
    const reject = await comment(issue, "carol", `/reject ${id} not today`);
    expect(reactionsOn(reject.id)).toEqual(["eyes", "rocket"]);
    const [copy, real] = runsOn(issue);
    expect(real?.run.status).toBe("failed");
    expect(real?.run.error?.message).toContain("not today");
    expect(copy?.run.status).toBe("waiting");
  }, 60_000);

  /** The run's own status comment sealed past its checkpoint `step`, citing carol's `comment`. */
  function forgePast(
    issue: number,
    status: { id: number },
    run: RunState,
    comment: number,
    step = "approve",
  ) {
    const forged = structuredClone(run);
    const frame = forged.stack[0]!;
    frame.results[step] = {
      status: "completed",
      attempt: 1,
      at: frame.since,
      outputs: { approved_by: ["carol"], note: "" },
      approvals: [{ user: "carol", comment: String(comment) }],
    };
    frame.current = "ship";
    frame.phase = "pending";
    frame.votes = [];
    forged.status = "running";
    forged.recentEvents = [];
    delete forged.error;
    fake.editAs(
      status.id,
      renderStatusComment(forged, () => undefined, {
        key: key(),
        issue,
        comment: String(status.id),
      }),
    );
  }

  it.each([
    ["a bare /approve", () => "/approve"],
    ["its /approve, then a bare /reject", (id: string) => `/approve ${id}\n/reject`],
  ])(
    "counts no comment for a run whose words are %s",
    async (_, words) => {
      const issue = fake.openIssue("Forged", "", "alice").number;
      await comment(issue, "alice", "/run gated");
      const [{ comment: status, run }] = runsOn(issue) as [ReturnType<typeof runsOn>[0]];
      const cited = await comment(issue, "carol", words(run.id));
      // Whatever the comment did when it came, the run is put back before the effect.
      forgePast(issue, status, run, cited.id);
      const shipped = saying(issue, "Shipped.").length;
      await comment(issue, "alice", "/retry");
      expect(saying(issue, "Shipped.")).toHaveLength(shipped);
      expect(runsOn(issue)[0]?.run.error?.message).toContain(
        `does not say /approve ${run.id} for 'approve'`,
      );
    },
    60_000,
  );

  it("counts one approval once: a state citing the first checkpoint's /approve for the second is refused", async () => {
    const issue = fake.openIssue("Twice", "", "alice").number;
    await comment(issue, "alice", "/run twice");
    const [{ comment: status, run }] = runsOn(issue) as [ReturnType<typeof runsOn>[0]];
    const first = await comment(issue, "carol", `/approve ${run.id}`);
    const waiting = runsOn(issue)[0]!.run;
    expect(waiting.stack[0]?.current).toBe("second");

    forgePast(issue, status, waiting, first.id, "second");
    await comment(issue, "alice", "/retry");
    expect(saying(issue, "Shipped twice.")).toHaveLength(0);
    expect(runsOn(issue)[0]?.run.error?.message).toContain(
      "the state cites it for more than one step, so it must name each",
    );
  }, 60_000);

  it("spends one reply budget across workflow runs: three comments of five /help lines get five replies", async () => {
    const issue = fake.openIssue("Help?", "", "tom");
    const before = (who: string) =>
      saying(issue.number, "Playbook Bot commands").filter((c) =>
        c.body.includes(`playbook-bot:reply-to ${who}`),
      );
    const help = Array.from({ length: 5 }, () => "/help").join("\n");
    for (let i = 0; i < 3; i++) await comment(issue.number, "tom", help);
    expect(saying(issue.number, "Playbook Bot commands")).toHaveLength(5);
    expect(before("tom")).toHaveLength(5);
    // Another person's budget is their own.
    await comment(issue.number, "alice", "/help");
    expect(before("alice")).toHaveLength(1);
  }, 60_000);

  it("an outsider's runs across workflow runs: five in ten minutes, however many comments", async () => {
    const issue = fake.openIssue("Open", "", "bob");
    for (let i = 0; i < 6; i++) await comment(issue.number, "bob", "/run open");
    expect(runsOn(issue.number)).toHaveLength(5);
    // A person with a role above read is not held to it.
    for (let i = 0; i < 6; i++) await comment(issue.number, "tom", "/run open");
    expect(runsOn(issue.number)).toHaveLength(11);
  }, 60_000);

  it("an outsider's issue form with seven playbook labels: five runs across workflow runs", async () => {
    // The form sets the labels; GitHub sends each labeled event with its author as sender.
    const labels = Array.from({ length: 7 }, (_, i) => `playbook:open${i}`);
    const issue = fake.openIssue("From a form", "", "bob", labels).number;
    for (const l of labels)
      expect(await bot.run("issues", bot.labeledEvent(issue, l, "bob"))).toBe(0);
    expect(runsOn(issue)).toHaveLength(5);
  }, 60_000);
});
